// numpy's .npy format for one array: a magic string, a version, a header
// that is a Python dict literal ({'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }) and the raw little-endian elements.
// Supported element types: <f4 <f8 <i4 <i8 |b1 (f32 f64 i32 i64 bool).
// A Fortran-order array is read as it lies, its tensor carrying
// column-major strides.
#pragma once
#include <string>

#include "stitch/stitch.h"

namespace stitch::cli {

// A v1 header (v2 when the header would not fit), C order.
std::string encodeNpy(const api::Tensor& tensor);
// `what` names the array in messages ("member 'x' of in.npz").
// Throws a userError on anything malformed or unsupported.
api::Tensor decodeNpy(const std::string& bytes, const std::string& what);

}  // namespace stitch::cli
