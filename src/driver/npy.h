// numpy's .npy format for one array: a magic string, a version, a header
// that is a Python dict literal ({'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }) and the raw little-endian elements.
// Supported element types: <f4 <f8 <i4 <i8 |b1 (f32 f64 i32 i64 bool).
// Fortran-order arrays are read into a C-order copy.
#pragma once
#include <string>

#include "interp/tensor.h"

namespace stitch {

// A v1 header (v2 when the header would not fit), C order.
std::string encodeNpy(const Tensor& tensor);
// `what` names the array in messages ("member 'x' of in.npz").
// Throws UserError on anything malformed or unsupported.
Tensor decodeNpy(const std::string& bytes, const std::string& what);

}  // namespace stitch
