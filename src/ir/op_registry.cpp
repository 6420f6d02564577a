#include "ir/op_registry.h"

#include <cctype>

#include "common/error.h"

namespace stitch {

// ---- argument specs ------------------------------------------------------------

static const char* argTypeName(ArgType t) {
  switch (t) {
    case ArgType::Tensor: return "Tensor";
    case ArgType::Scalar: return "Scalar";
    case ArgType::Int: return "int";
    case ArgType::Float: return "float";
    case ArgType::Bool: return "bool";
    case ArgType::Str: return "str";
    case ArgType::ScalarType: return "ScalarType";
    case ArgType::Any: return "Any";
  }
  return "?";
}

// Defaults are shown as Python spells them (True, not true).
static std::string pythonLiteral(const Constant& c) {
  if (c.isBool()) return c.toBool() ? "True" : "False";
  return c.str();
}

std::string ArgSpec::str() const {
  std::string s = argTypeName(type);
  if (isList) s += "[]";
  if (optional) s += "?";
  if (!name.empty()) s.append(" ").append(name);
  if (defaultValue) s.append("=").append(pythonLiteral(*defaultValue));
  return s;
}

TypePtr declaredType(const ArgSpec& spec) {
  TypePtr base;
  switch (spec.type) {
    case ArgType::Tensor: base = Type::tensor(); break;
    case ArgType::Scalar: base = Type::floatT(); break;
    case ArgType::Int: base = Type::intT(); break;
    case ArgType::Float: base = Type::floatT(); break;
    case ArgType::Bool: base = Type::boolT(); break;
    case ArgType::Str: base = Type::strT(); break;
    case ArgType::ScalarType: base = Type::dtypeT(); break;
    case ArgType::Any: base = Type::tensor(); break;
  }
  return spec.isList ? Type::list(base) : base;
}

// ---- signature parsing ---------------------------------------------------------

namespace {

// Parses `name(Type arg=default, *, ...) -> Ret` / `-> (A a, B b)` / `-> ()`.
// Signatures are written by us, so malformed ones are internal errors.
class SignatureParser {
 public:
  explicit SignatureParser(const std::string& text) : s_(text) {}

  std::unique_ptr<OpSchema> parse() {
    auto schema = std::make_unique<OpSchema>();
    schema->signature = s_;
    schema->name = opName();
    expect('(');
    bool kwargOnly = false;
    if (!eat(')')) {
      do {
        if (eat('*')) {
          kwargOnly = true;
          continue;
        }
        ArgSpec a = arg(true);
        a.kwargOnly = kwargOnly;
        schema->args.push_back(std::move(a));
      } while (eat(','));
      expect(')');
    }
    expect('-');
    expect('>');
    parseReturns(*schema);
    skipSpace();
    check(pos_ == s_.size(), "trailing text");
    return schema;
  }

 private:
  void check(bool ok, const char* what) const {
    STITCH_ASSERT(ok, "bad op signature '", s_, "': ", what, " at ", pos_);
  }
  void skipSpace() {
    while (pos_ < s_.size() && std::isspace((unsigned char)s_[pos_])) ++pos_;
  }
  bool peek(char c) {
    skipSpace();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++pos_;
    return true;
  }
  void expect(char c) { check(eat(c), "unexpected character"); }
  static bool isWordChar(char c) { return std::isalnum((unsigned char)c) || c == '_'; }
  std::string word() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < s_.size() && isWordChar(s_[pos_])) ++pos_;
    return s_.substr(start, pos_ - start);
  }
  std::string opName() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < s_.size() && (isWordChar(s_[pos_]) || s_[pos_] == '.')) ++pos_;
    check(pos_ > start, "missing op name");
    return s_.substr(start, pos_ - start);
  }

  ArgType argType(const std::string& w) {
    if (w == "Tensor") return ArgType::Tensor;
    if (w == "Scalar") return ArgType::Scalar;
    if (w == "int") return ArgType::Int;
    if (w == "float") return ArgType::Float;
    if (w == "bool") return ArgType::Bool;
    if (w == "str") return ArgType::Str;
    if (w == "ScalarType") return ArgType::ScalarType;
    check(w == "Any", "unknown argument type");
    return ArgType::Any;
  }

  ArgSpec arg(bool named) {
    ArgSpec a;
    a.type = argType(word());
    if (eat('[')) {
      while (pos_ < s_.size() && std::isdigit((unsigned char)s_[pos_])) ++pos_;  // int[2]
      expect(']');
      a.isList = true;
    }
    a.optional = eat('?');
    if (!named) {
      skipSpace();
      if (pos_ < s_.size() && isWordChar(s_[pos_])) a.name = word();
      return a;
    }
    a.name = word();
    check(!a.name.empty(), "missing argument name");
    if (eat('=')) a.defaultValue = defaultFor(a);
    return a;
  }

  Constant defaultFor(const ArgSpec& a) {
    Constant c = literal();
    if (a.type == ArgType::Float && !a.isList && c.isInt()) return Constant((double)c.toInt());
    return c;
  }

  Constant literal() {
    skipSpace();
    if (eat('"')) {
      size_t start = pos_;
      while (pos_ < s_.size() && s_[pos_] != '"') ++pos_;
      check(pos_ < s_.size(), "unterminated string");
      std::string text = s_.substr(start, pos_ - start);
      ++pos_;
      return Constant(text);
    }
    if (eat('[')) {
      std::vector<int64_t> items;
      if (!eat(']')) {
        do items.push_back(number().toInt());
        while (eat(','));
        expect(']');
      }
      return Constant(items);
    }
    if (pos_ < s_.size() && (std::isdigit((unsigned char)s_[pos_]) || s_[pos_] == '-'))
      return number();
    std::string w = word();
    if (w == "None") return Constant();
    if (w == "True") return Constant(true);
    if (w == "False") return Constant(false);
    check(false, "bad default value");
    return Constant();
  }

  Constant number() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum((unsigned char)s_[pos_]) || s_[pos_] == '.' ||
                                s_[pos_] == '-' || s_[pos_] == '+'))
      ++pos_;
    std::string text = s_.substr(start, pos_ - start);
    check(!text.empty(), "missing number");
    if (text.find_first_of(".e") != std::string::npos) return Constant(std::stod(text));
    return Constant((int64_t)std::stoll(text));
  }

  void parseReturns(OpSchema& schema) {
    if (!eat('(')) {
      schema.rets.push_back(arg(false));
      return;
    }
    if (eat(')')) return;
    do schema.rets.push_back(arg(false));
    while (eat(','));
    expect(')');
  }

  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

// ---- the registry ----------------------------------------------------------------

OpRegistry::OpRegistry() = default;

OpRegistry& OpRegistry::get() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    registerAllOps(*r);
    registerAllTypeRules(*r);
    return r;
  }();
  return *registry;
}

const OpSchema& OpRegistry::add(const std::string& signature, uint32_t flags) {
  std::unique_ptr<OpSchema> schema = SignatureParser(signature).parse();
  schema->flags = flags;
  Entry& entry = ops_[schema->name];
  schema->overloadIndex = entry.overloads.size();
  entry.overloads.push_back(schema.get());
  schemas_.push_back(std::move(schema));
  return *schemas_.back();
}

bool OpRegistry::has(const std::string& name) const { return ops_.count(name) != 0; }

const std::vector<const OpSchema*>& OpRegistry::overloads(const std::string& name) const {
  static const std::vector<const OpSchema*> none;
  auto it = ops_.find(name);
  return it == ops_.end() ? none : it->second.overloads;
}

const OpSchema& OpRegistry::schema(const std::string& name) const {
  auto it = ops_.find(name);
  STITCH_ASSERT(it != ops_.end(), "unknown op '", name, "'");
  return *it->second.overloads.front();
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : ops_) out.push_back(name);
  return out;
}

void OpRegistry::setTypeRule(const std::string& name, TypeRule rule) {
  auto it = ops_.find(name);
  STITCH_ASSERT(it != ops_.end(), "type rule for unknown op '", name, "'");
  it->second.rule = std::move(rule);
}

const TypeRule* OpRegistry::typeRule(const std::string& name) const {
  auto it = ops_.find(name);
  if (it == ops_.end() || !it->second.rule) return nullptr;
  return &it->second.rule;
}

}  // namespace stitch
