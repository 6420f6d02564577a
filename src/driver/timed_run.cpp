#include "driver/timed_run.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "common/error.h"
#include "interp/mem_overlap.h"

namespace stitch {

namespace {

IValue cloneValue(const IValue& v) {
  if (v.isTensor()) return IValue(v.toTensor().clone());
  if (v.isList()) return IValue::list(cloneValues(v.toList()));
  if (v.isTuple()) return IValue::tuple(cloneValues(v.toList()));
  return v;
}

}  // namespace

IValueList cloneValues(const IValueList& values) {
  IValueList out;
  out.reserve(values.size());
  for (const IValue& v : values) out.push_back(cloneValue(v));
  return out;
}

IValueList interpretFresh(const Graph& graph, const IValueList& inputs, const InterpOptions& options) {
  return interpret(graph, cloneValues(inputs), options);
}

TimedRun runTimed(const Graph& graph, const IValueList& inputs, const InterpOptions& options,
                  int repetitions, const FunctionalizeResult& writeBack) {
  return runTimed([&](const IValueList& fresh) { return interpret(graph, fresh, options); },
                  inputs, repetitions, writeBack);
}

namespace {

// Both dense with the same bytes.
bool sameContents(const Tensor& a, const Tensor& b) {
  if (!a.isContiguous() || !b.isContiguous()) return false;
  return std::memcmp(a.rawData(), b.rawData(), size_t(a.numel()) * dtypeSize(a.dtype())) == 0;
}

// Whether `fresh` could be given `input`'s values in place: a dense tensor
// of its dtype and sizes, or a list / tuple of such, element by element
// (lists are immutable: a run cannot have changed their length).
bool restorableInPlace(const IValue& fresh, const IValue& input) {
  if (fresh.isTensor() && input.isTensor())
    return fresh.toTensor().isContiguous() && fresh.toTensor().dtype() == input.toTensor().dtype() &&
           fresh.toTensor().sizes() == input.toTensor().sizes();
  if (!(fresh.isList() && input.isList()) && !(fresh.isTuple() && input.isTuple())) return false;
  const IValueList &to = fresh.toList(), &from = input.toList();
  if (to.size() != from.size()) return false;
  for (size_t k = 0; k < to.size(); ++k)
    if (!(to[k].isTensor() || to[k].isList() || to[k].isTuple()) || !restorableInPlace(to[k], from[k])) return false;
  return true;
}

void restoreInPlace(const IValue& fresh, const IValue& input) {
  if (fresh.isTensor()) {
    if (!sameContents(fresh.toTensor(), input.toTensor())) fresh.toTensor().copyFrom(input.toTensor());
    return;
  }
  for (size_t k = 0; k < fresh.toList().size(); ++k) restoreInPlace(fresh.toList()[k], input.toList()[k]);
}

// Gives `fresh` the values of `inputs` again for the next run. A tensor the
// run left unchanged is left alone: rewriting it would leave its lines
// modified in this thread's core, and the next run's other threads would
// fetch their parts from there rather than from their own caches (a
// 256 KiB weight read by two threads: 2x slower), which no caller calling
// with the same weights sees. A changed one is overwritten where it lies,
// as a caller refilling its input buffers would: a new copy per run would
// hand every timed run freshly mapped pages, whose first touches are the
// copy's cost, not the program's. Lists of tensors likewise, element by
// element. Anything else is copied anew. An input the run cannot write
// (`mayWrite`) is not even compared.
void restoreInputs(IValueList& fresh, const IValueList& inputs, const std::vector<bool>* mayWrite) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (mayWrite && !mayWrite->at(i)) continue;
    if (restorableInPlace(fresh[i], inputs[i]))
      restoreInPlace(fresh[i], inputs[i]);
    else
      fresh[i] = cloneValues({inputs[i]}).front();
  }
}

}  // namespace

TimedRun runTimed(const ProgramRunner& runOnce, const IValueList& inputs, int repetitions,
                  const FunctionalizeResult& writeBack, const std::vector<bool>* mayWrite) {
  STITCH_ASSERT(!mayWrite || mayWrite->size() == inputs.size(), "runTimed: ", mayWrite ? mayWrite->size() : 0,
                " write flags for ", inputs.size(), " inputs");
  using Clock = std::chrono::steady_clock;
  TimedRun run;
  if (repetitions > 0) run.outputs = runOnce(cloneValues(inputs));
  int timed = std::max(repetitions, 1);
  IValueList fresh = cloneValues(inputs);
  for (int i = 0; i < timed; ++i) {
    // The last run's outputs are no longer needed: a runtime may reuse
    // their buffers for this run.
    run.outputs.clear();
    if (i > 0) restoreInputs(fresh, inputs, mayWrite);
    auto start = Clock::now();
    run.outputs = runOnce(fresh);
    applyWriteBack(writeBack, fresh, run.outputs);
    run.timesMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  return run;
}

namespace {

void copyInto(const IValue& destination, const IValue& source) {
  if (destination.isTensor()) {
    const Tensor &to = destination.toTensor(), &from = source.toTensor();
    // The run wrote the argument where it lies (ExecutableOptions::
    // writtenBackInputs): nothing to copy.
    if (sameView(to, from)) return;
    to.copyFrom(from);
    return;
  }
  STITCH_ASSERT(destination.isList() && source.isList(), "write-back into a non-tensor input");
  const IValueList& to = destination.toList();
  const IValueList& from = source.toList();
  STITCH_ASSERT(to.size() == from.size(), "write-back list length ", from.size(), " into ",
                to.size());
  for (size_t i = 0; i < to.size(); ++i) copyInto(to[i], from[i]);
}

}  // namespace

void applyWriteBack(const FunctionalizeResult& writeBack, const IValueList& inputs,
                    IValueList& outputs) {
  if (writeBack.writtenBackInputs.empty()) return;
  size_t first = writeBack.originalOutputs;
  STITCH_ASSERT(outputs.size() == first + writeBack.writtenBackInputs.size(),
                "functional graph returned ", outputs.size(), " values, expected ",
                first + writeBack.writtenBackInputs.size());
  for (size_t k = 0; k < writeBack.writtenBackInputs.size(); ++k)
    copyInto(inputs.at(writeBack.writtenBackInputs[k]), outputs[first + k]);
  outputs.resize(first);
}

TimeSummary summarizeTimes(std::vector<double> timesMs) {
  TimeSummary s;
  if (timesMs.empty()) return s;
  std::sort(timesMs.begin(), timesMs.end());
  size_t n = timesMs.size();
  s.medianMs = n % 2 ? timesMs[n / 2] : (timesMs[n / 2 - 1] + timesMs[n / 2]) / 2;
  s.minMs = timesMs.front();
  return s;
}

}  // namespace stitch
