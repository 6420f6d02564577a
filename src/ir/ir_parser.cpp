#include "ir/ir_parser.h"

#include <cctype>
#include <cmath>
#include <set>

#include "ir/op_registry.h"
#include "ir/verifier.h"

namespace stitch {

namespace {

class IrParser {
 public:
  explicit IrParser(const std::string& text) : s_(text) {}

  std::unique_ptr<Graph> parse() {
    graph_ = std::make_unique<Graph>();
    expectWord("graph");
    skipSpace();
    if (!peek('(')) graph_->setName(identifier("graph name"));
    expect('(');
    if (!eat(')')) {
      do {
        TypedName def = typedName();
        define(graph_->addInput(def.type), def);
      } while (eat(','));
      expect(')');
    }
    expect(':');
    nodesUntil("return", graph_->top());
    for (Value* v : valueTuple()) graph_->addOutput(v);
    skipSpace();
    if (pos_ != s_.size()) fail("unexpected text after the graph's return");
    return std::move(graph_);
  }

 private:
  // ---- characters ----
  [[noreturn]] void fail(const std::string& message) const {
    throw UserError(message, locAt(pos_));
  }
  SourceLoc locAt(size_t pos) const {
    SourceLoc loc;
    loc.line = 1;
    loc.col = 1;
    for (size_t i = 0; i < pos && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++loc.line;
        loc.col = 1;
      } else {
        ++loc.col;
      }
    }
    return loc;
  }
  void skipSpace() {
    while (pos_ < s_.size() && std::isspace((unsigned char)s_[pos_])) ++pos_;
  }
  // Spaces and tabs only: a location comment must sit on its node's line.
  void skipBlanks() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
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
  void expect(char c) {
    if (!eat(c)) fail(errorMessage("expected '", c, "'"));
  }
  static bool isNameChar(char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '.'; }
  std::string identifier(const char* what) {
    skipSpace();
    size_t start = pos_;
    while (pos_ < s_.size() && isNameChar(s_[pos_])) ++pos_;
    if (pos_ == start) fail(errorMessage("expected ", what));
    return s_.substr(start, pos_ - start);
  }
  bool peekWord(const char* w) {
    skipSpace();
    size_t n = std::char_traits<char>::length(w);
    return s_.compare(pos_, n, w) == 0 && (pos_ + n == s_.size() || !isNameChar(s_[pos_ + n]));
  }
  void expectWord(const char* w) {
    if (!peekWord(w)) fail(errorMessage("expected '", w, "'"));
    pos_ += std::char_traits<char>::length(w);
  }

  // ---- values ----
  std::string valueName() {
    expect('%');
    size_t start = pos_;
    while (pos_ < s_.size() && isNameChar(s_[pos_])) ++pos_;
    if (pos_ == start) fail("expected a value name after '%'");
    return s_.substr(start, pos_ - start);
  }

  // The type text runs to the next ',', ')' or '=' outside brackets.
  TypePtr type() {
    skipSpace();
    size_t start = pos_;
    int depth = 0;
    for (; pos_ < s_.size() && s_[pos_] != '\n'; ++pos_) {
      char c = s_[pos_];
      if (c == '[') ++depth;
      if (c == ']') --depth;
      if (depth == 0 && (c == ',' || c == ')' || c == '=')) break;
    }
    size_t end = pos_;
    while (end > start && std::isspace((unsigned char)s_[end - 1])) --end;
    TypePtr t = parseType(s_.substr(start, end - start));
    if (!t) {
      pos_ = start;
      fail("malformed type '" + s_.substr(start, end - start) + "'");
    }
    return t;
  }

  struct TypedName {
    std::string name;
    TypePtr type;
    size_t pos;
  };
  TypedName typedName() {
    skipSpace();
    size_t at = pos_;
    std::string name = valueName();
    expect(':');
    return {name, type(), at};
  }

  void define(Value* v, const TypedName& def) {
    const std::string& name = def.name;
    if (!definedNames_.insert(name).second) {
      pos_ = def.pos;
      fail("value %" + name + " is defined twice");
    }
    values_[name] = v;
    scopes_.back().push_back(name);
    bool numbered = name.find_first_not_of("0123456789") == std::string::npos;
    v->setDebugName(numbered ? "" : name);
  }

  Value* use() {
    size_t at = pos_;
    std::string name = valueName();
    auto it = values_.find(name);
    if (it == values_.end()) {
      pos_ = at;
      skipSpace();
      fail((definedNames_.count(name) ? "value %" + name + " is not visible here"
                                      : "use of undefined value %" + name));
    }
    return it->second;
  }

  std::vector<Value*> valueTuple() {
    std::vector<Value*> out;
    expect('(');
    if (eat(')')) return out;
    do out.push_back(use());
    while (eat(','));
    expect(')');
    return out;
  }

  // ---- constants ----
  Constant constant() {
    skipSpace();
    if (peek('"')) return stringLiteral();
    if (eat('[')) {
      std::vector<int64_t> items;
      if (eat(']')) return Constant(items);
      do {
        Constant c = number();
        if (!c.isInt()) fail("int lists hold only ints");
        items.push_back(c.toInt());
      } while (eat(','));
      expect(']');
      return Constant(items);
    }
    if (pos_ < s_.size() && (std::isdigit((unsigned char)s_[pos_]) || s_[pos_] == '-'))
      return number();
    size_t at = pos_;
    std::string w = identifier("a constant");
    if (w == "None") return Constant();
    if (w == "true") return Constant(true);
    if (w == "false") return Constant(false);
    if (w == "inf") return Constant(INFINITY);
    if (w == "nan") return Constant(std::nan(""));
    if (auto dt = dtypeFromName(w)) return Constant(*dt);
    pos_ = at;
    fail("malformed constant '" + w + "'");
  }

  Constant number() {
    skipSpace();
    size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    if (s_.compare(pos_, 3, "inf") == 0) {
      pos_ += 3;
      return Constant(-INFINITY);
    }
    while (pos_ < s_.size() && (std::isalnum((unsigned char)s_[pos_]) || s_[pos_] == '.' ||
                                ((s_[pos_] == '-' || s_[pos_] == '+') &&
                                 (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E'))))
      ++pos_;
    std::string text = s_.substr(start, pos_ - start);
    size_t used = 0;
    bool isFloat = text.find_first_of(".eE") != std::string::npos;
    try {
      if (isFloat) {
        double d = std::stod(text, &used);
        if (used == text.size()) return Constant(d);
      } else {
        int64_t i = std::stoll(text, &used);
        if (used == text.size()) return Constant(i);
      }
    } catch (const std::exception&) {
    }
    pos_ = start;
    fail("malformed number '" + text + "'");
  }

  Constant stringLiteral() {
    expect('"');
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ == s_.size()) break;
      char e = s_[pos_++];
      out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
    }
    if (pos_ == s_.size()) fail("unterminated string");
    ++pos_;
    return Constant(out);
  }

  // ---- nodes and blocks ----
  void nodesUntil(const char* terminator, Block* block) {
    while (!peekWord(terminator)) {
      if (pos_ >= s_.size()) fail(errorMessage("expected '", terminator, "'"));
      block->append(node());
    }
    pos_ += std::char_traits<char>::length(terminator);
  }

  Node* node() {
    std::vector<TypedName> outs;
    if (peek('%')) {
      do outs.push_back(typedName());
      while (eat(','));
      expect('=');
    }
    skipSpace();
    size_t opPos = pos_;
    std::string op = identifier("an op name");
    std::map<std::string, Constant> attrs;
    if (eat('[')) {
      do {
        std::string name = identifier("an attribute name");
        expect('=');
        attrs[name] = constant();
      } while (eat(','));
      expect(']');
    }
    std::vector<Value*> inputs = valueTuple();
    Node* n = createNode(op, opPos, inputs, outs);
    for (auto& [name, c] : attrs) n->setAttr(name, c);
    n->setLoc(locationComment());
    while (peekBlock()) block(n);
    checkStructure(n, opPos);
    // Defined after the blocks: a loop's body cannot see the loop's results.
    for (size_t i = 0; i < outs.size(); ++i) define(n->output(i), outs[i]);
    return n;
  }

  // What the verifier would reject, reported at the node in the text.
  void checkStructure(const Node* n, size_t opPos) {
    auto failAt = [&](const std::string& message) {
      pos_ = opPos;
      fail(message);
    };
    if (n->is("prim.constant")) {
      if (!n->hasAttr("value")) failAt("prim.constant needs a value attribute");
      if (n->outputs().size() != 1 ||
          n->attr("value").type()->kind() != n->output()->type()->kind())
        failAt("prim.constant's output type does not fit its value " + n->attr("value").str());
      return;
    }
    if (n->is("prim.loop")) {
      size_t carried = n->inputs().size() - 2;
      if (n->blocks().size() != 1 || n->block(0)->params().size() != carried + 1 ||
          n->block(0)->returns().size() != carried + 1 || n->outputs().size() != carried)
        failAt("prim.loop needs one block taking (iteration, carried...) and returning "
               "(condition, carried...), and one output per carried value");
      return;
    }
    if (n->is("prim.if")) {
      bool ok = n->blocks().size() == 2;
      for (const Block* b : n->blocks())
        ok = ok && b->params().empty() && b->returns().size() == n->outputs().size();
      if (!ok) failAt("prim.if needs two blocks without params, each returning one value per output");
      return;
    }
    if (!n->blocks().empty()) failAt(n->kind() + " takes no blocks");
  }

  bool peekBlock() {
    skipSpace();
    return s_.compare(pos_, 5, "block") == 0 && pos_ + 5 < s_.size() &&
           std::isdigit((unsigned char)s_[pos_ + 5]);
  }

  Node* createNode(const std::string& op, size_t opPos, const std::vector<Value*>& inputs,
                   const std::vector<TypedName>& outs) {
    auto failAt = [&](const std::string& message) {
      pos_ = opPos;
      fail(message);
    };
    if (!OpRegistry::get().has(op) || op == "prim.param" || op == "prim.return")
      failAt("unknown op '" + op + "'");
    std::vector<TypePtr> types;
    for (Value* v : inputs) types.push_back(v->type());
    const OpSchema* schema = findOverloadForInputs(op, types);
    if (!schema) {
      std::string got;
      for (const TypePtr& t : types) got += (got.empty() ? "" : ", ") + t->str();
      failAt("no overload of " + op + " takes (" + got + ")");
    }
    if (!schema->has(kVarRets) && outs.size() != schema->rets.size())
      failAt(errorMessage(op, " has ", schema->rets.size(), " outputs, not ", outs.size()));
    Node* n = graph_->create(*schema, inputs, outs.size());
    for (size_t i = 0; i < outs.size(); ++i) n->output(i)->setType(outs[i].type);
    return n;
  }

  // `# file:line:col` up to the end of the line, or no location.
  SourceLoc locationComment() {
    skipBlanks();
    SourceLoc loc;
    if (pos_ >= s_.size() || s_[pos_] != '#') return loc;
    size_t start = ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
    std::string text = s_.substr(start, pos_ - start);
    while (!text.empty() && std::isspace((unsigned char)text.front())) text.erase(0, 1);
    while (!text.empty() && std::isspace((unsigned char)text.back())) text.pop_back();
    size_t colSep = text.rfind(':');
    size_t lineSep = colSep == std::string::npos || colSep == 0 ? std::string::npos
                                                                : text.rfind(':', colSep - 1);
    if (lineSep == std::string::npos) return loc;
    try {
      loc.line = std::stoi(text.substr(lineSep + 1, colSep - lineSep - 1));
      loc.col = std::stoi(text.substr(colSep + 1));
    } catch (const std::exception&) {
      return SourceLoc{};
    }
    loc.file = text.substr(0, lineSep);
    // SourceLoc::str() spells an empty file so.
    if (loc.file == "<input>") loc.file.clear();
    return loc;
  }

  void block(Node* owner) {
    identifier("a block");
    Block* b = owner->addBlock();
    scopes_.emplace_back();
    expect('(');
    if (!eat(')')) {
      do {
        TypedName def = typedName();
        define(b->addParam(def.type), def);
      } while (eat(','));
      expect(')');
    }
    expect(':');
    skipSpace();
    while (!(pos_ + 1 < s_.size() && s_[pos_] == '-' && s_[pos_ + 1] == '>')) {
      if (pos_ >= s_.size()) fail("expected '->' closing the block");
      b->append(node());
      skipSpace();
    }
    pos_ += 2;
    for (Value* v : valueTuple()) b->addReturn(v);
    for (const std::string& name : scopes_.back()) values_.erase(name);
    scopes_.pop_back();
  }

  const std::string& s_;
  size_t pos_ = 0;
  std::unique_ptr<Graph> graph_;
  // Names visible at this point, per enclosing block; every name ever
  // defined, since names are unique in the whole text.
  std::map<std::string, Value*> values_;
  std::vector<std::vector<std::string>> scopes_{1};
  std::set<std::string> definedNames_;
};

}  // namespace

std::unique_ptr<Graph> parseGraph(const std::string& text) {
  std::unique_ptr<Graph> g = IrParser(text).parse();
  // The parser checks what it can where it reads it; anything else the
  // verifier finds is still the text's fault, not ours.
  try {
    verifyGraph(*g);
  } catch (const InternalError& e) {
    throw UserError(std::string("malformed IR: ") + e.what());
  }
  return g;
}

}  // namespace stitch
