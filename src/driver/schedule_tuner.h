// `stitch run --tune`: picks each fused group's schedule by measuring the
// program on its real inputs instead of trusting the cost model. One group
// at a time (the others keep their current choice), every candidate the
// fusion stage listed for it (cheapest by the cost model first, at most
// maxCandidates) is compiled and timed; the fastest stays. The choice is
// stored in the kernel cache folder under tune/, keyed by the program, the
// entry function, the input types, the thread count and the groups, so a
// second `--tune` run of the same program reuses it without measuring.
#pragma once
#include <cstddef>
#include <ostream>
#include <string>

#include "driver/pipeline.h"
#include "interp/ivalue.h"

namespace stitch {

struct TuneOptions {
  int threads = 0;              // as for the run (0: OpenMP's default)
  int runs = 5;                 // timed runs per candidate (median), after one warm-up
  size_t maxCandidates = 8;     // per group
  std::string programKey;       // source text, function, input types: what the choice is for
  std::ostream* progress = nullptr;  // a progress bar (stderr); null: quiet
};

struct TuneReport {
  size_t groupsTuned = 0;       // groups with more than one candidate
  size_t candidatesMeasured = 0;
  bool fromCache = false;
  std::string cachePath;
};

// Updates result.fusion's schedules and rebuilds result.code from them.
TuneReport tuneSchedules(PipelineResult& result, const IValueList& inputs, const TuneOptions& options);

}  // namespace stitch
