// How an i64 uop moves with a loop's variable: as coef * loop + base +
// offset, base a value defined before the loop opens (-1: none), the same
// in every iteration. Used where a pass asks which slots an index reaches
// across a loop's iterations (codegen/cuda_threads.cpp: the slots a
// block's threads write; codegen/row_prefetch.cpp: the next row's).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "uops/uop.h"

namespace stitch {

struct Affine {
  int64_t coef = 0;
  int base = -1;
  int64_t offset = 0;
  bool operator==(const Affine&) const = default;
};

// Uop `id` in that form for LOOP `loop`; nullopt when it is not (uops are
// in program order, so one defined before the loop is its own base).
std::optional<Affine> affineIn(const std::vector<UOp>& uops, int id, int loop);

}  // namespace stitch
