#include "fusion/schedule.h"

namespace stitch {

namespace {
const char* typeName(SchedType t) { return t == SchedType::Row ? "Row" : "Column"; }
}  // namespace

std::string scheduleStr(const Schedule& s) {
  return "(split_dim=" + std::to_string(s.splitDim) + ", sword=" + std::to_string(s.sword) + ", " +
         typeName(s.type) + ")";
}

int64_t Partition::blockElements(const std::vector<int64_t>& shape) const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (splitDim == kWhole || sword <= 1) return n;
  return n / sword;
}

std::string partitionStr(const Partition& p) {
  // A Column root: every block holds a partial result of the whole value.
  if (p.splitDim == kWhole && p.type == SchedType::Column) return "(partial, " + std::to_string(p.sword) + ", Column)";
  if (p.splitDim == kWhole || p.sword <= 1) return "whole";
  return "(dim " + std::to_string(p.splitDim) + ", " + std::to_string(p.sword) + ", " + typeName(p.type) + ")";
}

}  // namespace stitch
