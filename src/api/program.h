// A function compiled for one signature of argument types: the pipeline's
// result and, in compiled mode, the Executable built from it (or, in
// interp mode, the IR the reference interpreter runs). Runs write back the
// arguments the program writes, into the caller's memory.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "driver/pipeline.h"
#include "interp/ivalue.h"
#include "runtime/executable.h"
#include "stitch/stitch.h"

namespace stitch {

struct CompileRequest {
  const SourceModule* module = nullptr;
  std::string source;  // the module's text (the tuning cache's key)
  std::string function;
  std::vector<TypePtr> types;  // one per parameter
  ListInputTypes listInputs;
  api::Options options;
  std::string signature;  // argumentSignature() of the arguments
};

class CompiledFunction : public api::Program {
 public:
  // `args` are only read (tuning times the program on copies of them).
  CompiledFunction(const CompileRequest& request, const IValueList& args);

  std::vector<api::Value> run(const std::vector<api::Value>& args, api::RunInfo* info) const override;
  api::TimedRuns runTimed(const std::vector<api::Value>& args, int repetitions) const override;
  api::CheckResult check(const std::vector<api::Value>& args, const std::vector<api::Value>& outputs) const override;
  const api::ProgramInfo& info() const override { return info_; }

  // run() for arguments already known to have the compiled signature.
  std::vector<api::Value> runChecked(const std::vector<api::Value>& args, api::RunInfo* info) const;

 private:
  void requireSignature(const std::vector<api::Value>& args) const;
  IValueList runOnce(const IValueList& inputs, RunStats* stats) const;
  // Per argument: whether a run can change it (it is written back, or the
  // graph that runs is imperative and may write any).
  std::vector<bool> argumentsRunsMayWrite(size_t count) const;
  void returnWrittenArguments(const IValueList& inputs, IValueList& outputs) const;
  // `originals` are the arguments as they were before the run; the
  // reference interpreter may write into them.
  api::CheckResult compareWithReference(const IValueList& originals, const IValueList& outputs) const;

  api::Options options_;
  std::string signature_;
  PipelineResult result_;
  std::unique_ptr<Executable> executable_;
  api::ProgramInfo info_;
};

// A compact key of the arguments' types (kinds, dtypes, shapes, list
// lengths and element types): equal keys, equal compiled programs.
std::string argumentSignature(const std::vector<api::Value>& args);

}  // namespace stitch
