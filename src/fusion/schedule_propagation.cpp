#include "fusion/schedule_propagation.h"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "common/error.h"
#include "fusion/schedule_ops.h"
#include "ir/einsum_spec.h"
#include "ir/op_registry.h"
#include "ir/shape_util.h"

// The table works on static arguments only (constants after simplify); an
// argument it cannot read makes the op accept only the whole partition,
// which is always correct: one block computes everything.
namespace stitch {

using namespace schedule_ops;

namespace {

const Partition kWholePart{};

Partition splitAt(int64_t dim, const Partition& out) {
  return Partition{(int)dim, out.sword, SchedType::Row, out.extent, out.offset};
}

// An operand broadcast to the output (numpy rules, aligned right): it
// shares the split when it has the split dim at full size; a missing or
// size-1 dim means every block reads all of it.
Partition broadcastOperand(const Value* operand, const Dims& outShape, const Partition& out) {
  if (!knownTensor(operand)) return kWholePart;
  const Dims& s = shapeOf(operand);
  int64_t od = out.splitDim - ((int64_t)outShape.size() - (int64_t)s.size());
  if (od < 0 || od >= (int64_t)s.size() || s[od] != outShape[out.splitDim]) return kWholePart;
  return splitAt(od, out);
}

std::vector<Partition> allBroadcast(const Node& n, const Partition& out) {
  std::vector<Partition> ins;
  const Dims& os = shapeOf(n.output());
  for (const Value* in : n.inputs()) ins.push_back(broadcastOperand(in, os, out));
  return ins;
}

std::vector<Partition> allWhole(const Node& n) { return std::vector<Partition>(n.inputs().size(), kWholePart); }

// The view an Access op takes of its base, dim by dim: for each view dim the
// base dim it cuts the same way, or -1 (a new, broadcast or partly sliced
// dim: a block's part of the view needs more of the base than one part).
struct DimMap {
  Dims viewShape;
  std::vector<int64_t> baseDim;
};

std::optional<DimMap> accessMap(const std::string& op, const Node& n, size_t firstArg) {
  const Value* base = n.input(0);
  if (!knownTensor(base)) return std::nullopt;
  const Dims& shape = shapeOf(base);
  int64_t rank = (int64_t)shape.size();
  DimMap m;
  auto arg = [&](size_t i) { return n.input(firstArg + i); };
  if (op == "select") {
    auto d = constInt(arg(0));
    if (!d || rank == 0) return std::nullopt;
    int64_t dim = normalizeDim(*d, rank);
    for (int64_t k = 0; k < rank; ++k) {
      if (k == dim) continue;
      m.viewShape.push_back(shape[k]);
      m.baseDim.push_back(k);
    }
    return m;
  }
  if (op == "slice" || op == "narrow") {
    auto d = constInt(arg(0));
    if (!d || rank == 0) return std::nullopt;
    int64_t dim = normalizeDim(*d, rank);
    m.viewShape = shape;
    for (int64_t k = 0; k < rank; ++k) m.baseDim.push_back(k);
    // The sliced dim keeps the base's parts only when the slice is all of it.
    std::optional<int64_t> start = op == "narrow" ? constInt(arg(1)) : std::optional<int64_t>(0);
    std::optional<int64_t> end = shape[dim], step = 1;
    if (op == "slice") {
      if (!isNone(arg(1))) start = constInt(arg(1));
      if (!isNone(arg(2))) end = constInt(arg(2));
      step = constInt(arg(3));
    } else if (start) {
      auto length = constInt(arg(2));
      end = length ? std::optional<int64_t>(*start + *length) : std::nullopt;
    }
    bool full = start && end && step && *step == 1 && (*start == 0 || *start == -shape[dim]) &&
                *end >= shape[dim];
    if (!full) m.baseDim[dim] = -1;
    m.viewShape[dim] = -1;  // the caller reads sizes from the node's types
    return m;
  }
  if (op == "permute" || op == "transpose" || op == "t") {
    std::vector<int64_t> perm;
    for (int64_t k = 0; k < rank; ++k) perm.push_back(k);
    if (op == "permute") {
      auto dims = constIntList(arg(0));
      if (!dims || (int64_t)dims->size() != rank) return std::nullopt;
      for (int64_t k = 0; k < rank; ++k) perm[k] = normalizeDim((*dims)[k], rank);
    } else if (op == "transpose" || (op == "t" && rank == 2)) {
      auto d0 = op == "t" ? std::optional<int64_t>(0) : constInt(arg(0));
      auto d1 = op == "t" ? std::optional<int64_t>(1) : constInt(arg(1));
      if (!d0 || !d1 || rank == 0) return std::nullopt;
      std::swap(perm[normalizeDim(*d0, rank)], perm[normalizeDim(*d1, rank)]);
    }
    for (int64_t p : perm) m.viewShape.push_back(shape[p]);
    m.baseDim = perm;
    return m;
  }
  if (op == "unsqueeze") {
    auto d = constInt(arg(0));
    if (!d) return std::nullopt;
    int64_t dim = normalizeDim(*d, rank + 1);
    for (int64_t k = 0; k <= rank; ++k) {
      if (k == dim) {
        m.viewShape.push_back(1);
        m.baseDim.push_back(-1);
        continue;
      }
      int64_t b = k < dim ? k : k - 1;
      m.viewShape.push_back(shape[b]);
      m.baseDim.push_back(b);
    }
    return m;
  }
  if (op == "squeeze") {
    std::vector<bool> squeezed(rank, false);
    if (n.inputs().size() <= firstArg || isNone(arg(0))) {
      for (int64_t k = 0; k < rank; ++k) squeezed[k] = shape[k] == 1;
    } else {
      auto d = constInt(arg(0));
      if (!d) return std::nullopt;
      if (rank > 0) {
        int64_t dd = normalizeDim(*d, rank);
        squeezed[dd] = shape[dd] == 1;
      }
    }
    for (int64_t k = 0; k < rank; ++k) {
      if (squeezed[k]) continue;
      m.viewShape.push_back(shape[k]);
      m.baseDim.push_back(k);
    }
    return m;
  }
  if (op == "expand") {
    auto size = constIntList(arg(0));
    if (!size || size->size() < shape.size()) return std::nullopt;
    int64_t lead = (int64_t)size->size() - rank;
    for (int64_t k = 0; k < (int64_t)size->size(); ++k) {
      int64_t b = k - lead;
      bool kept = b >= 0 && ((*size)[k] == -1 || (*size)[k] == shape[b]);
      m.viewShape.push_back(kept ? shape[b] : (*size)[k]);
      m.baseDim.push_back(kept ? b : -1);
    }
    return m;
  }
  return std::nullopt;
}

// Reshape: a split of `from`'s dim d maps to dim e of `to` when both cut
// the same flat ranges: equal products of the dims before them and sword
// dividing both (then block b covers the same chunk of every outer row);
// a cat piece's rows map only to a dim of the same size.
std::optional<int64_t> reshapeDim(const Dims& from, int64_t d, const Partition& part, const Dims& to) {
  int64_t before = 1;
  for (int64_t k = 0; k < d; ++k) before *= from[k];
  int64_t acc = 1;
  for (size_t e = 0; e < to.size() && acc <= before; ++e) {
    bool same = part.ranged() ? to[e] == from[d] : to[e] % part.sword == 0;
    if (acc == before && same) return (int64_t)e;
    acc *= to[e];
  }
  return std::nullopt;
}

std::optional<std::vector<Partition>> accessRule(const Node& n, const std::string& op, const Partition& out) {
  const Value* base = n.input(0);
  if (!knownTensor(base)) return std::nullopt;
  std::vector<Partition> ins = allWhole(n);
  if (isReshape(op)) {
    auto e = reshapeDim(shapeOf(n.output()), out.splitDim, out, shapeOf(base));
    if (!e) return std::nullopt;
    ins[0] = splitAt(*e, out);
    return ins;
  }
  auto m = accessMap(op, n, 1);
  if (!m || out.splitDim >= (int64_t)m->baseDim.size()) return std::nullopt;
  int64_t b = m->baseDim[out.splitDim];
  if (b >= 0 && shapeOf(base)[b] == shapeOf(n.output())[out.splitDim]) ins[0] = splitAt(b, out);
  return ins;
}

// `op_rev(base, src, args...)`: the output is the base with the view region
// replaced by src; the base splits as the output, src as the view region
// does (then broadcast to src's shape), or whole where the region does not
// split along the output's split dim.
std::optional<std::vector<Partition>> assignRule(const Node& n, const std::string& op, const Partition& out) {
  const Value *base = n.input(0), *src = n.input(1);
  if (!knownTensor(base)) return std::nullopt;
  std::vector<Partition> ins = allWhole(n);
  ins[0] = out;
  if (!knownTensor(src)) return ins;
  if (isReshape(op)) {
    auto size = constIntList(n.input(2));
    if (!size) return ins;
    Dims view;
    try {
      view = inferViewShape(*size, numel(shapeOf(base)));
    } catch (const UserError&) {
      return ins;
    }
    auto e = reshapeDim(shapeOf(base), out.splitDim, out, view);
    if (e) ins[1] = broadcastOperand(src, view, splitAt(*e, out));
    return ins;
  }
  auto m = accessMap(op, n, 2);
  if (!m) return std::nullopt;
  for (size_t k = 0; k < m->baseDim.size(); ++k) {
    if (m->baseDim[k] != out.splitDim) continue;
    Dims view = m->viewShape;
    view[k] = shapeOf(base)[out.splitDim];
    ins[1] = broadcastOperand(src, view, splitAt((int64_t)k, out));
  }
  return ins;
}

std::optional<std::vector<Partition>> reduceRule(const Node& n, const Partition& out) {
  auto r = reduceInfo(n);
  if (!r) return std::nullopt;
  std::vector<Partition> ins = allWhole(n);
  const Dims& in = shapeOf(n.input(0));
  auto reduced = [&](int64_t d) { return std::find(r->dims.begin(), r->dims.end(), d) != r->dims.end(); };
  if (out.type == SchedType::Column) {
    // Column: the split runs along a reduced dim of the input; each block
    // folds its part of every reduction into a partial result.
    if (out.splitDim >= (int64_t)in.size() || !reduced(out.splitDim) || in[out.splitDim] % out.sword != 0)
      return std::nullopt;
    ins[0] = splitAt(out.splitDim, out);
    return ins;
  }
  // Row: the output dim is one the reduction keeps.
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < (int64_t)in.size(); ++d)
    if (!reduced(d) || r->keepdim) kept.push_back(d);
  if (out.splitDim >= (int64_t)kept.size()) return std::nullopt;
  int64_t d = kept[out.splitDim];
  if (reduced(d)) return std::nullopt;
  ins[0] = splitAt(d, out);
  return ins;
}

// Ops computing along one dim (softmax, cumsum): any other dim splits.
std::optional<std::vector<Partition>> alongDimRule(const Node& n, const Partition& out) {
  auto d = constInt(n.input(1));
  if (!d || !knownTensor(n.input(0))) return std::nullopt;
  int64_t rank = (int64_t)shapeOf(n.input(0)).size();
  if (rank == 0 || normalizeDim(*d, rank) == out.splitDim) return std::nullopt;
  std::vector<Partition> ins = allWhole(n);
  ins[0] = out;
  return ins;
}

// mm / bmm / matmul (numpy batch broadcasting), linear: batch and row dims
// split the first operand, column dims the second; K never splits.
std::optional<std::vector<Partition>> productRule(const Node& n, const Partition& out) {
  const Value *a = n.input(0), *b = n.input(1);
  if (!knownTensor(a) || !knownTensor(b)) return std::nullopt;
  const Dims &os = shapeOf(n.output()), &as = shapeOf(a), &bs = shapeOf(b);
  std::vector<Partition> ins = allWhole(n);
  int64_t d = out.splitDim, r = (int64_t)os.size();
  if (n.is("linear")) {
    if (d < r - 1) {
      ins[0] = broadcastOperand(a, os, out);
      return ins;
    }
    ins[1] = splitAt(0, out);
    if (n.inputs().size() > 2) ins[2] = broadcastOperand(n.input(2), os, out);
    return ins;
  }
  int64_t ra = (int64_t)as.size(), rb = (int64_t)bs.size();
  if (ra == 0 || rb == 0) return std::nullopt;
  int64_t nb = r - (ra > 1) - (rb > 1);
  if (d < nb) {
    // A batch dim: each operand's batch dims (all but its last two) align
    // right with the output's; a missing or size-1 one broadcasts (whole).
    auto batchSplit = [&](const Dims& s, int64_t rank) {
      int64_t k = d - (nb - (rank - 2));
      return rank > 2 && k >= 0 && s[k] == os[d] ? splitAt(k, out) : kWholePart;
    };
    ins[0] = batchSplit(as, ra);
    ins[1] = batchSplit(bs, rb);
    return ins;
  }
  if (d == nb && ra > 1) {
    ins[0] = splitAt(ra - 2, out);
    return ins;
  }
  if (rb > 1 && d == r - 1) {
    ins[1] = splitAt(rb - 1, out);
    return ins;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<Partition>> listElementPartitions(const Node& n, const Partition& out) {
  auto parts = listTensors(n.input(n.is("einsum") ? 1 : 0));
  if (!parts) return std::nullopt;
  std::vector<Partition> result(parts->size(), kWholePart);
  if (isWhole(out)) return result;
  const Dims& os = shapeOf(n.output());
  if (n.is("cat")) {
    auto d = constInt(n.input(1));
    if (!d) return std::nullopt;
    const bool along = normalizeDim(*d, (int64_t)os.size()) == out.splitDim;
    // Along the split dim, a block needs of each piece the rows its own
    // range of the output covers there (codegen computes each row's piece
    // only: loop pieces).
    const int64_t extent = out.ranged() ? out.extent : os[out.splitDim] / out.sword;
    int64_t start = 0;
    for (size_t i = 0; i < parts->size(); ++i) {
      const Dims& s = shapeOf((*parts)[i]);
      if (s.size() != os.size()) continue;  // an empty 1-d piece takes no part
      if (along) {
        if (s[out.splitDim] > 0) result[i] = Partition{out.splitDim, out.sword, SchedType::Row, extent, out.offset + start};
        start += s[out.splitDim];
      } else if (s[out.splitDim] == os[out.splitDim]) {
        result[i] = out;
      }
    }
    return result;
  }
  if (n.is("stack")) {
    auto d = constInt(n.input(1));
    if (!d) return std::nullopt;
    int64_t dim = normalizeDim(*d, (int64_t)os.size());
    if (out.splitDim == dim) return result;
    for (auto& p : result) p = splitAt(out.splitDim < dim ? out.splitDim : out.splitDim - 1, out);
    return result;
  }
  if (n.is("einsum")) {
    const Constant* eq = constantOf(n.input(0));
    if (!eq || !eq->isStr()) return std::nullopt;
    try {
      std::vector<int64_t> ranks;
      for (const Value* v : *parts) ranks.push_back((int64_t)shapeOf(v).size());
      EinsumLabels labels = resolveEinsumLabels(parseEinsumEquation(eq->toStr(), parts->size()), ranks);
      int label = labels.output.at(out.splitDim);
      for (size_t i = 0; i < parts->size(); ++i) {
        const std::vector<int>& ls = labels.inputs[i];
        if (std::count(ls.begin(), ls.end(), label) != 1) continue;  // absent, or a diagonal
        int64_t p = std::find(ls.begin(), ls.end(), label) - ls.begin();
        if (shapeOf((*parts)[i])[p] == os[out.splitDim]) result[i] = splitAt(p, out);
      }
    } catch (const UserError&) {
      return std::nullopt;
    }
    return result;
  }
  return std::nullopt;
}

namespace {

std::optional<std::vector<Partition>> propagateRule(const Node& n, const Partition& out) {
  if (n.outputs().size() != 1 || !knownTensor(n.output())) {
    if (isWhole(out)) return allWhole(n);
    return std::nullopt;
  }
  OpClass c = scheduleOpClass(n);
  if (out.type == SchedType::Column) {
    if (c != OpClass::Reduce || out.splitDim < 0 || out.sword < 1) return std::nullopt;
    return reduceRule(n, out);
  }
  if (isWhole(out)) return allWhole(n);
  const Dims& os = shapeOf(n.output());
  if (out.splitDim < 0 || out.splitDim >= (int64_t)os.size() ||
      (!out.ranged() && os[out.splitDim] % out.sword != 0))
    return std::nullopt;
  try {
    switch (c) {
      case OpClass::Elementwise: return allBroadcast(n, out);
      case OpClass::Creation: return allBroadcast(n, out);  // *_like: self has the output's shape
      case OpClass::Reduce: return reduceRule(n, out);
      case OpClass::AlongDim: return alongDimRule(n, out);
      case OpClass::Access: return accessRule(n, accessName(n), out);
      case OpClass::Assign: return assignRule(n, accessName(n), out);
      case OpClass::Product: return productRule(n, out);
      case OpClass::ListOp: return allWhole(n);  // the list's tensors: listElementPartitions
      case OpClass::PerDim: {
        // Copies that move elements within dims they name (flip, repeat,
        // tril / triu): a dim they leave alone splits as the output.
        std::vector<Partition> ins = allWhole(n);
        if (!keepsDim(n, out.splitDim)) return ins;
        ins[0] = broadcastOperand(n.input(0), os, out);
        return ins;
      }
      case OpClass::Unknown: return std::nullopt;
    }
  } catch (const UserError&) {
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<Partition>> propagateThrough(const Node& n, const Partition& out) {
  auto ins = propagateRule(n, out);
  // A cat piece's rows that an op cannot follow: every block computes the
  // whole of its inputs, as for a piece without rows.
  if (!ins && out.ranged()) return allWhole(n);
  return ins;
}

namespace {

// Backward walk state: the partition asked of each value so far.
class Propagation {
 public:
  Propagation(const std::vector<const Node*>& nodes) : members_(nodes.begin(), nodes.end()) {}

  // False when a member is asked for two different partitions.
  bool request(const Value* v, Partition p) {
    if (!v->type()->isTensor()) return true;
    p = normalized(p);
    auto [it, inserted] = map_.emplace(v, p);
    if (inserted || it->second == p) return true;
    // A cat piece's rows asked next to other rows or the whole: the whole
    // covers both.
    const bool rows = p.ranged() || it->second.ranged();
    if (rows && (isWhole(p) || isWhole(it->second) || (p.ranged() && it->second.ranged()))) {
      it->second = kWholePart;
      return true;
    }
    if (members_.count(v->node())) return false;
    it->second = kWholePart;  // read from outside: every block reads all of it
    return true;
  }

  bool propagate(const Node& n, const Partition& out) {
    auto ins = propagateThrough(n, out);
    if (!ins) return false;
    for (size_t i = 0; i < ins->size(); ++i)
      if (!request(n.input(i), (*ins)[i])) return false;
    if (scheduleOpClass(n) != OpClass::ListOp) return true;
    auto parts = listElementPartitions(n, out);
    if (!parts) return false;
    auto tensors = listTensors(n.input(n.is("einsum") ? 1 : 0));
    for (size_t i = 0; i < parts->size(); ++i)
      if (!request((*tensors)[i], (*parts)[i])) return false;
    return true;
  }

  PartitionMap& map() { return map_; }

 private:
  std::unordered_set<const Node*> members_;
  PartitionMap map_;
};

bool validOn(const Value* root, const Schedule& s) {
  if (s.sword < 1) return false;
  if (s.sword == 1 && s.type == SchedType::Row) return true;
  if (!knownTensor(root)) return false;
  const Dims& shape = shapeOf(root);
  if (s.type == SchedType::Row)
    return s.splitDim >= 0 && s.splitDim < (int64_t)shape.size() && shape[s.splitDim] % s.sword == 0;
  return true;  // Column: the reduction's rule checks the input dim
}

}  // namespace

std::optional<PartitionMap> propagateSchedule(const std::vector<const Node*>& nodes, const Value* root,
                                              const Schedule& schedule) {
  if (!validOn(root, schedule)) return std::nullopt;
  Propagation prop(nodes);
  const bool column = schedule.type == SchedType::Column;
  Partition rootPart{schedule.splitDim, schedule.sword, schedule.type};
  if (!column) prop.request(root, rootPart);
  // Members run in program order, so walking backwards reaches every
  // member after all its consumers in the group.
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const Node* n = *it;
    if (n->outputs().size() != 1 || !n->output()->type()->isTensor()) continue;  // lists: no data
    const Value* v = n->output();
    auto asked = prop.map().find(v);
    if (asked != prop.map().end()) {
      if (!prop.propagate(*n, asked->second)) return std::nullopt;
      continue;
    }
    // Not asked by any consumer: a root. One of the schedule root's shape
    // shares its split (its blocks write their part); another is computed
    // whole by every block.
    bool sameShape = knownTensor(v) && knownTensor(root) && shapeOf(v) == shapeOf(root);
    if (column) {
      if (!sameShape) return std::nullopt;
      if (!prop.propagate(*n, rootPart)) return std::nullopt;
      prop.map()[v] = Partition{kWhole, schedule.sword, SchedType::Column};
      continue;
    }
    Partition p = sameShape ? rootPart : kWholePart;
    prop.request(v, p);
    if (!prop.propagate(*n, normalized(p))) return std::nullopt;
  }
  if (!prop.map().count(root)) return std::nullopt;  // the root is no member's output
  return std::move(prop.map());
}

std::vector<Schedule> scheduleSpace(const Value* root) {
  std::vector<Schedule> out{Schedule{}};
  if (!knownTensor(root)) return out;
  const Dims& shape = shapeOf(root);
  for (size_t d = 0; d < shape.size(); ++d)
    for (int64_t s : divisors(shape[d]))
      if (s > 1) out.push_back(Schedule{(int)d, s, SchedType::Row});
  const Node* n = root->node();
  if (!n || n->outputs().size() != 1 || scheduleOpClass(*n) != OpClass::Reduce) return out;
  auto r = reduceInfo(*n);
  if (!r) return out;
  const Dims& in = shapeOf(n->input(0));
  for (int64_t d : r->dims)
    for (int64_t s : divisors(in[d]))
      if (s > 1) out.push_back(Schedule{(int)d, s, SchedType::Column});
  return out;
}

}  // namespace stitch
