#include "driver/input_binding.h"

#include <map>
#include <optional>
#include <set>

#include "driver/random_inputs.h"

namespace stitch {

namespace {

std::string parameterList(const FunctionSignature& fn) {
  std::string s;
  for (size_t i = 0; i < fn.argNames.size(); ++i) s += (i ? ", " : "") + fn.argNames[i];
  return s.empty() ? "no parameters" : "parameters " + s;
}

const char* literalKindName(LiteralKind k) {
  switch (k) {
    case LiteralKind::Int: return "an int";
    case LiteralKind::Float: return "a float";
    case LiteralKind::Bool: return "a bool";
    case LiteralKind::Invalid: return "not a literal";
  }
  return "";
}

bool literalIsTrue(const std::string& text) { return text == "true" || text == "True"; }

// A bound input: its value (None while only types are wanted for a random
// tensor), its concrete type and, for a list, its elements' types.
struct Bound {
  IValue value;
  TypePtr type;
  std::optional<std::vector<TypePtr>> elements = std::nullopt;
};

Bound known(IValue v) {
  TypePtr t = typeOfValue(v);
  return {std::move(v), std::move(t)};
}

std::vector<TypePtr> elementTypes(const IValue& list) {
  std::vector<TypePtr> types;
  for (const IValue& e : list.toList()) types.push_back(typeOfValue(e));
  return types;
}

class Binder {
 public:
  // typesOnly: do not allocate random tensors, only work out their types.
  Binder(const FunctionSignature& fn, const InputSources& sources, bool typesOnly)
      : fn_(fn), sources_(sources), random_(sources.seed), typesOnly_(typesOnly) {
    indexSpecs();
    for (const NamedTensor& a : sources.arrays) arrays_[a.name] = &a.tensor;
  }

  // One entry per parameter; nullopt where nothing was given.
  std::vector<std::optional<Bound>> bindAll() {
    std::vector<std::optional<Bound>> values;
    for (size_t i = 0; i < fn_.argNames.size(); ++i)
      values.push_back(bindParameter(fn_.argNames[i], fn_.argTypes.at(i)));
    checkAllArraysUsed();
    return values;
  }

 private:
  void indexSpecs() {
    std::set<std::string> params(fn_.argNames.begin(), fn_.argNames.end());
    for (const NamedInputSpec& s : sources_.specs) {
      if (!params.count(s.name))
        throw UserError(errorMessage("unknown input '", s.name, "' (function ", fn_.name,
                                     " has ", parameterList(fn_), ")"));
      if (!specs_.emplace(s.name, &s.spec).second)
        throw UserError(errorMessage("input '", s.name, "' is given twice"));
    }
  }

  std::optional<Bound> bindParameter(const std::string& name, const TypePtr& type) {
    auto spec = specs_.find(name);
    std::optional<IValue> fromFile = fromArrays(name, type);
    if (spec != specs_.end() && fromFile)
      throw UserError(errorMessage("input '", name, "' is given both by --input and in ",
                                   sources_.arraysFile));
    if (spec != specs_.end()) return fromSpec(name, *spec->second, type);
    if (!fromFile) return std::nullopt;
    // An empty list's element type comes from the annotation.
    bool emptyList = fromFile->isList() && fromFile->toList().empty();
    Bound b{*fromFile, emptyList ? type : typeOfValue(*fromFile)};
    if (fromFile->isList()) b.elements = elementTypes(*fromFile);
    return b;
  }

  [[noreturn]] void mismatch(const std::string& what, const TypePtr& type,
                             const std::string& got) const {
    throw UserError(errorMessage("input '", what, "' of type ", type->str(), " cannot be ", got));
  }

  Bound fromSpec(const std::string& what, const InputSpec& spec, const TypePtr& type) {
    switch (type->kind()) {
      case TypeKind::Tensor:
        if (spec.kind != InputSpec::Kind::RandomTensor)
          mismatch(what, type, errorMessage("'", spec.str(), "' (give a tensor spec like f32[2,3])"));
        if (typesOnly_) return {IValue(), Type::tensor(spec.dtype, spec.shape)};
        return known(IValue(random_.tensor(spec.dtype, spec.shape)));
      case TypeKind::Int:
      case TypeKind::Float:
      case TypeKind::Bool:
        return known(scalarFromLiteral(what, spec, type));
      case TypeKind::List:
        return listFromSpec(what, spec, type);
      case TypeKind::Tuple:
        return tupleFromSpec(what, spec, type);
      case TypeKind::None:
      case TypeKind::Str:
      case TypeKind::DTypeT:
        break;
    }
    throw UserError(errorMessage("input '", what, "' has type ", type->str(),
                                 ", which cannot be given on the command line"));
  }

  IValue scalarFromLiteral(const std::string& what, const InputSpec& spec, const TypePtr& type) {
    if (spec.kind != InputSpec::Kind::Literal)
      mismatch(what, type, errorMessage("'", spec.str(), "' (give a scalar literal such as ",
                                        type->kind() == TypeKind::Bool ? "true" : "2", ")"));
    LiteralKind kind = classifyLiteral(spec.literal);
    TypeKind want = type->kind();
    if (want == TypeKind::Int && kind == LiteralKind::Int) return IValue((int64_t)std::stoll(spec.literal));
    if (want == TypeKind::Float && (kind == LiteralKind::Int || kind == LiteralKind::Float))
      return IValue(std::stod(spec.literal));
    if (want == TypeKind::Bool && kind == LiteralKind::Bool) return IValue(literalIsTrue(spec.literal));
    mismatch(what, type, errorMessage("'", spec.literal, "', ", literalKindName(kind)));
  }

  Bound listFromSpec(const std::string& what, const InputSpec& spec, const TypePtr& type) {
    if (spec.kind != InputSpec::Kind::List)
      mismatch(what, type, errorMessage("'", spec.str(), "' (give a list like [f32[2],f32[3]])"));
    IValueList elems;
    TypePtr elemType;
    std::vector<TypePtr> elemTypes;
    for (size_t i = 0; i < spec.elems.size(); ++i) {
      Bound e = fromSpec(errorMessage(what, "[", i, "]"), spec.elems[i], type->elem());
      elemType = elemType ? joinTypes(elemType, e.type) : e.type;
      elemTypes.push_back(e.type);
      elems.push_back(std::move(e.value));
    }
    return {IValue::list(std::move(elems)), Type::list(elemType ? elemType : type->elem()),
            std::move(elemTypes)};
  }

  Bound tupleFromSpec(const std::string& what, const InputSpec& spec, const TypePtr& type) {
    if (spec.kind != InputSpec::Kind::List || spec.elems.size() != type->elems().size())
      mismatch(what, type, errorMessage("'", spec.str(), "' (give a list of ", type->elems().size(),
                                        " specs)"));
    IValueList elems;
    std::vector<TypePtr> types;
    for (size_t i = 0; i < spec.elems.size(); ++i) {
      Bound e = fromSpec(errorMessage(what, "[", i, "]"), spec.elems[i], type->elems()[i]);
      types.push_back(e.type);
      elems.push_back(std::move(e.value));
    }
    return {IValue::tuple(std::move(elems)), Type::tuple(std::move(types))};
  }

  const Tensor* takeArray(const std::string& name) {
    auto it = arrays_.find(name);
    if (it == arrays_.end()) return nullptr;
    used_.insert(name);
    return it->second;
  }

  std::optional<IValue> fromArrays(const std::string& name, const TypePtr& type) {
    if (type->kind() == TypeKind::List) return listFromArrays(name, type);
    const Tensor* t = takeArray(name);
    if (!t) return std::nullopt;
    std::string what = errorMessage("'", name, "' in ", sources_.arraysFile);
    if (type->isTensor()) return IValue(*t);
    if (type->isScalar()) return scalarFromArray(what, *t, type);
    throw UserError(errorMessage("input ", what, " cannot be given as an array (parameter type ",
                                 type->str(), ")"));
  }

  std::optional<IValue> listFromArrays(const std::string& name, const TypePtr& type) {
    if (arrays_.count(name))
      throw UserError(errorMessage("input '", name, "' is a ", type->str(), "; store its elements in ",
                                   sources_.arraysFile, " as ", name, "_0, ", name, "_1, ..."));
    IValueList elems;
    for (size_t i = 0;; ++i) {
      std::string member = errorMessage(name, "_", i);
      const Tensor* t = takeArray(member);
      if (!t) break;
      std::string what = errorMessage("'", member, "' in ", sources_.arraysFile);
      if (type->elem()->isTensor())
        elems.push_back(IValue(*t));
      else if (type->elem()->isScalar())
        elems.push_back(scalarFromArray(what, *t, type->elem()));
      else
        throw UserError(errorMessage("input '", name, "' of type ", type->str(),
                                     " cannot be read from an .npz file"));
    }
    if (elems.empty()) return std::nullopt;
    return IValue::list(std::move(elems));
  }

  IValue scalarFromArray(const std::string& what, const Tensor& t, const TypePtr& type) {
    if (t.dim() != 0)
      throw UserError(errorMessage("input ", what, " is for a ", type->str(),
                                   " parameter and must be a 0-dim array, not shape ",
                                   t.shapeStr()));
    bool integral = isIntegral(t.dtype()) || t.dtype() == DType::b8;
    switch (type->kind()) {
      case TypeKind::Float:
        return IValue(t.item());
      case TypeKind::Int:
        if (!integral) break;
        return IValue(t.getInt(0));
      case TypeKind::Bool:
        if (t.dtype() != DType::b8) break;
        return IValue(t.getInt(0) != 0);
      case TypeKind::Tensor:
      case TypeKind::None:
      case TypeKind::Str:
      case TypeKind::DTypeT:
      case TypeKind::List:
      case TypeKind::Tuple:
        break;
    }
    throw UserError(errorMessage("input ", what, " has dtype ", dtypeName(t.dtype()),
                                 ", which does not fit a ", type->str(), " parameter"));
  }

  void checkAllArraysUsed() const {
    for (const auto& [name, tensor] : arrays_)
      if (!used_.count(name))
        throw UserError(errorMessage("unknown input '", name, "' in ", sources_.arraysFile,
                                     " (function ", fn_.name, " has ", parameterList(fn_), ")"));
  }

  const FunctionSignature& fn_;
  const InputSources& sources_;
  InputRandom random_;
  bool typesOnly_;
  std::map<std::string, const InputSpec*> specs_;
  std::map<std::string, const Tensor*> arrays_;
  std::set<std::string> used_;
};

IValue cloneValue(const IValue& v) {
  if (v.isTensor()) return IValue(v.toTensor().clone());
  if (v.isList()) return IValue::list(cloneValues(v.toList()));
  if (v.isTuple()) return IValue::tuple(cloneValues(v.toList()));
  return v;
}

}  // namespace

BoundInputs bindInputs(const FunctionSignature& fn, const InputSources& sources) {
  std::vector<std::optional<Bound>> bound = Binder(fn, sources, false).bindAll();
  BoundInputs result;
  for (size_t i = 0; i < bound.size(); ++i) {
    const std::string& name = fn.argNames[i];
    if (!bound[i])
      throw UserError(errorMessage("missing input '", name, "' (give --input ", name,
                                   "=SPEC or --inputs FILE)"));
    result.types.push_back(bound[i]->type);
    result.listElements.push_back(std::move(bound[i]->elements));
    result.values.push_back(std::move(bound[i]->value));
  }
  return result;
}

std::vector<TypePtr> bindInputTypes(const FunctionSignature& fn, const InputSources& sources) {
  std::vector<std::optional<Bound>> bound = Binder(fn, sources, true).bindAll();
  std::vector<TypePtr> types;
  for (size_t i = 0; i < bound.size(); ++i)
    types.push_back(bound[i] ? bound[i]->type : fn.argTypes.at(i));
  return types;
}

ListInputTypes bindListElementTypes(const FunctionSignature& fn, const InputSources& sources) {
  std::vector<std::optional<Bound>> bound = Binder(fn, sources, true).bindAll();
  ListInputTypes elements;
  for (std::optional<Bound>& b : bound) elements.push_back(b ? std::move(b->elements) : std::nullopt);
  return elements;
}

TypePtr typeOfValue(const IValue& value) {
  if (value.isTensor()) return Type::tensor(value.toTensor().dtype(), value.toTensor().sizes());
  if (value.isBool()) return Type::boolT();
  if (value.isInt()) return Type::intT();
  if (value.isDouble()) return Type::floatT();
  if (value.isNone()) return Type::none();
  if (value.isStr()) return Type::strT();
  if (value.isDType()) return Type::dtypeT();
  if (value.isTuple()) {
    std::vector<TypePtr> elems;
    for (const IValue& e : value.toList()) elems.push_back(typeOfValue(e));
    return Type::tuple(std::move(elems));
  }
  TypePtr elem;
  for (const IValue& e : value.toList()) {
    TypePtr t = typeOfValue(e);
    elem = elem ? joinTypes(elem, t) : t;
  }
  return Type::list(elem ? elem : Type::tensor());
}

IValueList cloneValues(const IValueList& values) {
  IValueList out;
  out.reserve(values.size());
  for (const IValue& v : values) out.push_back(cloneValue(v));
  return out;
}

}  // namespace stitch
