#include "ir/printer.h"

#include <sstream>

#include "ir/op_registry.h"

namespace stitch {

// ---- naming --------------------------------------------------------------------

ValueNamer::ValueNamer(const Graph& graph) { nameBlock(graph.top()); }

void ValueNamer::nameBlock(const Block* b) {
  for (const Value* p : b->params()) assign(p);
  for (const Node* n : *b) {
    for (const Value* out : n->outputs()) assign(out);
    for (const Block* sub : n->blocks()) nameBlock(sub);
  }
}

static std::string sanitizedName(const std::string& name) {
  std::string s = name;
  for (char& c : s)
    if (!std::isalnum((unsigned char)c) && c != '_' && c != '.') c = '_';
  bool allDigits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
  // A number would read back as an unnamed value; keep it a name.
  return allDigits ? "_" + s : s;
}

void ValueNamer::assign(const Value* v) {
  std::string name;
  if (v->debugName().empty()) {
    do name = std::to_string(nextNumber_++);
    while (used_.count(name));
  } else {
    std::string base = sanitizedName(v->debugName());
    name = base;
    while (used_.count(name)) name = base + "." + std::to_string(++nextSuffix_[base]);
  }
  used_.insert(name);
  names_[v] = name;
}

std::string ValueNamer::name(const Value* v) const {
  auto it = names_.find(v);
  if (it != names_.end()) return it->second;
  return std::string("?").append(std::to_string(v->id()));
}

// ---- printing ------------------------------------------------------------------

namespace {

class Printer {
 public:
  Printer(const ValueNamer& namer, std::ostringstream& os) : namer_(namer), os_(os) {}

  void graph(const Graph& g) {
    os_ << "graph" << (g.name().empty() ? "" : " " + g.name()) << "(";
    typedValues(g.inputs());
    os_ << "):\n";
    for (const Node* n : *g.top()) node(*n, 1);
    os_ << "  return (";
    valueList(g.outputs());
    os_ << ")\n";
  }

  void node(const Node& n, int depth) {
    indent(depth);
    if (!n.outputs().empty()) {
      typedValues(n.outputs());
      os_ << " = ";
    }
    os_ << n.kind();
    attributes(n);
    os_ << "(";
    valueList(n.inputs());
    os_ << ")";
    if (n.loc().known()) os_ << "  # " << n.loc().str();
    os_ << "\n";
    for (size_t i = 0; i < n.blocks().size(); ++i) block(*n.block(i), i, depth + 1);
  }

 private:
  void indent(int depth) { os_ << std::string(2 * depth, ' '); }

  void block(const Block& b, size_t index, int depth) {
    indent(depth);
    os_ << "block" << index << "(";
    typedValues(b.params());
    os_ << "):\n";
    for (const Node* n : b) node(*n, depth + 1);
    indent(depth + 1);
    os_ << "-> (";
    valueList(b.returns());
    os_ << ")\n";
  }

  void attributes(const Node& n) {
    if (n.attrs().empty()) return;
    os_ << "[";
    bool first = true;
    for (const auto& [name, value] : n.attrs()) {
      os_ << (first ? "" : ", ") << name << "=" << value.str();
      first = false;
    }
    os_ << "]";
  }

  void typedValues(const std::vector<Value*>& values) {
    for (size_t i = 0; i < values.size(); ++i)
      os_ << (i ? ", " : "") << "%" << namer_.name(values[i]) << " : "
          << (values[i]->type() ? values[i]->type()->str() : "<no type>");
  }

  void valueList(const std::vector<Value*>& values) {
    for (size_t i = 0; i < values.size(); ++i) os_ << (i ? ", " : "") << "%" << namer_.name(values[i]);
  }

  const ValueNamer& namer_;
  std::ostringstream& os_;
};

}  // namespace

std::string printGraph(const Graph& graph) {
  ValueNamer namer(graph);
  std::ostringstream os;
  Printer(namer, os).graph(graph);
  return os.str();
}

std::string printNode(const Node& node) {
  ValueNamer namer(*node.graph());
  std::ostringstream os;
  Printer(namer, os).node(node, 0);
  return os.str();
}

std::string printedName(const Value& value) { return ValueNamer(*value.graph()).name(&value); }

}  // namespace stitch
