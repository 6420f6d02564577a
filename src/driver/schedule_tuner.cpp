#include "driver/schedule_tuner.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/c_renderer.h"
#include "codegen/cache_entry.h"
#include "codegen/hash128.h"
#include "driver/timed_run.h"
#include "runtime/code_plan.h"
#include "runtime/executable.h"

namespace stitch {

namespace {

CodePlan codeFor(const PipelineResult& result) {
  CodePlan code;
  code.kernels = planProgramKernels(*result.graph, result.functionalFallback.empty(), &result.fusion);
  code.uops = linearizeKernels(code.kernels);
  code.source = renderProgramC(code.kernels, code.uops);
  return code;
}

double medianRunMs(const PipelineResult& result, const IValueList& inputs, const TuneOptions& options) {
  ExecutableOptions exeOptions;
  exeOptions.threads = options.threads;
  exeOptions.pureGraph = result.functionalFallback.empty();
  std::unique_ptr<Executable> exe = Executable::build(*result.graph, codeFor(result), exeOptions);
  TimedRun run = runTimed([&](const IValueList& fresh) { return exe->run(fresh); }, inputs,
                          std::max(options.runs, 1), result.writeBack);
  return summarizeTimes(run.timesMs).medianMs;
}

const char* typeName(SchedType t) { return t == SchedType::Row ? "Row" : "Column"; }

std::string choiceText(const FusionPlan& plan) {
  std::ostringstream o;
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    const Schedule& s = plan.groups[g].schedule;
    o << "g" << g << " " << s.splitDim << " " << s.sword << " " << typeName(s.type) << "\n";
  }
  return o.str();
}

// Applies a stored choice; false (and nothing changed) unless every line
// names a group and one of its candidates.
bool applyChoice(const std::string& text, FusionPlan& plan) {
  std::vector<Schedule> chosen;
  std::istringstream in(text);
  std::string name, type;
  Schedule s;
  while (in >> name >> s.splitDim >> s.sword >> type) {
    if (name != "g" + std::to_string(chosen.size()) || (type != "Row" && type != "Column")) return false;
    s.type = type == "Row" ? SchedType::Row : SchedType::Column;
    chosen.push_back(s);
  }
  if (chosen.size() != plan.groups.size()) return false;
  for (size_t g = 0; g < chosen.size(); ++g) {
    const auto& c = plan.groups[g].candidates;
    if (chosen[g] != plan.groups[g].schedule && std::find(c.begin(), c.end(), chosen[g]) == c.end()) return false;
  }
  for (size_t g = 0; g < chosen.size(); ++g) plan.groups[g].schedule = chosen[g];
  return true;
}

class ProgressBar {
 public:
  ProgressBar(std::ostream* out, size_t total) : out_(out), total_(std::max<size_t>(total, 1)) {}
  void step(size_t done, const std::string& what) {
    if (!out_) return;
    constexpr size_t kWidth = 30;
    size_t filled = done * kWidth / total_;
    *out_ << "\rtuning [" << std::string(filled, '#') << std::string(kWidth - filled, '.') << "] " << done << "/"
          << total_ << " " << what << "\x1b[K" << std::flush;
  }
  void finish() {
    if (out_) *out_ << "\n" << std::flush;
  }

 private:
  std::ostream* out_;
  size_t total_;
};

}  // namespace

TuneReport tuneSchedules(PipelineResult& result, const IValueList& inputs, const TuneOptions& options) {
  TuneReport report;
  FusionPlan& plan = result.fusion;
  for (const FusedGroup& g : plan.groups) report.groupsTuned += g.candidates.size() > 1;
  if (report.groupsTuned == 0) return report;

  std::string key = options.programKey + "\nthreads " + std::to_string(options.threads) + "\n" +
                    printFusionPlan(plan);
  std::string dir = kernelCacheDirectory() + "/tune";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  report.cachePath = dir + "/" + hash128(key).hex() + ".txt";
  if (std::ifstream stored(report.cachePath); stored) {
    std::stringstream text;
    text << stored.rdbuf();
    if (applyChoice(text.str(), plan)) {
      report.fromCache = true;
      result.code = codeFor(result);
      return report;
    }
  }

  size_t total = 0;
  for (const FusedGroup& g : plan.groups)
    if (g.candidates.size() > 1) total += std::min(g.candidates.size(), options.maxCandidates);
  ProgressBar bar(options.progress, total);
  for (size_t gi = 0; gi < plan.groups.size(); ++gi) {
    FusedGroup& g = plan.groups[gi];
    if (g.candidates.size() <= 1) continue;
    Schedule best = g.schedule;
    double bestMs = -1;
    size_t count = std::min(g.candidates.size(), options.maxCandidates);
    for (size_t c = 0; c < count; ++c) {
      g.schedule = g.candidates[c];
      bar.step(report.candidatesMeasured, "g" + std::to_string(gi) + " " + scheduleStr(g.schedule));
      double ms = medianRunMs(result, inputs, options);
      ++report.candidatesMeasured;
      if (bestMs < 0 || ms < bestMs) bestMs = ms, best = g.schedule;
    }
    g.schedule = best;
  }
  bar.step(report.candidatesMeasured, "done");
  bar.finish();
  // A failed write only costs the next run its measurements.
  writeFileAtomically(report.cachePath, choiceText(plan));
  result.code = codeFor(result);
  return report;
}

}  // namespace stitch
