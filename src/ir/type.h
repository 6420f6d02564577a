// Static types of IR values. Tensor types may know their dtype and shape or
// not: the frontend emits shape-free types, shape inference specializes them
// on the inputs. A dimension of -1 is unknown (data-dependent).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace stitch {

enum class TypeKind : uint8_t {
  Tensor,
  Int,
  Float,
  Bool,
  None,
  Str,
  DTypeT,  // a torch dtype used as a value (torch.float32)
  List,
  Tuple,
};

class Type;
using TypePtr = std::shared_ptr<const Type>;

class Type {
 public:
  static constexpr int64_t kUnknownDim = -1;

  static TypePtr tensor();  // nothing known
  static TypePtr tensor(std::optional<DType> dtype,
                        std::optional<std::vector<int64_t>> shape = std::nullopt);
  static TypePtr intT();
  static TypePtr floatT();
  static TypePtr boolT();
  static TypePtr none();
  static TypePtr strT();
  static TypePtr dtypeT();
  static TypePtr list(TypePtr elem);
  static TypePtr tuple(std::vector<TypePtr> elems);

  TypeKind kind() const { return kind_; }
  bool isTensor() const { return kind_ == TypeKind::Tensor; }
  bool isScalar() const {
    return kind_ == TypeKind::Int || kind_ == TypeKind::Float || kind_ == TypeKind::Bool;
  }
  // Tensor only.
  const std::optional<DType>& dtype() const { return dtype_; }
  const std::optional<std::vector<int64_t>>& shape() const { return shape_; }
  bool hasRank() const { return shape_.has_value(); }
  int64_t rank() const { return shape_ ? (int64_t)shape_->size() : -1; }
  bool fullyKnown() const;  // dtype and every dim known
  // List / Tuple only.
  const TypePtr& elem() const { return elems_.at(0); }
  const std::vector<TypePtr>& elems() const { return elems_; }

  // IR spelling: Tensor, f32[*], f32[800,?,3], Tensor[2,3], int, float, bool,
  // None, str, dtype, List[T], Tuple[T, U].
  std::string str() const;
  bool operator==(const Type& other) const;
  bool operator!=(const Type& other) const { return !(*this == other); }

 private:
  explicit Type(TypeKind kind) : kind_(kind) {}
  TypeKind kind_;
  std::optional<DType> dtype_;
  std::optional<std::vector<int64_t>> shape_;
  std::vector<TypePtr> elems_;
};

// Applies f to every tensor type inside t (through lists and tuples);
// other types stay as they are.
TypePtr mapTensorTypes(const TypePtr& t, const std::function<TypePtr(const TypePtr&)>& f);

// Parses the IR spelling back; nullptr on a malformed string.
TypePtr parseType(const std::string& text);

// The least specific type covering both (used to merge loop-carried and
// branch types): differing dims become unknown, differing ranks unknown rank.
// nullptr when the kinds differ.
TypePtr joinTypes(const TypePtr& a, const TypePtr& b);

}  // namespace stitch
