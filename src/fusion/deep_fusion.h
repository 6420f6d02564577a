// Deep fusion (FusionStitching's subgraph fusion): producers merge into
// their consumers' groups across layers of the work/span analysis, root side
// first, so every consumer has found its group before its producers are
// considered. A producer's group joins a consumer's group when the schedule
// stays consistent (BlockGroups::tryMerge):
//   1. no consumer of the producer outside the group can reach the group
//      (the give-up set: merging would make a cycle; the position rule of
//      fusion_groups.h refuses these merges, and also those where an
//      outside use would come before the kernel runs),
//   2. some consumer is in the group (only producer -> consumer merges here;
//      unrelated groups are sibling_fusion.h's business),
//   3. the merged group has a legal schedule.
// A producer whose consumers sit in several groups joins the first that
// accepts it (most uses, then earliest kernel) and becomes one of its roots;
// the others read its stored value, so nothing is computed twice. Passes
// repeat until nothing merges.
//
//   %m = amax(%x)  %d = sub(%x, %m)  %e = exp(%d)  %s = sum(%e)  %o = div(%e, %s)
//   layers: {%o} {%s} {%e} {%d} {%m}  ->  one group, root %o
#pragma once
#include "fusion/fusion_groups.h"
#include "fusion/work_span.h"

namespace stitch {

// Returns whether any groups merged.
bool fuseDeep(BlockGroups& groups, const WorkSpan& layers);

}  // namespace stitch
