// Work inflation check (`stitch run --work`, api::Options::estimateWork):
// for each graph-defined kernel, the value operations one call executes
// (uops/uop_work.h) next to the same count for each of its ops compiled as a
// kernel of its own (linearized as the program was), summed. Fusion saves
// stores and loads; it must not make an op's value be recomputed per
// element of a loop the value does not depend on (work growing with a
// dimension instead of by a constant).
// Library kernels (copies, contractions) do each op's own work: both
// counts are their output elements.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/code_plan.h"

namespace stitch {

struct KernelWorkEstimate {
  std::string kernel;  // "k0", ...
  std::string kind;    // kernelKindName
  int64_t work = 0;    // the kernel's value operations per call
  int64_t opWork = 0;  // the same for its ops, each compiled alone
};

std::vector<KernelWorkEstimate> estimateWork(const CodePlan& code);

}  // namespace stitch
