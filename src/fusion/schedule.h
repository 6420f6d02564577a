// Schedules (FusionStitching): how a fused group's work is cut into blocks.
// A schedule lives on the output shape of the group's root:
//
//   (split_dim, sword, Row|Column)
//   split_dim  the root output dim cut into blocks
//   sword      into how many blocks (divides that dim's size)
//   type       for a reduction: Row = blocks cut across the reduced dim (each
//              block finishes whole reductions), Column = blocks cut along it
//              (each block accumulates part of every reduction)
//
// A Column schedule's split_dim names the reduced dim of the root
// reduction's input (the root's output often lacks it: a full sum is 0-d);
// the root's own partition then prints as `(partial, sword, Column)`.
//
// (0, 1, Row) is always legal: one block does everything.
//
// A schedule is checked by propagating it backwards from the root to every
// operand, one rule per op kind (schedule_propagation.h); it is legal for a
// group when every op of the group accepts what its consumers ask of it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"

namespace stitch {

enum class SchedType : uint8_t { Row, Column };

struct Schedule {
  int splitDim = 0;
  int64_t sword = 1;
  SchedType type = SchedType::Row;

  bool operator==(const Schedule& o) const {
    return splitDim == o.splitDim && sword == o.sword && type == o.type;
  }
};

// "(split_dim=0, sword=8, Row)".
std::string scheduleStr(const Schedule& s);

// How much of one value a block needs under a schedule: the value's dim
// `splitDim` cut into `sword` parts (the block needs one), or the whole
// value (splitDim == kWhole: every block reads all of it).
//
// A piece of a `cat` along the split dim is not cut evenly: block b needs
// the rows [b * extent - offset, (b + 1) * extent - offset) of it, clipped
// to the piece (some blocks none of it). `extent` 0 is the even cut.
constexpr int kWhole = -1;
struct Partition {
  int splitDim = kWhole;
  int64_t sword = 1;
  SchedType type = SchedType::Row;
  int64_t extent = 0;
  int64_t offset = 0;

  bool ranged() const { return extent > 0; }
  bool operator==(const Partition& o) const {
    return splitDim == o.splitDim && sword == o.sword && type == o.type && extent == o.extent &&
           offset == o.offset;
  }
  // Elements of a value of this shape one block needs (the most any block
  // needs), and their mean over the blocks: the same but for a cat piece,
  // whose rows fall to a few blocks (the pieces of one cat add up to an
  // even part of it).
  int64_t blockElements(const std::vector<int64_t>& shape) const;
  double meanBlockElements(const std::vector<int64_t>& shape) const;
};

std::string partitionStr(const Partition& p);

}  // namespace stitch
