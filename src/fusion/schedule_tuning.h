// Schedule tuning by a cost model: enumerates the schedules legal for every
// root of a group (with several roots, first intersecting the block counts
// each root allows) and orders them by estimated time on `threads` cores.
// `stitch run --tune` measures the candidates instead (driver/tuner.h).
#pragma once
#include <vector>

#include "fusion/schedule.h"
#include "ir/graph.h"

namespace stitch {

struct TuningOptions {
  int threads = 2;
};

// Estimated cost (arbitrary units, lower is better) of running the group
// under `schedule`; +inf when the schedule is illegal for it.
double scheduleCost(const std::vector<const Node*>& nodes, const std::vector<const Value*>& roots,
                    const Schedule& schedule, const TuningOptions& options);

// The legal schedules, cheapest first; never empty ((0, 1, Row) is legal).
std::vector<Schedule> rankSchedules(const std::vector<const Node*>& nodes, const std::vector<const Value*>& roots,
                                    const TuningOptions& options);

}  // namespace stitch
