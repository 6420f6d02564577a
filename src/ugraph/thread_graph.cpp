#include "ugraph/thread_graph.h"

#include <cstring>
#include <set>
#include <sstream>

#include "common/error.h"

namespace stitch {

namespace {

// A structural key for hash-consing. Reduce variables are never interned
// (each newReduceVar is a fresh variable).
std::string keyOf(const TNode& n) {
  std::ostringstream k;
  k << int(n.op) << ':' << int(n.dtype) << ':' << int(n.alu) << ':' << int(n.reduce) << ':'
    << n.index << ':' << n.ival << ':';
  k.precision(17);
  k << n.fval;
  for (int a : n.args) k << ',' << a;
  k << '|';
  for (int r : n.reduceVars) k << ',' << r;
  return k.str();
}

}  // namespace

bool TNode::operator==(const TNode& o) const {
  return op == o.op && dtype == o.dtype && alu == o.alu && reduce == o.reduce &&
         index == o.index && ival == o.ival && fval == o.fval && args == o.args &&
         reduceVars == o.reduceVars;
}

const char* tOpName(TOp op) {
  switch (op) {
    case TOp::IterVar: return "IterVar";
    case TOp::ReduceVar: return "ReduceVar";
    case TOp::Const: return "Const";
    case TOp::Param: return "Param";
    case TOp::Load: return "Load";
    case TOp::Alu: return "Alu";
    case TOp::Cast: return "Cast";
    case TOp::Reduce: return "Reduce";
    case TOp::Fill: return "Fill";
    case TOp::LocalLoad: return "LocalLoad";
    case TOp::BlockIndex: return "BlockIndex";
  }
  return "?";
}

int ThreadGraph::add(TNode n) {
  for (int a : n.args) STITCH_ASSERT(a >= 0 && a < (int)nodes_.size(), "thread graph operand out of range");
  std::string key = keyOf(n);
  auto it = interned_.find(key);
  if (it != interned_.end()) return it->second;
  nodes_.push_back(std::move(n));
  int id = (int)nodes_.size() - 1;
  interned_.emplace(std::move(key), id);
  return id;
}

int ThreadGraph::iterVar(int dim) {
  STITCH_ASSERT(dim >= 0 && dim < (int)iterShape_.size(), "iteration dim ", dim, " out of range");
  TNode n;
  n.op = TOp::IterVar;
  n.index = dim;
  return add(std::move(n));
}

int ThreadGraph::newReduceVar(int64_t extent) {
  reduceExtents_.push_back(extent);
  TNode n;
  n.op = TOp::ReduceVar;
  n.index = (int64_t)reduceExtents_.size() - 1;
  return add(std::move(n));
}

int ThreadGraph::constInt(int64_t v, DType dtype) {
  STITCH_ASSERT(!isFloating(dtype), "constInt with a floating dtype");
  TNode n;
  n.op = TOp::Const;
  n.dtype = dtype;
  n.ival = dtype == DType::b8 ? (v != 0) : v;
  return add(std::move(n));
}

int ThreadGraph::constFloat(double v, DType dtype) {
  STITCH_ASSERT(isFloating(dtype), "constFloat with a non-floating dtype");
  TNode n;
  n.op = TOp::Const;
  n.dtype = dtype;
  n.fval = dtype == DType::f32 ? (double)(float)v : v;
  return add(std::move(n));
}

int ThreadGraph::param(int slot, DType dtype) {
  TNode n;
  n.op = TOp::Param;
  n.dtype = dtype;
  n.index = slot;
  return add(std::move(n));
}

int ThreadGraph::load(int inputSlot, DType dtype, int flatIndex) {
  STITCH_ASSERT(node(flatIndex).dtype == DType::i64, "load index must be i64");
  TNode n;
  n.op = TOp::Load;
  n.dtype = dtype;
  n.index = inputSlot;
  n.args = {flatIndex};
  return add(std::move(n));
}

int ThreadGraph::alu(AluOp op, DType dtype, std::vector<int> args) {
  STITCH_ASSERT((int)args.size() == aluOpArity(op), aluOpName(op), " takes ", aluOpArity(op),
                " operands, got ", args.size());
  TNode n;
  n.op = TOp::Alu;
  n.alu = op;
  n.dtype = dtype;
  n.args = std::move(args);
  return add(std::move(n));
}

int ThreadGraph::cast(int x, DType dtype) {
  if (node(x).dtype == dtype) return x;
  TNode n;
  n.op = TOp::Cast;
  n.dtype = dtype;
  n.args = {x};
  return add(std::move(n));
}

int ThreadGraph::reduce(ReduceOp op, DType accDType, int body, const std::vector<int>& reduceVarNodes) {
  TNode n;
  n.op = TOp::Reduce;
  n.reduce = op;
  n.dtype = accDType;
  n.args = {body};
  for (int v : reduceVarNodes) {
    STITCH_ASSERT(node(v).op == TOp::ReduceVar, "reduce over a node that is not a reduce variable");
    n.reduceVars.push_back((int)node(v).index);
  }
  // Two ops of a group may each reduce the same rows (a layer norm's mean,
  // and its variance's own): the same reduction twice over fresh
  // variables, which hash-consing cannot see. The first serves both.
  for (int id = 0; id < (int)nodes_.size(); ++id) {
    const TNode& m = nodes_[id];
    if (m.op != TOp::Reduce || m.reduce != op || m.dtype != accDType || m.reduceVars.size() != n.reduceVars.size())
      continue;
    std::unordered_map<int64_t, int64_t> vars;
    bool extents = true;
    for (size_t k = 0; k < n.reduceVars.size(); ++k) {
      extents &= reduceExtent(n.reduceVars[k]) == reduceExtent(m.reduceVars[k]);
      vars[n.reduceVars[k]] = m.reduceVars[k];
    }
    std::set<std::pair<int, int>> same;
    if (extents && sameUpToVars(body, m.args[0], vars, same)) return id;
  }
  return add(std::move(n));
}

bool ThreadGraph::sameUpToVars(int a, int b, std::unordered_map<int64_t, int64_t>& vars,
                               std::set<std::pair<int, int>>& same) const {
  if (a == b || same.count({a, b})) return true;
  const TNode &x = nodes_[a], &y = nodes_[b];
  if (x.op == TOp::ReduceVar) {
    auto it = vars.find(x.index);
    return y.op == TOp::ReduceVar && it != vars.end() && it->second == y.index;
  }
  // Fills name their buffers: only the same fill is the same.
  if (x.op != y.op || x.op == TOp::Fill || x.dtype != y.dtype || x.alu != y.alu || x.reduce != y.reduce ||
      x.index != y.index || x.ival != y.ival || std::memcmp(&x.fval, &y.fval, sizeof x.fval) != 0 ||
      x.args.size() != y.args.size() || x.reduceVars.size() != y.reduceVars.size())
    return false;
  // A reduction inside: its variables correspond in order.
  for (size_t k = 0; k < x.reduceVars.size(); ++k) {
    if (reduceExtent(x.reduceVars[k]) != reduceExtent(y.reduceVars[k])) return false;
    auto [it, added] = vars.emplace(x.reduceVars[k], y.reduceVars[k]);
    if (!added && it->second != y.reduceVars[k]) return false;
  }
  for (size_t k = 0; k < x.args.size(); ++k)
    if (!sameUpToVars(x.args[k], y.args[k], vars, same)) return false;
  same.insert({a, b});
  return true;
}

int ThreadGraph::fill(int local, int body, const std::vector<int>& fillVarNodes) {
  TNode n;
  n.op = TOp::Fill;
  n.dtype = node(body).dtype;
  n.index = local;
  n.args = {body};
  for (int v : fillVarNodes) {
    STITCH_ASSERT(node(v).op == TOp::ReduceVar, "fill over a node that is not a reduce variable");
    n.reduceVars.push_back((int)node(v).index);
  }
  return add(std::move(n));
}

int ThreadGraph::localLoad(int fillNode, int flatIndex) {
  STITCH_ASSERT(node(fillNode).op == TOp::Fill, "local load from a node that is not a fill");
  STITCH_ASSERT(node(flatIndex).dtype == DType::i64, "local load index must be i64");
  TNode n;
  n.op = TOp::LocalLoad;
  n.dtype = node(fillNode).dtype;
  n.args = {fillNode, flatIndex};
  return add(std::move(n));
}

int ThreadGraph::blockIndex() {
  TNode n;
  n.op = TOp::BlockIndex;
  return add(std::move(n));
}

int ThreadGraph::substituteReduceVar(int node, int var, int with) {
  std::vector<int> copy(node + 1, -1);
  for (int i = 0; i <= node; ++i) {
    const TNode& n = nodes_[i];
    if (n.op == TOp::ReduceVar && n.index == var) {
      copy[i] = with;
      continue;
    }
    bool changed = false;
    for (int a : n.args) changed |= copy[a] != a;
    if (!changed) {
      copy[i] = i;
      continue;
    }
    TNode m = n;
    for (int& a : m.args) a = copy[a];
    copy[i] = add(std::move(m));
  }
  return copy[node];
}

int ThreadGraph::flatIndex(const std::vector<int>& idx, const std::vector<int64_t>& shape) {
  STITCH_ASSERT(idx.size() == shape.size(), "index rank ", idx.size(), " != shape rank ", shape.size());
  std::vector<int64_t> strides(shape.size(), 1);
  for (int d = (int)shape.size() - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  return stridedIndex(idx, strides, 0);
}

int ThreadGraph::stridedIndex(const std::vector<int>& idx, const std::vector<int64_t>& strides,
                              int64_t offset) {
  STITCH_ASSERT(idx.size() == strides.size(), "index rank ", idx.size(), " != stride rank ", strides.size());
  int sum = constInt(offset);
  bool first = offset == 0;
  for (size_t d = 0; d < idx.size(); ++d) {
    if (strides[d] == 0) continue;
    int term = strides[d] == 1 ? idx[d] : alu(AluOp::Mul, DType::i64, {idx[d], constInt(strides[d])});
    sum = first ? term : alu(AluOp::Add, DType::i64, {sum, term});
    first = false;
  }
  return sum;
}

std::string ThreadGraph::str() const {
  std::ostringstream o;
  o.precision(9);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const TNode& n = nodes_[i];
    o << "  %" << i << " = " << tOpName(n.op);
    switch (n.op) {
      case TOp::IterVar:
      case TOp::ReduceVar:
      case TOp::Param: o << ' ' << n.index; break;
      case TOp::Const:
        if (isFloating(n.dtype)) o << ' ' << n.fval;
        else o << ' ' << n.ival;
        break;
      case TOp::Load: o << " in" << n.index << " [%" << n.args[0] << "]"; break;
      case TOp::Alu:
        o << ' ' << aluOpName(n.alu);
        for (int a : n.args) o << " %" << a;
        break;
      case TOp::Cast: o << " %" << n.args[0]; break;
      case TOp::Reduce:
        o << ' ' << reduceOpName(n.reduce) << " %" << n.args[0] << " over";
        for (int r : n.reduceVars) o << " r" << r << "<" << reduceExtents_[r] << ">";
        break;
      case TOp::Fill:
        o << " local" << n.index << " <- %" << n.args[0] << " over";
        for (int r : n.reduceVars) o << " r" << r << "<" << reduceExtents_[r] << ">";
        break;
      case TOp::LocalLoad: o << " %" << n.args[0] << " [%" << n.args[1] << "]"; break;
      case TOp::BlockIndex: break;
    }
    o << " : " << dtypeName(n.dtype) << "\n";
  }
  for (const Store& s : stores_) o << "  store out" << s.output << " <- %" << s.value << "\n";
  return o.str();
}

}  // namespace stitch
