#include "tensorop/einsum_parse.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "stitch/tensorop.h"

namespace stitch::tensorop {
namespace {

[[noreturn]] void fail(const std::string& msg) { throw Error(msg); }

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// ---- tree notation -------------------------------------------------------

class TreeParser {
 public:
  explicit TreeParser(const std::string& text) : text_(text) {}

  std::unique_ptr<EinsumNode> parse() {
    auto root = parseNode();
    skipSpace();
    if (pos_ != text_.size()) fail(at("unexpected text after the tree"));
    return root;
  }

 private:
  const std::string& text_;
  size_t pos_ = 0;
  int nextInput_ = 0;

  std::string at(const std::string& msg) const {
    return msg + " at position " + std::to_string(pos_ + 1) + " of '" + text_ + "'";
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool peek(char c) {
    skipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  void expect(char c) {
    if (!peek(c)) fail(at(std::string("expected '") + c + "'"));
    ++pos_;
  }
  bool peekArrow() {
    skipSpace();
    return text_.compare(pos_, 2, "->") == 0;
  }

  std::vector<std::string> parseIdList() {
    std::vector<std::string> ids;
    expect('[');
    if (peek(']')) {
      ++pos_;
      return ids;
    }
    while (true) {
      skipSpace();
      size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      if (start == pos_) fail(at("expected a dimension id"));
      ids.push_back(text_.substr(start, pos_ - start));
      if (peek(',')) {
        ++pos_;
        continue;
      }
      expect(']');
      return ids;
    }
  }

  std::unique_ptr<EinsumNode> parseNode() {
    skipSpace();
    const size_t start = pos_;
    expect('[');
    auto node = std::make_unique<EinsumNode>();
    if (!peek('[')) {
      // A leaf: the bracket holds ids.
      pos_ = start;
      node->dims = parseIdList();
      node->input = nextInput_++;
      return node;
    }
    node->children.push_back(parseNode());
    while (peek(',')) {
      ++pos_;
      node->children.push_back(parseNode());
    }
    if (!peekArrow()) {
      // `[[a,b]]` style: a single leaf in extra brackets.
      if (node->children.size() == 1) {
        expect(']');
        return std::move(node->children[0]);
      }
      fail(at("expected '->' after the operands"));
    }
    pos_ += 2;
    if (node->children.size() > 2)
      fail(at("a tree node takes one or two operands, got " +
              std::to_string(node->children.size())));
    node->dims = parseIdList();
    expect(']');
    return node;
  }
};

// ---- standard notation ---------------------------------------------------

std::vector<std::string> lettersOf(const std::string& operand, size_t index) {
  std::vector<std::string> dims;
  for (char c : operand) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (!std::isalpha(static_cast<unsigned char>(c)))
      fail(std::string("invalid character '") + c + "' in einsum operand " +
           std::to_string(index) + " ('" + operand + "'); use letters");
    dims.emplace_back(1, c);
  }
  return dims;
}

std::vector<std::string> splitOn(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    parts.push_back(s.substr(start, p - start));
    if (p == std::string::npos) return parts;
    start = p + 1;
  }
}

int64_t cost(const std::vector<std::string>& a, const std::vector<std::string>& b,
             const std::map<std::string, int64_t>& sizes) {
  std::set<std::string> all(a.begin(), a.end());
  all.insert(b.begin(), b.end());
  double c = 1;
  for (const auto& d : all) c *= double(sizes.at(d));
  return c > 9e18 ? INT64_MAX : int64_t(c);
}

// Greedy contraction order: repeatedly contract the pair whose combined
// iteration space is smallest. Intermediates keep the dims still needed.
// When an operand's contiguous dim survives, it stays innermost (that
// operand's dims last): the kernel's M is then contiguous in the operand
// and in the result, so neither needs a permutation copy.
std::unique_ptr<EinsumNode> orderContractions(
    std::vector<std::unique_ptr<EinsumNode>> nodes,
    const std::vector<std::string>& output,
    const std::map<std::string, int64_t>& sizes) {
  while (nodes.size() > 2) {
    size_t bi = 0, bj = 1;
    int64_t best = INT64_MAX;
    for (size_t i = 0; i < nodes.size(); ++i)
      for (size_t j = i + 1; j < nodes.size(); ++j) {
        int64_t c = cost(nodes[i]->dims, nodes[j]->dims, sizes);
        if (c < best) {
          best = c;
          bi = i;
          bj = j;
        }
      }
    auto needed = [&](const std::string& d) {
      if (contains(output, d)) return true;
      for (size_t o = 0; o < nodes.size(); ++o)
        if (o != bi && o != bj && contains(nodes[o]->dims, d)) return true;
      return false;
    };
    auto keepsInner = [&](size_t n) {
      return !nodes[n]->dims.empty() && needed(nodes[n]->dims.back());
    };
    const size_t last = keepsInner(bj) && !keepsInner(bi) ? bj : bi;
    const size_t first = last == bi ? bj : bi;
    auto node = std::make_unique<EinsumNode>();
    for (const auto* src : {&nodes[first]->dims, &nodes[last]->dims})
      for (const auto& d : *src)
        if (needed(d) && !contains(node->dims, d)) node->dims.push_back(d);
    node->children.push_back(std::move(nodes[bi]));
    node->children.push_back(std::move(nodes[bj]));
    nodes.erase(nodes.begin() + bj);
    nodes[bi] = std::move(node);
  }
  auto root = std::make_unique<EinsumNode>();
  root->dims = output;
  for (auto& n : nodes) root->children.push_back(std::move(n));
  return root;
}

std::unique_ptr<EinsumNode> parseStandard(const std::string& text,
                                          const std::map<std::string, int64_t>& sizes) {
  std::string lhs = text, rhs;
  const size_t arrow = text.find("->");
  const bool implicitOutput = arrow == std::string::npos;
  if (!implicitOutput) {
    lhs = text.substr(0, arrow);
    rhs = text.substr(arrow + 2);
    if (rhs.find("->") != std::string::npos) fail("einsum expression has more than one '->'");
  }
  std::vector<std::unique_ptr<EinsumNode>> operands;
  std::map<std::string, int> count;
  const auto parts = splitOn(lhs, ',');
  for (size_t i = 0; i < parts.size(); ++i) {
    auto leaf = std::make_unique<EinsumNode>();
    leaf->dims = lettersOf(parts[i], i);
    if (leaf->dims.empty()) fail("einsum operand " + std::to_string(i) + " is empty");
    leaf->input = int(i);
    for (const auto& d : leaf->dims) ++count[d];
    operands.push_back(std::move(leaf));
  }
  std::vector<std::string> output;
  if (implicitOutput) {
    for (const auto& [d, c] : count)
      if (c == 1) output.push_back(d);
  } else {
    output = lettersOf(rhs, parts.size());
  }
  if (operands.size() == 1) {
    auto root = std::make_unique<EinsumNode>();
    root->dims = output;
    root->children.push_back(std::move(operands[0]));
    return root;
  }
  for (const auto& d : output)
    if (!count.count(d)) fail("output dimension '" + d + "' appears in no operand");
  for (const auto& [d, unused] : count)
    if (!sizes.count(d)) fail("no size given for dimension '" + d + "'");
  return orderContractions(std::move(operands), output, sizes);
}

// ---- checks --------------------------------------------------------------

void checkNode(const EinsumNode& node, const std::map<std::string, int64_t>& sizes) {
  std::set<std::string> seen;
  for (const auto& d : node.dims) {
    if (!seen.insert(d).second)
      fail("dimension '" + d + "' appears twice in one tensor " + toTreeString(node));
    if (!sizes.count(d)) fail("no size given for dimension '" + d + "'");
  }
  if (node.children.empty()) return;
  for (const auto& c : node.children) checkNode(*c, sizes);
  const auto& a = node.children[0]->dims;
  static const std::vector<std::string> none;
  const auto& b = node.children.size() > 1 ? node.children[1]->dims : none;
  for (const auto& d : node.dims)
    if (!contains(a, d) && !contains(b, d))
      fail("output dimension '" + d + "' of " + toTreeString(node) +
           " appears in none of its operands");
  for (const auto* src : {&a, &b})
    for (const auto& d : *src) {
      const bool inOut = contains(node.dims, d);
      const bool inBoth = contains(a, d) && contains(b, d);
      if (!inOut && !inBoth)
        fail("dimension '" + d + "' is summed out of a single operand in " +
             toTreeString(node) + "; only dimensions shared by two operands can be contracted");
    }
}

}  // namespace

std::string toTreeString(const EinsumNode& node) {
  auto ids = [](const std::vector<std::string>& dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i) s += ',';
      s += dims[i];
    }
    return s + "]";
  };
  if (node.children.empty()) return ids(node.dims);
  std::string s = "[";
  for (size_t i = 0; i < node.children.size(); ++i) {
    if (i) s += ',';
    s += toTreeString(*node.children[i]);
  }
  return s + "->" + ids(node.dims) + "]";
}

std::unique_ptr<EinsumNode> parseEinsum(const std::string& expression,
                                        const std::map<std::string, int64_t>& sizes) {
  for (const auto& [d, s] : sizes)
    if (s < 1) fail("size of dimension '" + d + "' must be >= 1, got " + std::to_string(s));
  size_t first = expression.find_first_not_of(" \t");
  if (first == std::string::npos) fail("empty einsum expression");
  std::unique_ptr<EinsumNode> root = expression[first] == '['
                                         ? TreeParser(expression).parse()
                                         : parseStandard(expression, sizes);
  checkNode(*root, sizes);
  return root;
}

}  // namespace stitch::tensorop
