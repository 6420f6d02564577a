#include "api/value_bridge.h"

#include "common/error.h"

namespace stitch {

DType toInternal(api::DType dtype) {
  switch (dtype) {
    case api::DType::f32: return DType::f32;
    case api::DType::f64: return DType::f64;
    case api::DType::i32: return DType::i32;
    case api::DType::i64: return DType::i64;
    case api::DType::b8: return DType::b8;
  }
  STITCH_ASSERT(false, "unknown api dtype");
}

api::DType toPublic(DType dtype) {
  switch (dtype) {
    case DType::f32: return api::DType::f32;
    case DType::f64: return api::DType::f64;
    case DType::i32: return api::DType::i32;
    case DType::i64: return api::DType::i64;
    case DType::b8: return api::DType::b8;
  }
  STITCH_ASSERT(false, "unknown dtype");
}

namespace {

// The caller's memory as a Storage spanning every element the strides
// reach (negative strides reach below `data`), and the offset of element
// [0, ..., 0] in it.
Tensor borrow(const api::Tensor& t) {
  if (t.sizes.size() != t.strides.size())
    throw UserError(errorMessage("a tensor argument has ", t.sizes.size(), " sizes but ", t.strides.size(),
                                 " strides"));
  DType dtype = toInternal(t.dtype);
  size_t esize = dtypeSize(dtype);
  int64_t lo = 0, hi = 0;
  bool empty = false;
  for (size_t d = 0; d < t.sizes.size(); ++d) {
    if (t.sizes[d] < 0) throw UserError(errorMessage("a tensor argument has a negative size ", t.sizes[d]));
    empty |= t.sizes[d] == 0;
    int64_t span = (t.sizes[d] - 1) * t.strides[d];
    (span < 0 ? lo : hi) += span;
  }
  if (empty) return Tensor::empty(t.sizes, dtype);
  if (!t.data) throw UserError("a tensor argument has no memory (a type-only tensor can only be dumped)");
  auto* base = static_cast<uint8_t*>(t.data) + lo * (int64_t)esize;
  size_t nbytes = (size_t)(hi - lo + 1) * esize;
  std::shared_ptr<const void> owner = t.owner ? t.owner : std::make_shared<int>(0);
  auto storage = std::make_shared<Storage>(base, nbytes, std::move(owner));
  Tensor flat = Tensor::onStorage(storage, {hi - lo + 1}, dtype);
  return flat.asStrided(t.sizes, t.strides, -lo);
}

std::vector<api::Value> toPublicValues(const IValueList& items) {
  std::vector<api::Value> out;
  out.reserve(items.size());
  for (const IValue& v : items) out.push_back(toPublic(v));
  return out;
}

}  // namespace

IValueList toIValues(const std::vector<api::Value>& values) {
  IValueList out;
  out.reserve(values.size());
  for (const api::Value& v : values) out.push_back(toIValue(v));
  return out;
}

IValue toIValue(const api::Value& value) {
  switch (value.kind()) {
    case api::Value::Kind::None: return IValue();
    case api::Value::Kind::Bool: return IValue(value.toBool());
    case api::Value::Kind::Int: return IValue(value.toInt());
    case api::Value::Kind::Float: return IValue(value.toDouble());
    case api::Value::Kind::Tensor: return IValue(borrow(value.tensor()));
    case api::Value::Kind::List: return IValue::list(toIValues(value.items()));
    case api::Value::Kind::Tuple: return IValue::tuple(toIValues(value.items()));
  }
  STITCH_ASSERT(false, "unknown api value kind");
}

api::Value toPublic(const IValue& value) {
  if (value.isNone()) return api::Value();
  if (value.isBool()) return api::Value(value.toBool());
  if (value.isInt()) return api::Value(value.toInt());
  if (value.isDouble()) return api::Value(value.toDouble());
  if (value.isList()) return api::Value::list(toPublicValues(value.toList()));
  if (value.isTuple()) return api::Value::tuple(toPublicValues(value.toList()));
  if (!value.isTensor())
    throw UserError(errorMessage("the function returns a ", value.str(), ", which is not a tensor, scalar, "
                                 "list or tuple"));
  const Tensor& t = value.toTensor();
  api::Tensor out;
  out.dtype = toPublic(t.dtype());
  out.sizes = t.sizes();
  out.strides = t.strides();
  out.data = t.rawData();
  out.owner = std::shared_ptr<const void>(t.storage(), t.storage()->data());
  return out;
}

TypePtr typeOf(const api::Value& value) {
  switch (value.kind()) {
    case api::Value::Kind::None: return Type::none();
    case api::Value::Kind::Bool: return Type::boolT();
    case api::Value::Kind::Int: return Type::intT();
    case api::Value::Kind::Float: return Type::floatT();
    case api::Value::Kind::Tensor:
      return Type::tensor(toInternal(value.tensor().dtype), value.tensor().sizes);
    case api::Value::Kind::Tuple: {
      std::vector<TypePtr> elems;
      for (const api::Value& e : value.items()) elems.push_back(typeOf(e));
      return Type::tuple(std::move(elems));
    }
    case api::Value::Kind::List: {
      TypePtr elem;
      for (const api::Value& e : value.items()) {
        TypePtr t = typeOf(e);
        TypePtr joined = elem ? joinTypes(elem, t) : t;
        if (!joined)
          throw UserError(errorMessage("a list argument mixes ", elem->str(), " and ", t->str()));
        elem = joined;
      }
      return Type::list(elem ? elem : Type::tensor());
    }
  }
  STITCH_ASSERT(false, "unknown api value kind");
}

}  // namespace stitch
