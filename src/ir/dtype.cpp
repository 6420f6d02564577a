#include "ir/dtype.h"

#include "common/error.h"

namespace stitch {

const char* dtypeName(DType t) {
  switch (t) {
    case DType::b8: return "bool";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::f32: return "f32";
    case DType::f64: return "f64";
  }
  STITCH_ASSERT(false, "bad dtype");
  return "";
}

std::optional<DType> dtypeFromName(std::string_view name) {
  for (DType t : {DType::b8, DType::i32, DType::i64, DType::f32, DType::f64})
    if (name == dtypeName(t)) return t;
  return std::nullopt;
}

std::optional<DType> dtypeFromTorchName(std::string_view name) {
  constexpr std::string_view prefix = "torch.";
  if (name.substr(0, prefix.size()) == prefix) name.remove_prefix(prefix.size());
  struct Alias {
    std::string_view name;
    DType dtype;
  };
  static constexpr Alias aliases[] = {
      {"float32", DType::f32}, {"float", DType::f32}, {"float64", DType::f64},
      {"double", DType::f64},  {"int32", DType::i32}, {"int", DType::i32},
      {"int64", DType::i64},   {"long", DType::i64},  {"bool", DType::b8},
  };
  for (const Alias& a : aliases)
    if (a.name == name) return a.dtype;
  return std::nullopt;
}

const char* dtypeTorchName(DType t) {
  switch (t) {
    case DType::b8: return "torch.bool";
    case DType::i32: return "torch.int32";
    case DType::i64: return "torch.int64";
    case DType::f32: return "torch.float32";
    case DType::f64: return "torch.float64";
  }
  STITCH_ASSERT(false, "bad dtype");
  return "";
}

size_t dtypeSize(DType t) {
  switch (t) {
    case DType::b8: return 1;
    case DType::i32: return 4;
    case DType::i64: return 8;
    case DType::f32: return 4;
    case DType::f64: return 8;
  }
  STITCH_ASSERT(false, "bad dtype");
  return 0;
}

bool isFloating(DType t) { return t == DType::f32 || t == DType::f64; }
bool isIntegral(DType t) { return t == DType::i32 || t == DType::i64; }

// The enum is declared in promotion order (bool < i32 < i64 < f32 < f64), and
// for these five dtypes PyTorch's table is exactly the maximum in that order.
DType promoteTypes(DType a, DType b) { return a < b ? b : a; }

}  // namespace stitch
