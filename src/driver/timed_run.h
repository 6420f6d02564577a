// Runs a program (the reference interpreter on a graph, or a compiled
// Executable) and times it. Every run gets its own copy of the inputs,
// refilled with the original values before each run (not timed), so a
// program that writes its inputs in place sees the same values each time.
#pragma once
#include <functional>
#include <vector>

#include "interp/interpreter.h"
#include "passes/functionalize.h"

namespace stitch {

struct TimedRun {
  IValueList outputs;           // of the last run
  std::vector<double> timesMs;  // one per timed run
};

// Deep copy of tensors (inside lists and tuples too), so a program that
// writes its inputs in place can be run again on the original values.
IValueList cloneValues(const IValueList& values);

// One run on a fresh copy of the inputs. Errors pass through as the
// interpreter raises them: UserError for a bad program (some, like writes
// to overlapping memory, show only when it runs), RuntimeFailure for what
// depends on the data.
IValueList interpretFresh(const Graph& graph, const IValueList& inputs, const InterpOptions& options);

// repetitions == 0: one run, timed. repetitions == N > 0: one untimed
// warm-up run, then N timed runs. Each run's write-back (applyWriteBack) is
// part of the timed run.
TimedRun runTimed(const Graph& graph, const IValueList& inputs, const InterpOptions& options,
                  int repetitions, const FunctionalizeResult& writeBack = {});

// One run of a program on inputs it may write (a fresh copy each time).
using ProgramRunner = std::function<IValueList(const IValueList& inputs)>;

// The same for any runner (e.g. a compiled Executable). `mayWrite` (when
// given, one per input): the inputs a run can change; the others are not
// looked at between runs (comparing them with their originals would bring
// both copies into the caches, which no caller's steady state does).
TimedRun runTimed(const ProgramRunner& runOnce, const IValueList& inputs, int repetitions,
                  const FunctionalizeResult& writeBack = {}, const std::vector<bool>* mayWrite = nullptr);

// For a functionalized graph: copies extra output k into input
// writeBack.writtenBackInputs[k] (element by element for a list), so the
// caller sees the inputs written as the imperative program would write them,
// then drops the extra outputs. No-op when no input is written.
void applyWriteBack(const FunctionalizeResult& writeBack, const IValueList& inputs,
                    IValueList& outputs);

struct TimeSummary {
  double medianMs = 0;
  double minMs = 0;
};
TimeSummary summarizeTimes(std::vector<double> timesMs);

}  // namespace stitch
