#include "fusion/schedule.h"

#include <algorithm>

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
  if (!ranged()) return n / sword;
  // The most rows any block needs: a whole block's range, or the piece.
  const int64_t rows = splitDim < (int)shape.size() ? shape[splitDim] : 0;
  return rows == 0 ? 0 : n / rows * std::min(extent, rows);
}

double Partition::meanBlockElements(const std::vector<int64_t>& shape) const {
  double n = 1;
  for (int64_t d : shape) n *= (double)d;
  return splitDim == kWhole || sword <= 1 ? n : n / (double)sword;
}

std::string partitionStr(const Partition& p) {
  // A Column root: every block holds a partial result of the whole value.
  if (p.splitDim == kWhole && p.type == SchedType::Column) return "(partial, " + std::to_string(p.sword) + ", Column)";
  if (p.splitDim == kWhole || p.sword <= 1) return "whole";
  // A cat piece: "rows [4200b-6400, 4200b-2200)" for block b.
  std::string rows;
  auto at = [&](int64_t shift) {
    int64_t c = shift - p.offset;
    std::string b = std::to_string(p.extent) + "b";
    return c == 0 ? b : b + (c < 0 ? "-" : "+") + std::to_string(c < 0 ? -c : c);
  };
  if (p.ranged()) rows = ", rows [" + at(0) + ", " + at(p.extent) + ")";
  return "(dim " + std::to_string(p.splitDim) + ", " + std::to_string(p.sword) + rows + ", " + typeName(p.type) + ")";
}

}  // namespace stitch
