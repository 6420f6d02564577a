// Backward propagation of a schedule through a fused group (FusionStitching
// Table 1): from the root's output partition to every operand, one rule per
// op kind (elementwise, broadcast, reduce, transpose / permute, reshape /
// view, slice / select and their `_rev` Assign forms, batch-dot, ...).
//
//   root %o = div(%e, %s) : f32[64,1000], schedule (0, 8, Row)
//   %e : f32[64,1000] -> (dim 0, 8)    elementwise: same partition
//   %s : f32[64,1]    -> (dim 0, 8)    broadcast along dim 1 only
//   %x : f32[64,1000] -> (dim 0, 8)    through amax / sum over dim 1 (Row)
#pragma once
#include <optional>
#include <unordered_map>
#include <vector>

#include "fusion/schedule.h"
#include "ir/graph.h"

namespace stitch {

// The partition each value needs: every member's output and every tensor
// the group reads from outside.
using PartitionMap = std::unordered_map<const Value*, Partition>;

// The per-op table: what each input of `n` must provide (one entry per
// input; non-tensor inputs get kWhole) when n's output is partitioned as
// `out`; nullopt when n cannot run under `out`.
std::optional<std::vector<Partition>> propagateThrough(const Node& n, const Partition& out);

// Propagates `schedule` on `root` (a member's output) backwards through the
// members (program order). A member whose consumers in the group ask for
// different partitions makes the schedule illegal (nullopt); a tensor read
// from outside the group that is asked differently becomes kWhole.
std::optional<PartitionMap> propagateSchedule(const std::vector<const Node*>& nodes, const Value* root,
                                              const Schedule& schedule);

// Every schedule of a value's shape by itself: each dim of size > 1 with
// each divisor of its size as sword, Row and (where the value is a
// reduction's output) Column; (0, 1, Row) first.
std::vector<Schedule> scheduleSpace(const Value* root);

}  // namespace stitch
