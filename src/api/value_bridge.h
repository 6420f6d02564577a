// Between the public API's values (include/stitch/stitch.h) and the
// runtime's. Tensors cross without a copy either way: a caller's tensor
// becomes a borrowed Storage that keeps the caller's owner alive, and a
// result's storage becomes the owner of the api::Tensor handed back.
#pragma once
#include <string>
#include <vector>

#include "interp/ivalue.h"
#include "stitch/stitch.h"

namespace stitch {

DType toInternal(api::DType dtype);
api::DType toPublic(DType dtype);

// CompileError for a tensor without memory (Tensor::typeOnly) or with
// sizes and strides of different lengths.
IValue toIValue(const api::Value& value);
IValueList toIValues(const std::vector<api::Value>& values);
api::Value toPublic(const IValue& value);

// The concrete type of a value, as shape inference specializes on it; a
// type-only tensor counts as a tensor of its dtype and sizes.
TypePtr typeOf(const api::Value& value);

}  // namespace stitch
