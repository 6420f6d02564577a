// How the command reads an api::Tensor: its elements in row-major order,
// whatever its strides (a result may be a view of an argument, an .npz
// input may be in Fortran order; both read as numpy shows them), and its
// shape as text.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "stitch/stitch.h"

namespace stitch::cli {

bool isFloating(api::DType dtype);

// "[2, 3]", as the compiler prints a shape.
std::string shapeText(const std::vector<int64_t>& sizes);

// Calls visit(pointer to the element) for every element, row-major.
template <typename Visit>
void forEachElement(const api::Tensor& t, Visit visit) {
  int64_t n = t.numel();
  if (n == 0) return;
  auto* base = static_cast<const char*>(t.data);
  int64_t esize = (int64_t)api::dtypeSize(t.dtype);
  size_t rank = t.sizes.size();
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;  // in elements
  for (int64_t i = 0; i < n; ++i) {
    visit(base + offset * esize);
    for (size_t d = rank; d-- > 0;) {
      offset += t.strides[d];
      if (++index[d] < t.sizes[d]) break;
      offset -= t.strides[d] * t.sizes[d];
      index[d] = 0;
    }
  }
}

// One element's value, converted.
double elementAsDouble(api::DType dtype, const void* element);
int64_t elementAsInt(api::DType dtype, const void* element);

// The elements' bytes, row-major (what an .npy file holds).
std::string rowMajorBytes(const api::Tensor& t);

}  // namespace stitch::cli
