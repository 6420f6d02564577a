#include "input_binding.h"

#include <map>
#include <set>

#include "random_inputs.h"
#include "tensor_elements.h"
#include "user_error.h"

namespace stitch::cli {

namespace {

using Kind = api::ParameterType::Kind;

std::string parameterList(const api::Function& fn) {
  std::string s;
  for (const api::Parameter& p : fn.parameters()) s += (s.empty() ? "" : ", ") + p.name;
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

bool isScalar(const api::ParameterType& type) {
  return type.kind == Kind::Int || type.kind == Kind::Float || type.kind == Kind::Bool;
}

class Binder {
 public:
  // typesOnly: do not allocate random tensors, only give their types.
  Binder(const api::Function& fn, const InputSources& sources, bool typesOnly)
      : fn_(fn), sources_(sources), random_(sources.seed), typesOnly_(typesOnly) {
    indexSpecs();
    for (const NamedTensor& a : sources.arrays) arrays_[a.name] = &a.tensor;
  }

  // One entry per parameter; nullopt where nothing was given.
  std::vector<std::optional<api::Value>> bindAll() {
    std::vector<std::optional<api::Value>> values;
    for (const api::Parameter& p : fn_.parameters()) values.push_back(bindParameter(p.name, p.type));
    checkAllArraysUsed();
    return values;
  }

 private:
  void indexSpecs() {
    std::set<std::string> params;
    for (const api::Parameter& p : fn_.parameters()) params.insert(p.name);
    for (const NamedInputSpec& s : sources_.specs) {
      if (!params.count(s.name))
        throw userError("unknown input '", s.name, "' (function ", fn_.name(), " has ", parameterList(fn_), ")");
      if (!specs_.emplace(s.name, &s.spec).second) throw userError("input '", s.name, "' is given twice");
    }
  }

  std::optional<api::Value> bindParameter(const std::string& name, const api::ParameterType& type) {
    auto spec = specs_.find(name);
    std::optional<api::Value> fromFile = fromArrays(name, type);
    if (spec != specs_.end() && fromFile)
      throw userError("input '", name, "' is given both by --input and in ", sources_.arraysFile);
    if (spec != specs_.end()) return fromSpec(name, *spec->second, type);
    return fromFile;
  }

  [[noreturn]] void mismatch(const std::string& what, const api::ParameterType& type, const std::string& got) const {
    throw userError("input '", what, "' of type ", type.text, " cannot be ", got);
  }

  api::Value fromSpec(const std::string& what, const InputSpec& spec, const api::ParameterType& type) {
    switch (type.kind) {
      case Kind::Tensor:
        if (spec.kind != InputSpec::Kind::RandomTensor)
          mismatch(what, type, joined("'", spec.str(), "' (give a tensor spec like f32[2,3])"));
        if (typesOnly_) return api::Tensor::typeOnly(spec.dtype, spec.shape);
        return random_.tensor(spec.dtype, spec.shape);
      case Kind::Int:
      case Kind::Float:
      case Kind::Bool:
        return scalarFromLiteral(what, spec, type);
      case Kind::List:
        return listFromSpec(what, spec, type);
      case Kind::Tuple:
        return tupleFromSpec(what, spec, type);
      case Kind::None:
      case Kind::Str:
      case Kind::DType:
        break;
    }
    throw userError("input '", what, "' has type ", type.text, ", which cannot be given on the command line");
  }

  api::Value scalarFromLiteral(const std::string& what, const InputSpec& spec, const api::ParameterType& type) {
    if (spec.kind != InputSpec::Kind::Literal)
      mismatch(what, type,
               joined("'", spec.str(), "' (give a scalar literal such as ", type.kind == Kind::Bool ? "true" : "2",
                      ")"));
    LiteralKind kind = classifyLiteral(spec.literal);
    if (type.kind == Kind::Int && kind == LiteralKind::Int) return api::Value((int64_t)std::stoll(spec.literal));
    if (type.kind == Kind::Float && (kind == LiteralKind::Int || kind == LiteralKind::Float))
      return api::Value(std::stod(spec.literal));
    if (type.kind == Kind::Bool && kind == LiteralKind::Bool) return api::Value(literalIsTrue(spec.literal));
    mismatch(what, type, joined("'", spec.literal, "', ", literalKindName(kind)));
  }

  api::Value listFromSpec(const std::string& what, const InputSpec& spec, const api::ParameterType& type) {
    if (spec.kind != InputSpec::Kind::List)
      mismatch(what, type, joined("'", spec.str(), "' (give a list like [f32[2],f32[3]])"));
    std::vector<api::Value> elements;
    for (size_t i = 0; i < spec.elems.size(); ++i)
      elements.push_back(fromSpec(joined(what, "[", i, "]"), spec.elems[i], type.elements.at(0)));
    return api::Value::list(std::move(elements));
  }

  api::Value tupleFromSpec(const std::string& what, const InputSpec& spec, const api::ParameterType& type) {
    if (spec.kind != InputSpec::Kind::List || spec.elems.size() != type.elements.size())
      mismatch(what, type, joined("'", spec.str(), "' (give a list of ", type.elements.size(), " specs)"));
    std::vector<api::Value> elements;
    for (size_t i = 0; i < spec.elems.size(); ++i)
      elements.push_back(fromSpec(joined(what, "[", i, "]"), spec.elems[i], type.elements[i]));
    return api::Value::tuple(std::move(elements));
  }

  const api::Tensor* takeArray(const std::string& name) {
    auto it = arrays_.find(name);
    if (it == arrays_.end()) return nullptr;
    used_.insert(name);
    return it->second;
  }

  std::optional<api::Value> fromArrays(const std::string& name, const api::ParameterType& type) {
    if (type.kind == Kind::List) return listFromArrays(name, type);
    const api::Tensor* t = takeArray(name);
    if (!t) return std::nullopt;
    std::string what = joined("'", name, "' in ", sources_.arraysFile);
    if (type.kind == Kind::Tensor) return api::Value(*t);
    if (isScalar(type)) return scalarFromArray(what, *t, type);
    throw userError("input ", what, " cannot be given as an array (parameter type ", type.text, ")");
  }

  std::optional<api::Value> listFromArrays(const std::string& name, const api::ParameterType& type) {
    if (arrays_.count(name))
      throw userError("input '", name, "' is a ", type.text, "; store its elements in ", sources_.arraysFile, " as ",
                      name, "_0, ", name, "_1, ...");
    const api::ParameterType& elementType = type.elements.at(0);
    std::vector<api::Value> elements;
    for (size_t i = 0;; ++i) {
      std::string member = joined(name, "_", i);
      const api::Tensor* t = takeArray(member);
      if (!t) break;
      std::string what = joined("'", member, "' in ", sources_.arraysFile);
      if (elementType.kind == Kind::Tensor)
        elements.push_back(api::Value(*t));
      else if (isScalar(elementType))
        elements.push_back(scalarFromArray(what, *t, elementType));
      else
        throw userError("input '", name, "' of type ", type.text, " cannot be read from an .npz file");
    }
    if (elements.empty()) return std::nullopt;
    return api::Value::list(std::move(elements));
  }

  api::Value scalarFromArray(const std::string& what, const api::Tensor& t, const api::ParameterType& type) {
    if (!t.sizes.empty())
      throw userError("input ", what, " is for a ", type.text, " parameter and must be a 0-dim array, not shape ",
                      shapeText(t.sizes));
    bool integral = !isFloating(t.dtype);
    if (type.kind == Kind::Float) return api::Value(elementAsDouble(t.dtype, t.data));
    if (type.kind == Kind::Int && integral) return api::Value(elementAsInt(t.dtype, t.data));
    if (type.kind == Kind::Bool && t.dtype == api::DType::b8) return api::Value(elementAsInt(t.dtype, t.data) != 0);
    throw userError("input ", what, " has dtype ", api::dtypeName(t.dtype), ", which does not fit a ", type.text,
                    " parameter");
  }

  void checkAllArraysUsed() const {
    for (const auto& [name, tensor] : arrays_)
      if (!used_.count(name))
        throw userError("unknown input '", name, "' in ", sources_.arraysFile, " (function ", fn_.name(), " has ",
                        parameterList(fn_), ")");
  }

  const api::Function& fn_;
  const InputSources& sources_;
  InputRandom random_;
  bool typesOnly_;
  std::map<std::string, const InputSpec*> specs_;
  std::map<std::string, const api::Tensor*> arrays_;
  std::set<std::string> used_;
};

}  // namespace

std::vector<std::pair<std::string, api::Value>> bindInputs(const api::Function& fn, const InputSources& sources) {
  std::vector<std::optional<api::Value>> bound = Binder(fn, sources, false).bindAll();
  std::vector<std::pair<std::string, api::Value>> keywords;
  for (size_t i = 0; i < bound.size(); ++i) {
    const api::Parameter& p = fn.parameters()[i];
    if (bound[i])
      keywords.emplace_back(p.name, std::move(*bound[i]));
    else if (!p.hasDefault)
      throw userError("missing input '", p.name, "' (give --input ", p.name, "=SPEC or --inputs FILE)");
  }
  return keywords;
}

std::vector<std::optional<api::Value>> bindInputTypes(const api::Function& fn, const InputSources& sources) {
  return Binder(fn, sources, true).bindAll();
}

}  // namespace stitch::cli
