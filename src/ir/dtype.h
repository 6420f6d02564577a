// Element types of tensors, with PyTorch's promotion lattice.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stitch {

enum class DType : uint8_t { b8, i32, i64, f32, f64 };

// "bool", "i32", "i64", "f32", "f64" (the IR's spelling).
const char* dtypeName(DType t);
std::optional<DType> dtypeFromName(std::string_view name);
// torch.float32 / torch.float / torch.int64 / torch.long / torch.bool ...
std::optional<DType> dtypeFromTorchName(std::string_view name);
// "torch.float32" etc., for messages and generated Python.
const char* dtypeTorchName(DType t);
size_t dtypeSize(DType t);
bool isFloating(DType t);
bool isIntegral(DType t);  // b8 excluded

// Category of a Python scalar taking part in promotion with tensors.
enum class ScalarKind : uint8_t { Bool, Int, Float };

// PyTorch's promote_types for two tensor dtypes.
DType promoteTypes(DType a, DType b);

}  // namespace stitch
