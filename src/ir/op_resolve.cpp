// OpRegistry::resolve: matching a call's arguments against an op's overloads,
// with Python's rules for positional and keyword arguments.
#include "common/error.h"
#include "ir/op_registry.h"

namespace stitch {

namespace {

bool elementMatches(ArgType want, const Type& t) {
  switch (want) {
    case ArgType::Tensor: return t.isTensor();
    case ArgType::Scalar: return t.isScalar();
    case ArgType::Int: return t.kind() == TypeKind::Int || t.kind() == TypeKind::Bool;
    case ArgType::Float: return t.kind() == TypeKind::Int || t.kind() == TypeKind::Float;
    case ArgType::Bool: return t.kind() == TypeKind::Bool;
    case ArgType::Str: return t.kind() == TypeKind::Str;
    case ArgType::ScalarType: return t.kind() == TypeKind::DTypeT;
    case ArgType::Any: return true;
  }
  return false;
}

enum class Match { No, Yes, Wrapped };

Match argMatches(const ArgSpec& spec, const CallArg& arg) {
  // A value whose type is not known yet could be anything.
  if (!arg.type) return Match::Yes;
  const Type& t = *arg.type;
  if (t.kind() == TypeKind::None)
    return spec.optional || (spec.type == ArgType::Any && !spec.isList) ? Match::Yes : Match::No;
  if (!spec.isList) return elementMatches(spec.type, t) ? Match::Yes : Match::No;
  if (t.kind() == TypeKind::List) return elementMatches(spec.type, *t.elem()) ? Match::Yes : Match::No;
  if (spec.type == ArgType::Int && t.kind() == TypeKind::Int) return Match::Wrapped;
  return Match::No;
}

// How a type is named in messages: tensors as `Tensor`, whatever is known
// about them (the user wrote a tensor, not an f32[3]).
std::string typeForMessage(const TypePtr& t) {
  if (!t) return "unknown";
  if (t->isTensor()) return "Tensor";
  if (t->kind() == TypeKind::List) return "List[" + typeForMessage(t->elem()) + "]";
  if (t->kind() == TypeKind::Tuple) {
    std::string s = "Tuple[";
    for (size_t i = 0; i < t->elems().size(); ++i)
      s += (i ? ", " : "") + typeForMessage(t->elems()[i]);
    return s + "]";
  }
  return t->str();
}

std::string specTypeForMessage(const ArgSpec& spec) {
  ArgSpec bare;
  bare.type = spec.type;
  bare.isList = spec.isList;
  // As PyTorch words it: "must be int", even where None is also accepted.
  return bare.str();
}

struct CallShape {
  const std::vector<CallArg>& positional;
  const std::vector<std::pair<std::string, CallArg>>& keywords;
  size_t total() const { return positional.size() + keywords.size(); }
};

size_t requiredCount(const OpSchema& s) {
  size_t required = 0;
  for (const ArgSpec& a : s.args)
    if (!a.defaultValue) ++required;
  return required;
}

std::string countMessage(const OpSchema& s, size_t got) {
  size_t required = requiredCount(s);
  std::string expected = required == s.args.size()
                             ? std::to_string(required)
                             : std::to_string(required) + " to " + std::to_string(s.args.size());
  return errorMessage(s.name, "() expected ", expected, " argument",
                      s.args.size() == 1 && required == 1 ? "" : "s", " but got ", got);
}

std::string mismatchMessage(const OpSchema& s, const ArgSpec& spec, const CallArg& arg) {
  return errorMessage("argument '", spec.name, "' of ", s.name, "() must be ",
                      specTypeForMessage(spec), ", not ", typeForMessage(arg.type));
}

// Binds the call to one schema; on failure returns false with the reason.
bool bindToSchema(const OpSchema& s, const CallShape& call, Binding& out, std::string& why) {
  size_t positionalCapacity = 0;
  for (const ArgSpec& a : s.args)
    if (!a.kwargOnly) ++positionalCapacity;
  if (call.positional.size() > positionalCapacity) {
    why = countMessage(s, call.total());
    return false;
  }
  std::vector<std::optional<Binding::Slot>> slots(s.args.size());
  auto fill = [&](size_t argIndex, const CallArg& arg, Binding::Slot::Source src, size_t index) {
    Match m = argMatches(s.args[argIndex], arg);
    if (m == Match::No) {
      why = mismatchMessage(s, s.args[argIndex], arg);
      return false;
    }
    Binding::Slot slot{src, index, Constant(), m == Match::Wrapped};
    slots[argIndex] = slot;
    return true;
  };
  for (size_t i = 0; i < call.positional.size(); ++i)
    if (!fill(i, call.positional[i], Binding::Slot::Positional, i)) return false;
  for (size_t k = 0; k < call.keywords.size(); ++k) {
    const std::string& name = call.keywords[k].first;
    size_t argIndex = 0;
    while (argIndex < s.args.size() && s.args[argIndex].name != name) ++argIndex;
    if (argIndex == s.args.size()) {
      why = errorMessage(s.name, "() got an unexpected keyword argument '", name, "'");
      return false;
    }
    if (slots[argIndex]) {
      why = errorMessage(s.name, "() got multiple values for argument '", name, "'");
      return false;
    }
    if (!fill(argIndex, call.keywords[k].second, Binding::Slot::Keyword, k)) return false;
  }
  out.schema = &s;
  out.slots.clear();
  for (size_t i = 0; i < s.args.size(); ++i) {
    if (slots[i]) {
      out.slots.push_back(*slots[i]);
      continue;
    }
    if (!s.args[i].defaultValue) {
      why = call.total() < requiredCount(s)
                ? countMessage(s, call.total())
                : errorMessage(s.name, "() missing value for argument '", s.args[i].name, "'");
      return false;
    }
    out.slots.push_back(Binding::Slot{Binding::Slot::Default, 0, *s.args[i].defaultValue, false});
  }
  return true;
}

std::string describeCall(const CallShape& call) {
  std::string s;
  for (const CallArg& a : call.positional) s += (s.empty() ? "" : ", ") + typeForMessage(a.type);
  for (const auto& [name, a] : call.keywords)
    s += (s.empty() ? "" : ", ") + name + "=" + typeForMessage(a.type);
  return s;
}

}  // namespace

bool argAccepts(const ArgSpec& spec, const TypePtr& t) {
  return argMatches(spec, CallArg{t, nullptr}) != Match::No;
}

const OpSchema* findOverloadForInputs(const std::string& name,
                                      const std::vector<TypePtr>& inputTypes) {
  for (const OpSchema* s : OpRegistry::get().overloads(name)) {
    bool countOk = s->has(kVarArgs) ? inputTypes.size() >= s->args.size()
                                    : inputTypes.size() == s->args.size();
    if (!countOk) continue;
    bool typesOk = true;
    for (size_t i = 0; i < s->args.size() && typesOk; ++i)
      typesOk = argAccepts(s->args[i], inputTypes[i]);
    if (typesOk) return s;
  }
  return nullptr;
}

Binding OpRegistry::resolve(const std::string& name, const std::vector<CallArg>& positional,
                            const std::vector<std::pair<std::string, CallArg>>& keywords) const {
  const std::vector<const OpSchema*>& candidates = overloads(name);
  if (candidates.empty()) throw UserError(errorMessage("unknown operator '", name, "'"));
  CallShape call{positional, keywords};
  std::string firstReason;
  for (const OpSchema* s : candidates) {
    Binding b;
    std::string why;
    if (bindToSchema(*s, call, b, why)) return b;
    if (firstReason.empty()) firstReason = why;
  }
  if (candidates.size() == 1) throw UserError(firstReason);
  std::string options;
  for (const OpSchema* s : candidates) options += (options.empty() ? "" : "; ") + s->signature;
  throw UserError(errorMessage(name, "() received an invalid combination of arguments - got (",
                               describeCall(call), "), but expected one of: ", options));
}

}  // namespace stitch
