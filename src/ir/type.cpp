#include "ir/type.h"

#include <cctype>

#include "common/error.h"

namespace stitch {

// Types are immutable, so the argument-free ones are shared singletons.
TypePtr Type::tensor() {
  static const TypePtr t(new Type(TypeKind::Tensor));
  return t;
}

TypePtr Type::tensor(std::optional<DType> dtype, std::optional<std::vector<int64_t>> shape) {
  if (!dtype && !shape) return tensor();
  auto* t = new Type(TypeKind::Tensor);
  t->dtype_ = dtype;
  t->shape_ = std::move(shape);
  return TypePtr(t);
}

#define STITCH_SINGLETON_TYPE(fn, kind)        \
  TypePtr Type::fn() {                         \
    static const TypePtr t(new Type(kind));    \
    return t;                                  \
  }
STITCH_SINGLETON_TYPE(intT, TypeKind::Int)
STITCH_SINGLETON_TYPE(floatT, TypeKind::Float)
STITCH_SINGLETON_TYPE(boolT, TypeKind::Bool)
STITCH_SINGLETON_TYPE(none, TypeKind::None)
STITCH_SINGLETON_TYPE(strT, TypeKind::Str)
STITCH_SINGLETON_TYPE(dtypeT, TypeKind::DTypeT)
#undef STITCH_SINGLETON_TYPE

TypePtr Type::list(TypePtr elem) {
  STITCH_ASSERT(elem, "list of a null type");
  auto* t = new Type(TypeKind::List);
  t->elems_.push_back(std::move(elem));
  return TypePtr(t);
}

TypePtr Type::tuple(std::vector<TypePtr> elems) {
  for (const TypePtr& e : elems) STITCH_ASSERT(e, "tuple of a null type");
  auto* t = new Type(TypeKind::Tuple);
  t->elems_ = std::move(elems);
  return TypePtr(t);
}

bool Type::fullyKnown() const {
  if (kind_ != TypeKind::Tensor) return true;
  if (!dtype_ || !shape_) return false;
  for (int64_t d : *shape_)
    if (d < 0) return false;
  return true;
}

static std::string shapeStr(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += shape[i] < 0 ? "?" : std::to_string(shape[i]);
  }
  return s + "]";
}

std::string Type::str() const {
  switch (kind_) {
    case TypeKind::Tensor: {
      if (!dtype_ && !shape_) return "Tensor";
      std::string base = dtype_ ? dtypeName(*dtype_) : "Tensor";
      return base + (shape_ ? shapeStr(*shape_) : "[*]");
    }
    case TypeKind::Int: return "int";
    case TypeKind::Float: return "float";
    case TypeKind::Bool: return "bool";
    case TypeKind::None: return "None";
    case TypeKind::Str: return "str";
    case TypeKind::DTypeT: return "dtype";
    case TypeKind::List: return "List[" + elem()->str() + "]";
    case TypeKind::Tuple: {
      std::string s = "Tuple[";
      for (size_t i = 0; i < elems_.size(); ++i) {
        if (i) s += ", ";
        s += elems_[i]->str();
      }
      return s + "]";
    }
  }
  STITCH_ASSERT(false, "bad type kind");
  return "";
}

bool Type::operator==(const Type& o) const {
  if (this == &o) return true;
  if (kind_ != o.kind_ || dtype_ != o.dtype_ || shape_ != o.shape_) return false;
  if (elems_.size() != o.elems_.size()) return false;
  for (size_t i = 0; i < elems_.size(); ++i)
    if (*elems_[i] != *o.elems_[i]) return false;
  return true;
}

// ---- parsing ---------------------------------------------------------------

namespace {

class TypeParser {
 public:
  explicit TypeParser(const std::string& s) : s_(s) {}

  TypePtr parseAll() {
    TypePtr t = parse();
    skipSpace();
    return t && pos_ == s_.size() ? t : nullptr;
  }

 private:
  void skipSpace() {
    while (pos_ < s_.size() && std::isspace((unsigned char)s_[pos_])) ++pos_;
  }
  bool eat(char c) {
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string word() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum((unsigned char)s_[pos_]) || s_[pos_] == '_')) ++pos_;
    return s_.substr(start, pos_ - start);
  }

  TypePtr parse() {
    std::string w = word();
    if (w == "int") return Type::intT();
    if (w == "float") return Type::floatT();
    if (w == "bool") return boolOrTensor();
    if (w == "None") return Type::none();
    if (w == "str") return Type::strT();
    if (w == "dtype") return Type::dtypeT();
    if (w == "List") return parseList();
    if (w == "Tuple") return parseTuple();
    if (w == "Tensor") return parseTensorDims(std::nullopt);
    if (auto dt = dtypeFromName(w)) return parseTensorDims(dt);
    return nullptr;
  }

  // "bool" alone is the scalar type; "bool[2,3]" a tensor of bools.
  TypePtr boolOrTensor() {
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == '[') return parseTensorDims(DType::b8);
    return Type::boolT();
  }

  TypePtr parseTensorDims(std::optional<DType> dtype) {
    if (!eat('[')) return dtype ? nullptr : Type::tensor();
    if (eat('*')) return eat(']') ? Type::tensor(dtype, std::nullopt) : nullptr;
    std::vector<int64_t> dims;
    if (eat(']')) return Type::tensor(dtype, dims);
    do {
      if (eat('?')) {
        dims.push_back(Type::kUnknownDim);
        continue;
      }
      std::string n = word();
      if (n.empty()) return nullptr;
      for (char c : n)
        if (!std::isdigit((unsigned char)c)) return nullptr;
      dims.push_back(std::stoll(n));
    } while (eat(','));
    return eat(']') ? Type::tensor(dtype, dims) : nullptr;
  }

  TypePtr parseList() {
    if (!eat('[')) return nullptr;
    TypePtr elem = parse();
    if (!elem || !eat(']')) return nullptr;
    return Type::list(elem);
  }

  TypePtr parseTuple() {
    if (!eat('[')) return nullptr;
    std::vector<TypePtr> elems;
    if (eat(']')) return Type::tuple(elems);
    do {
      TypePtr e = parse();
      if (!e) return nullptr;
      elems.push_back(e);
    } while (eat(','));
    return eat(']') ? Type::tuple(elems) : nullptr;
  }

  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

TypePtr parseType(const std::string& text) { return TypeParser(text).parseAll(); }

// ---- join ------------------------------------------------------------------

static TypePtr joinTensors(const TypePtr& a, const TypePtr& b) {
  std::optional<DType> dtype = a->dtype() == b->dtype() ? a->dtype() : std::nullopt;
  std::optional<std::vector<int64_t>> shape;
  if (a->shape() && b->shape() && a->rank() == b->rank()) {
    shape = *a->shape();
    for (size_t i = 0; i < shape->size(); ++i)
      if ((*shape)[i] != (*b->shape())[i]) (*shape)[i] = Type::kUnknownDim;
  }
  return Type::tensor(dtype, shape);
}

TypePtr mapTensorTypes(const TypePtr& t, const std::function<TypePtr(const TypePtr&)>& f) {
  switch (t->kind()) {
    case TypeKind::Tensor:
      return f(t);
    case TypeKind::List:
      return Type::list(mapTensorTypes(t->elem(), f));
    case TypeKind::Tuple: {
      std::vector<TypePtr> elems;
      for (const TypePtr& e : t->elems()) elems.push_back(mapTensorTypes(e, f));
      return Type::tuple(elems);
    }
    case TypeKind::Int:
    case TypeKind::Float:
    case TypeKind::Bool:
    case TypeKind::None:
    case TypeKind::Str:
    case TypeKind::DTypeT:
      return t;
  }
  return t;
}

TypePtr joinTypes(const TypePtr& a, const TypePtr& b) {
  if (!a || !b || a->kind() != b->kind()) return nullptr;
  if (a == b || *a == *b) return a;
  switch (a->kind()) {
    case TypeKind::Tensor: return joinTensors(a, b);
    case TypeKind::List: {
      TypePtr e = joinTypes(a->elem(), b->elem());
      return e ? Type::list(e) : nullptr;
    }
    case TypeKind::Tuple: {
      if (a->elems().size() != b->elems().size()) return nullptr;
      std::vector<TypePtr> elems;
      for (size_t i = 0; i < a->elems().size(); ++i) {
        TypePtr e = joinTypes(a->elems()[i], b->elems()[i]);
        if (!e) return nullptr;
        elems.push_back(e);
      }
      return Type::tuple(elems);
    }
    case TypeKind::Int:
    case TypeKind::Float:
    case TypeKind::Bool:
    case TypeKind::None:
    case TypeKind::Str:
    case TypeKind::DTypeT: return a;
  }
  return nullptr;
}

}  // namespace stitch
