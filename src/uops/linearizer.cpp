#include "uops/linearizer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "uops/linearizer_impl.h"
#include "ugraph/index_probe.h"
#include "uops/flat_rows.h"
#include "uops/loop_pieces.h"
#include "uops/output_tile.h"
#include "uops/reduce_order.h"

namespace stitch {

using linearizer_detail::Linearizer;

namespace {

// A loop piece [lo, hi) short enough to unroll.
bool isShortPiece(int64_t lo, int64_t hi) { return hi - lo <= kShortLoopTrips; }
// A loop shorter than this is not worth a vector loop of its own.
constexpr int64_t kMinVectorizedTrips = 8;
// A row's long piece runs flat only when the columns it computes in vain
// (the short pieces' ones) are at most this share of its own.
constexpr int64_t kFlatRestShare = 8;

bool hasEffect(UOpKind kind) {
  switch (kind) {
    case UOpKind::DefineGlobal:
    case UOpKind::DefineVar:
    case UOpKind::DefineLocal:
    case UOpKind::Special:
    case UOpKind::Loop:
    case UOpKind::EndLoop:
    case UOpKind::Store:
    case UOpKind::If:
    case UOpKind::EndIf: return true;
    case UOpKind::DefineAcc:
    case UOpKind::Const:
    case UOpKind::Load:
    case UOpKind::Alu:
    case UOpKind::Phi:
    case UOpKind::Cast:
    case UOpKind::FoldLanes: return false;
  }
  return true;
}

bool mergeableKind(UOpKind kind) {
  return kind == UOpKind::Const || kind == UOpKind::Load || kind == UOpKind::Alu || kind == UOpKind::Cast;
}

DType bufferDType(const Value* v) {
  STITCH_ASSERT(v->type() && v->type()->isTensor() && v->type()->dtype().has_value(),
                "kernel buffer without a known dtype");
  return *v->type()->dtype();
}

}  // namespace

namespace linearizer_detail {

void Linearizer::analyze() {
  const auto& nodes = tg_.nodes();
  const auto& shape = tg_.iterShape();
  loopOfDim_.assign(shape.size(), -1);
  for (size_t l = 0; l < block_.loops.size(); ++l)
    for (int d : block_.loops[l].iterDims) loopOfDim_.at(d) = (int)l;
  for (size_t d = 0; d < shape.size(); ++d)
    STITCH_ASSERT(loopOfDim_[d] >= 0, "kernel ", kernel_.name, ": iteration dim ", d, " in no loop");
  outDepth_.assign(nodes.size(), 0);
  rvars_.assign(nodes.size(), {});
  reduceVarNode_.assign(tg_.reduceExtents().size(), -1);
  bound_.assign(tg_.reduceExtents().size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const TNode& n = nodes[i];
    switch (n.op) {
      case TOp::IterVar: outDepth_[i] = positionOf_.at(loopOfDim_.at(n.index)) + 1; break;
      case TOp::ReduceVar:
        rvars_[i] = {(int)n.index};
        reduceVarNode_.at(n.index) = (int)i;
        break;
      case TOp::Const:
      case TOp::Param:
      case TOp::BlockIndex: break;
      case TOp::Load:
      case TOp::Alu:
      case TOp::Cast:
      case TOp::Reduce:
      case TOp::Fill:
      case TOp::LocalLoad: {
        std::vector<int> rv;
        for (int a : n.args) {
          STITCH_ASSERT(a < (int)i, "thread graph not in dependency order");
          outDepth_[i] = std::max(outDepth_[i], outDepth_[a]);
          rv.insert(rv.end(), rvars_[a].begin(), rvars_[a].end());
        }
        std::sort(rv.begin(), rv.end());
        rv.erase(std::unique(rv.begin(), rv.end()), rv.end());
        if (n.op == TOp::Reduce || n.op == TOp::Fill)
          for (int r : n.reduceVars) rv.erase(std::remove(rv.begin(), rv.end(), r), rv.end());
        rvars_[i] = std::move(rv);
        break;
      }
    }
  }
  needed_.assign(nodes.size(), 0);
  for (const auto& s : tg_.stores()) needed_.at(s.value) = 1;
  for (int i = (int)nodes.size() - 1; i >= 0; --i)
    if (needed_[i])
      for (int a : nodes[i].args) needed_[a] = 1;
  value_.assign(nodes.size(), -1);
}

int Linearizer::constOf(const TNode& n) {
  return isFloating(n.dtype) ? g_.constFloat(n.fval, n.dtype) : g_.constInt(n.ival, n.dtype);
}

int Linearizer::decodeIterVar(int dim) {
  const LoopDim& loop = block_.loops[loopOfDim_[dim]];
  const auto& shape = tg_.iterShape();
  int64_t after = 1;
  for (int d : loop.iterDims)
    if (d > dim) after *= shape[d];
  int q = g_.alu(AluOp::Div, DType::i64, {loopVar_[loopOfDim_[dim]], c(after)});
  return g_.alu(AluOp::Mod, DType::i64, {q, c(shape[dim])});
}

void Linearizer::emitNode(int i) {
  const TNode& n = tg_.node(i);
  auto arg = [&](int k) {
    int v = value_[n.args[k]];
    STITCH_ASSERT(v >= 0, "kernel ", kernel_.name, ": operand %", n.args[k], " of %", i, " not emitted");
    return v;
  };
  int v = -1;
  switch (n.op) {
    case TOp::IterVar: v = decodeIterVar((int)n.index); break;
    case TOp::ReduceVar: STITCH_ASSERT(false, "reduce variable used outside its reduction"); break;
    case TOp::Const: v = constOf(n); break;
    case TOp::BlockIndex: v = special_; break;
    case TOp::Param: {
      STITCH_ASSERT(n.index >= 0 && n.index < (int64_t)params_.size(), "parameter ", n.index, " out of range");
      v = params_[n.index];
      if (g_.at(v).dtype != n.dtype) v = g_.add(makeUOp(UOpKind::Cast, n.dtype, {v}));
      break;
    }
    case TOp::Load: {
      int slot = out_.numOutputs + (int)n.index;
      STITCH_ASSERT(slot < (int)buffers_.size(), "load from input ", n.index, " out of range");
      v = g_.add(makeUOp(UOpKind::Load, n.dtype, {buffers_[slot], arg(0)}));
      break;
    }
    case TOp::Alu: {
      std::vector<int> src;
      for (size_t k = 0; k < n.args.size(); ++k) src.push_back(arg((int)k));
      v = g_.alu(n.alu, n.dtype, std::move(src));
      break;
    }
    case TOp::Cast: v = g_.add(makeUOp(UOpKind::Cast, n.dtype, {arg(0)})); break;
    case TOp::Reduce: emitReduce(i); return;
    case TOp::Fill: emitFill(i); return;
    case TOp::LocalLoad: v = g_.add(makeUOp(UOpKind::Load, n.dtype, {arg(0), arg(1)}), false); break;
  }
  value_[i] = v;
}

void Linearizer::emitBodyNodes(int body, int r) {
  for (int k = 0; k <= body; ++k) {
    if (!needed_[k] || value_[k] >= 0 || tg_.node(k).op == TOp::ReduceVar) continue;
    const auto& rv = rvars_[k];
    if (std::find(rv.begin(), rv.end(), r) == rv.end()) continue;
    if (!std::all_of(rv.begin(), rv.end(), [&](int x) { return bound_[x] != 0; })) continue;
    emitNode(k);
  }
}

// A block-local buffer filled with its body at every point of its
// variables (row-major), where the loops its body needs are open: the
// buffer's DEFINE_LOCAL, then the fill loops. Its value is the buffer.
void Linearizer::emitFill(int i) {
  const TNode& n = tg_.node(i);
  const LocalBuffer& lb = block_.locals.at(n.index);
  UOp local = makeUOp(UOpKind::DefineLocal, n.dtype);
  local.name = lb.name;
  local.ival = lb.elements;
  local.arg = lb.offset;
  const int buffer = g_.add(local, false);
  std::vector<int> loops;
  const int body = n.args[0];
  // A variable of extent 1 (a tile row of a block that owns one index of
  // the split dim) is the constant 0, not a loop: the one other variable's
  // fill can then be cut into pieces.
  std::vector<int> unit, vars;
  for (int r : n.reduceVars) (tg_.reduceExtent(r) == 1 ? unit : vars).push_back(r);
  for (int r : unit) {
    value_[reduceVarNode_.at(r)] = c(0);
    bound_[r] = 1;
    emitBodyNodes(body, r);
  }
  if (vars.size() == 1) {
    std::vector<int64_t> pieces = fillPieces(vars[0], body);
    if (!pieces.empty()) return emitPiecedFill(i, buffer, vars[0], pieces, unit);
  }
  if (n.reduceVars.size() == 1 && fillsByColumns(i)) return emitColumnFill(i, buffer);
  int flat = c(0);
  for (int r : vars) {
    int l = loopUOp(c(0), c(tg_.reduceExtent(r)));
    loops.push_back(l);
    value_[reduceVarNode_.at(r)] = l;
    bound_[r] = 1;
    flat = g_.alu(AluOp::Add, DType::i64, {g_.alu(AluOp::Mul, DType::i64, {flat, c(tg_.reduceExtent(r))}), l});
    emitBodyNodes(body, r);
  }
  int v = value_[body];
  STITCH_ASSERT(v >= 0, "fill body of %", i, " not emitted");
  g_.add(makeUOp(UOpKind::Store, n.dtype, {buffer, flat, v}), false);
  for (auto it = loops.rbegin(); it != loops.rend(); ++it)
    g_.add(makeUOp(UOpKind::EndLoop, DType::i64, {*it}), false);
  for (int r : n.reduceVars) bound_[r] = 0;
  // Values computed inside the fill loops are out of scope after them.
  for (size_t k = 0; k < value_.size(); ++k)
    for (int r : n.reduceVars)
      if (std::find(rvars_[k].begin(), rvars_[k].end(), r) != rvars_[k].end()) value_[k] = -1;
  value_[i] = buffer;
}

// A fill over one variable f whose body is a reduction R (nothing else:
// `tile[f] = sum_k w[k, f] * x[k]`, a product the consumer reads whole)
// and which reads some operand contiguously along f but not along R's
// innermost variable (w's rows). Filled element by element, every element
// walks a column of w with a stride; filled by columns (R's loops outside,
// the tile as the accumulators, f innermost), every step is one
// contiguous row: vector loads and fused multiply-adds across f. Each
// element still folds R's terms in order (serially: no lanes).
bool Linearizer::fillsByColumns(int i) const {
  const TNode& fill = tg_.node(i);
  const int f = fill.reduceVars[0], body = fill.args[0];
  const TNode& red = tg_.node(body);
  if (red.op != TOp::Reduce || red.dtype != fill.dtype || red.reduceVars.empty() || tg_.reduceExtent(f) < 16)
    return false;
  // R must serve this fill only, and its operand may hold no reduction or
  // fill of its own still to emit (their loops would nest in f's).
  for (int k = 0; k < (int)tg_.nodes().size(); ++k) {
    if (!needed_[k] || k == i) continue;
    const TNode& m = tg_.node(k);
    if (std::find(m.args.begin(), m.args.end(), body) != m.args.end()) return false;
  }
  const int r = red.reduceVars.back();
  bool contiguousOnF = false;
  std::vector<char> sub(body + 1, 0);
  sub[red.args[0]] = 1;
  for (int k = red.args[0]; k >= 0; --k) {
    if (!sub[k]) continue;
    const TNode& m = tg_.node(k);
    if ((m.op == TOp::Reduce || m.op == TOp::Fill) && value_[k] < 0) return false;
    if (m.op == TOp::Reduce || m.op == TOp::Fill) continue;
    for (int a : m.args) sub[a] = 1;
    if (m.op != TOp::Load) continue;
    IndexProbe probe(tg_, {TOp::ReduceVar, f}, {TOp::ReduceVar, r});
    auto base = probe.at(m.args[0], false, false), df = probe.at(m.args[0], true, false),
         dr = probe.at(m.args[0], false, true);
    if (!base || !df || !dr) continue;
    if (*df == *base) continue;          // x[k]: one value for every element of the tile
    if (*dr - *base == 1) return false;  // contiguous along the reduction: the plain order
    if (*df - *base == 1) contiguousOnF = true;
  }
  return contiguousOnF;
}

void Linearizer::emitColumnFill(int i, int buffer) {
  const TNode& fill = tg_.node(i);
  const int f = fill.reduceVars[0], body = fill.args[0];
  const TNode& red = tg_.node(body);
  const DType acc = red.dtype;
  const int64_t extent = tg_.reduceExtent(f);
  auto endLoop = [&](int l) { g_.add(makeUOp(UOpKind::EndLoop, DType::i64, {l}), false); };
  int init = g_.add(reduceInit(red.reduce, acc));
  int l = loopUOp(c(0), c(extent));
  g_.add(makeUOp(UOpKind::Store, acc, {buffer, l, init}), false);
  endLoop(l);
  // The innermost reduce variable k advances `jam` terms per pass over f
  // (unroll and jam): each element takes the same terms in the same order,
  // but is loaded and stored once per `jam` of them (a GEMV's tile was
  // bound by its stores).
  const int last = red.reduceVars.back();
  const int64_t lastExtent = tg_.reduceExtent(last);
  const int64_t jam = termsPerPass(lastExtent);
  std::vector<int> loops;
  for (int r : red.reduceVars) {
    const bool jammed = r == last;
    int lr = loopUOp(c(0), c(jammed ? lastExtent / jam : tg_.reduceExtent(r)));
    loops.push_back(lr);
    if (jammed) break;  // bound per term inside f's loop
    value_[reduceVarNode_.at(r)] = lr;
    bound_[r] = 1;
    emitBodyNodes(red.args[0], r);  // what does not depend on f: x[k]
  }
  int lf = loopUOp(c(0), c(extent));
  value_[reduceVarNode_.at(f)] = lf;
  bound_[f] = 1;
  // What depends on f but not on the terms (z[f] in prod_k(z[f] - y[k])),
  // before the terms that read it.
  emitBodyNodes(red.args[0], f);
  // Not cachable: the element changes between loads.
  int folded = g_.add(makeUOp(UOpKind::Load, acc, {buffer, lf}), false);
  const int start = g_.alu(AluOp::Mul, DType::i64, {loops.back(), c(jam)});
  for (int64_t u = 0; u < jam; ++u) {
    value_[reduceVarNode_.at(last)] = g_.alu(AluOp::Add, DType::i64, {start, c(u)});
    bound_[last] = 1;
    emitBodyNodes(red.args[0], last);
    int v = value_[red.args[0]];
    STITCH_ASSERT(v >= 0, "column fill body of %", i, " not emitted");
    if (g_.at(v).dtype != acc) v = g_.add(makeUOp(UOpKind::Cast, acc, {v}));
    folded = combine(red.reduce, acc, folded, v);
    // The next term's values are its own.
    for (size_t k = 0; k < value_.size(); ++k) {
      const auto& rv = rvars_[k];
      if (tg_.node((int)k).op != TOp::ReduceVar && std::find(rv.begin(), rv.end(), last) != rv.end()) value_[k] = -1;
    }
  }
  g_.add(makeUOp(UOpKind::Store, acc, {buffer, lf, folded}), false);
  endLoop(lf);
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) endLoop(*it);
  bound_[f] = 0;
  for (int r : red.reduceVars) bound_[r] = 0;
  // Values computed inside these loops are out of scope after them.
  for (size_t k = 0; k < value_.size(); ++k) {
    const auto& rv = rvars_[k];
    bool inside = std::find(rv.begin(), rv.end(), f) != rv.end();
    for (int r : red.reduceVars) inside |= std::find(rv.begin(), rv.end(), r) != rv.end();
    if (inside) value_[k] = -1;
  }
  value_[reduceVarNode_.at(f)] = -1;
  for (int r : red.reduceVars) value_[reduceVarNode_.at(r)] = -1;
  value_[i] = buffer;
}

// The nodes of a fill's body that depend on its variable r.
std::vector<int64_t> Linearizer::fillPieces(int r, int body) const {
  std::vector<int> nodes;
  for (int k = 0; k <= body; ++k)
    if (needed_[k] && std::find(rvars_[k].begin(), rvars_[k].end(), r) != rvars_[k].end()) nodes.push_back(k);
  return loopPieces(tg_, nodes, reduceVarNode_.at(r), tg_.reduceExtent(r));
}

// A fill over one variable whose body compares it with constants
// (loop_pieces.h): one fill loop per piece, each emitting the body afresh
// under its own bounds, so the comparisons fold there.
void Linearizer::emitPiecedFill(int i, int buffer, int r, const std::vector<int64_t>& bounds,
                                const std::vector<int>& unit) {
  const TNode& n = tg_.node(i);
  const int body = n.args[0];
  auto onFillVar = [&](const std::vector<int>& rv) {
    if (std::find(rv.begin(), rv.end(), r) != rv.end()) return true;
    return std::any_of(unit.begin(), unit.end(), [&](int u) { return std::find(rv.begin(), rv.end(), u) != rv.end(); });
  };
  // The next piece emits the body again: what depends on r, and what lived
  // in the (closed) loops of reductions inside the body, is out of scope.
  // The unit variables (constant 0, emitFill) stay bound across pieces, as
  // do the variables of loops still open around the fill (an enclosing
  // fill's: a softmax tile filled per element of a tile around it).
  auto isUnitVarNode = [&](int k) {
    return std::any_of(unit.begin(), unit.end(), [&](int u) { return reduceVarNode_.at(u) == k; });
  };
  auto forgetPiece = [&] {
    for (size_t k = 0; k < value_.size(); ++k) {
      const auto& rv = rvars_[k];
      bool onR = std::find(rv.begin(), rv.end(), r) != rv.end();
      bool inClosedLoop = !rv.empty() && std::none_of(rv.begin(), rv.end(), [&](int x) { return bound_[x] != 0; });
      bool otherVar = tg_.node((int)k).op == TOp::ReduceVar && (int)k != reduceVarNode_.at(r) &&
                      !isUnitVarNode((int)k) && bound_[tg_.node((int)k).index] == 0;
      if (onR || inClosedLoop || otherVar) value_[k] = -1;
    }
  };
  for (size_t p = 0; p + 1 < bounds.size(); ++p) {
    int l = loopUOp(c(bounds[p]), c(bounds[p + 1]));
    value_[reduceVarNode_.at(r)] = l;
    bound_[r] = 1;
    emitBodyNodes(body, r);
    int v = value_[body];
    STITCH_ASSERT(v >= 0, "fill body of %", i, " not emitted");
    g_.add(makeUOp(UOpKind::Store, n.dtype, {buffer, l, v}), false);
    g_.add(makeUOp(UOpKind::EndLoop, DType::i64, {l}), false);
    forgetPiece();
  }
  bound_[r] = 0;
  for (int u : unit) bound_[u] = 0;
  // Values computed for the fill are out of scope after it.
  for (size_t k = 0; k < value_.size(); ++k)
    if (onFillVar(rvars_[k])) value_[k] = -1;
  value_[i] = buffer;
}

void Linearizer::emitLevel(int level) {
  for (int k = 0; k < (int)tg_.nodes().size(); ++k)
    if (needed_[k] && value_[k] < 0 && outDepth_[k] == level && rvars_[k].empty() &&
        tg_.node(k).op != TOp::ReduceVar)
      emitNode(k);
}

int Linearizer::openLoopUOp(int l, int* offset) {
  const LoopDim& loop = block_.loops[l];
  *offset = -1;
  if (l == splitLoop_) {
    int64_t be = chunk_;
    int start = g_.alu(AluOp::Mul, DType::i64, {special_, c(be)});
    int stop = g_.alu(AluOp::Mul, DType::i64, {g_.alu(AluOp::Add, DType::i64, {special_, c(1)}), c(be)});
    int end = g_.alu(AluOp::Min, DType::i64, {stop, c(loop.extent)});
    int minusStart = g_.alu(AluOp::Mul, DType::i64, {start, c(-1)});  // before the loop: invariant
    int u = loopUOp(start, end);
    loopVar_[l] = u;
    *offset = g_.alu(AluOp::Add, DType::i64, {u, minusStart});
    return u;
  }
  if (loop.extent == 1) {
    loopVar_[l] = c(0);
    *offset = loopVar_[l];
    return -1;
  }
  int u = loopUOp(c(0), c(loop.extent));
  loopVar_[l] = u;
  *offset = u;
  return u;
}

void Linearizer::openLoop(int l) {
  int offset;
  int u = openLoopUOp(l, &offset);
  if (u >= 0) loopUOps_.push_back(u);
}

void Linearizer::run() {
  for (const Value* v : kernel_.outputs) out_.buffers.push_back(bufferDType(v));
  for (const Value* v : kernel_.inputs) out_.buffers.push_back(bufferDType(v));
  out_.numOutputs = (int)kernel_.outputs.size();
  for (const Value* v : kernel_.params) out_.params.push_back(kernelParamDType(v));
  for (size_t s = 0; s < out_.buffers.size(); ++s) {
    UOp u = makeUOp(UOpKind::DefineGlobal, out_.buffers[s]);
    u.arg = (int64_t)s;
    u.name = "data";
    u.name += std::to_string(s);
    u.ival = (int)s < out_.numOutputs ? 1 : 0;
    buffers_.push_back(g_.add(u, false));
  }
  for (size_t p = 0; p < out_.params.size(); ++p) {
    UOp u = makeUOp(UOpKind::DefineVar, out_.params[p]);
    u.arg = (int64_t)p;
    u.name = "p";
    u.name += std::to_string(p);
    params_.push_back(g_.add(u, false));
  }
  if (block_.column) {
    // Partial results of every block, shared by all of them: a DEFINE_LOCAL
    // before the grid (the renderer allocates it per call).
    UOp partials = makeUOp(UOpKind::DefineLocal, tg_.node(block_.column->reduce).dtype);
    partials.name = "partials";
    int64_t outputs = 1;
    for (const LoopDim& l : block_.loops) outputs *= l.extent;
    partials.ival = block_.column->parts * outputs;
    partials_ = g_.add(partials, false);
  }
  UOp sp = makeUOp(UOpKind::Special, DType::i64);
  sp.name = "gidx0";
  sp.ival = block_.grid.empty() ? 1 : block_.grid[0];
  special_ = g_.add(sp, false);

  STITCH_ASSERT(!block_.loops.empty(), "kernel ", kernel_.name, " without loops");
  for (const LoopDim& l : block_.loops)
    if (l.extent == 0) return;  // no element: the kernel does nothing
  const int numLoops = (int)block_.loops.size();
  if (block_.column) return runColumn();
  order_ = outputLoopOrder(block_);
  positionOf_.assign(numLoops, -1);
  for (int p = 0; p < numLoops; ++p) positionOf_.at(order_.at(p)) = p;
  loopVar_.assign(numLoops, -1);
  // The grid splits loops[0] in blocks of blockExtent, unless loops[0] went
  // inside loops a reduction depends on: then every block would redo the
  // reduction, and the grid's blocks split the outermost loop instead.
  splitLoop_ = order_[0];
  chunk_ = block_.blockExtent;
  if (block_.fromSchedule) {
    // The group's schedule fixed the split (block_graph_builder.h): blocks
    // keep it whatever the loop order, so each computes its own tile.
    splitLoop_ = block_.splitLoop;
  } else if (splitLoop_ != 0) {
    int64_t blocks = std::max<int64_t>(sp.ival, 1), extent = block_.loops[splitLoop_].extent;
    chunk_ = (extent + blocks - 1) / blocks;
  }
  analyze();
  outer_ = outerReduceNodes(block_, order_, splitLoop_, chunk_);
  outerAt_ = outer_.empty() ? -1 : outerReducesDepth(outer_);
  emitLevel(0);
  emitLoopsFrom(0);
}

// The output loops from depth `from` on (the ones outside it are open and
// the nodes of depth `from` emitted), the stores, and their ENDLOOPs.
void Linearizer::emitLoopsFrom(int from) {
  const int numLoops = (int)block_.loops.size();
  for (int p = from; p < numLoops; ++p) {
    if (p == numLoops - 1 && outer_.empty() && unrollsInnerLoop(order_[p])) return emitUnrolledInnerLoop(order_[p]);
    if (outer_.empty()) {
      std::vector<int64_t> pieces = loopPiecesAt(p);
      if (!pieces.empty() && p == numLoops - 1) return emitPiecedInnerLoop(order_[p], pieces);
      if (!pieces.empty()) return emitPiecedOuterLoop(p, pieces);
      if (p == numLoops - 2) {
        std::vector<int64_t> inner = loopPiecesAt(p + 1);
        if (splitsShortPieces(p, inner)) return emitShortPiecesApart(p, inner);
      }
    }
    if (p == outerAt_) emitOuterReduces(outer_);
    if (p == numLoops - 1 && !outer_.empty()) {
      int offset;
      loopUOps_.push_back(openInnerReloading(&offset));
    } else {
      openLoop(order_[p]);
    }
    emitLevel(p + 1);
  }
  emitStores(outputIndex());
  closeLoops();
}

// An innermost output loop of a few iterations (an HWC image's channels)
// is written out once per iteration with its variable a constant: index
// arithmetic and selects on it fold away, and the loop around it becomes
// the innermost one, long and contiguous, which the C compiler vectorizes
// (normalize's channel swap: 4x faster than a 3-iteration inner loop).
bool Linearizer::unrollsInnerLoop(int l) const {
  if (!mayUnroll_ || block_.loops.size() < 2 || l == splitLoop_ || block_.loops[l].extent > kShortLoopTrips)
    return false;
  // Only element math inside: a reduction or a tile fill there defines its
  // accumulators and buffers once per copy, under one name.
  const int depth = (int)block_.loops.size();
  for (size_t k = 0; k < tg_.nodes().size(); ++k) {
    const TOp op = tg_.node((int)k).op;
    if (needed_[k] && outDepth_[k] == depth && (op == TOp::Reduce || op == TOp::Fill)) return false;
  }
  return true;
}

void Linearizer::emitUnrolledInnerLoop(int l) {
  unrolled_ = true;
  const int depth = (int)block_.loops.size();
  for (int64_t i = 0; i < block_.loops[l].extent; ++i) {
    loopVar_[l] = c(i);
    emitLevel(depth);
    emitStores(outputIndex());
    forgetInnerLoopValues();
  }
  closeLoops();
}

// The next copy of the innermost loop's body recomputes what depends on its
// variable, and what lives inside a reduction's (now closed) loops.
void Linearizer::forgetInnerLoopValues() { forgetValuesFrom((int)block_.loops.size()); }

// Values that live inside the output loop at depth - 1 (or inside a
// reduction's loops) are out of scope once it closed.
void Linearizer::forgetValuesFrom(int depth) {
  for (size_t k = 0; k < value_.size(); ++k)
    if (outDepth_[k] >= depth || !rvars_[k].empty() || tg_.node((int)k).op == TOp::ReduceVar) value_[k] = -1;
}

// The pieces (loop_pieces.h) of the output loop at depth p: a loop over one
// iteration dim, split where the nodes inside it compare its variable with
// constants (the rows of a cat along it).
std::vector<int64_t> Linearizer::loopPiecesAt(int p) const {
  const int l = order_[p];
  const LoopDim& loop = block_.loops[l];
  if (loop.iterDims.size() != 1 || loop.extent < 2) return {};
  int var = -1;
  std::vector<int> nodes;
  for (int k = 0; k < (int)tg_.nodes().size(); ++k) {
    const TNode& n = tg_.node(k);
    if (n.op == TOp::IterVar && n.index == loop.iterDims[0]) var = k;
    if (needed_[k] && (outDepth_[k] > p || !rvars_[k].empty())) nodes.push_back(k);
  }
  if (var < 0) return {};
  return loopPieces(tg_, nodes, var, loop.extent);
}

// Loop l over [lo, hi); the grid's split loop over that piece of this
// block's share (empty in the blocks whose share misses it).
std::pair<int, int> Linearizer::pieceBounds(int l, int64_t lo, int64_t hi) {
  if (l != splitLoop_) return {c(lo), c(hi)};
  int start = g_.alu(AluOp::Mul, DType::i64, {special_, c(chunk_)});
  int stop = g_.alu(AluOp::Mul, DType::i64, {g_.alu(AluOp::Add, DType::i64, {special_, c(1)}), c(chunk_)});
  return {g_.alu(AluOp::Max, DType::i64, {start, c(lo)}), g_.alu(AluOp::Min, DType::i64, {stop, c(hi)})};
}

int Linearizer::pieceLoopUOp(int l, int64_t lo, int64_t hi) {
  const auto [start, end] = pieceBounds(l, lo, hi);
  return loopUOp(start, end);
}

// An output loop outside the innermost one as consecutive loops over its
// pieces, each emitting the loops inside it and their nodes afresh.
void Linearizer::emitPiecedOuterLoop(int p, const std::vector<int64_t>& bounds) {
  const int l = order_[p];
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    int u = pieceLoopUOp(l, bounds[k], bounds[k + 1]);
    loopVar_[l] = u;
    loopUOps_.push_back(u);
    const size_t floor = loopFloor_;
    loopFloor_ = loopUOps_.size();
    emitLevel(p + 1);
    emitLoopsFrom(p + 1);
    loopFloor_ = floor;
    g_.add(makeUOp(UOpKind::EndLoop, DType::i64, {u}), false);
    loopUOps_.pop_back();
    forgetValuesFrom(p + 1);
  }
  closeLoops();
}

// The innermost output loop as consecutive loops over its pieces, each
// emitting the element's nodes afresh under its own bounds.
void Linearizer::emitPiecedInnerLoop(int l, const std::vector<int64_t>& bounds) {
  std::vector<std::pair<int64_t, int64_t>> pieces;
  for (size_t p = 0; p + 1 < bounds.size(); ++p) pieces.emplace_back(bounds[p], bounds[p + 1]);
  emitInnerPieces(l, pieces);
  closeLoops();
}

void Linearizer::emitInnerPieces(int l, const std::vector<std::pair<int64_t, int64_t>>& pieces) {
  const int depth = (int)block_.loops.size();
  for (const auto& [lo, hi] : pieces) {
    int u = pieceLoopUOp(l, lo, hi);
    loopVar_[l] = u;
    emitLevel(depth);
    emitStores(outputIndex());
    g_.add(makeUOp(UOpKind::EndLoop, DType::i64, {u}), false);
    forgetInnerLoopValues();
  }
}

// Whether the innermost loop's pieces (innerBounds) mix short ones (a
// slice of two columns: sigmoid of x[..., 0:2]) with long ones, inside a
// loop at depth p long enough to vectorize. The short pieces' scalar
// transcendentals then cost as much as the long piece's vectors (the YOLO
// head's row: 4 scalar calls against 10 vectors of 8); run apart, in a
// loop of their own over p's variable with the short loops unrolled, they
// vectorize along p.
bool Linearizer::splitsShortPieces(int p, const std::vector<int64_t>& innerBounds) const {
  const int l = order_[p], inner = order_[p + 1];
  if (!mayUnroll_ || innerBounds.empty() || inner == splitLoop_ ||
      (l == splitLoop_ ? chunk_ : block_.loops[l].extent) < kMinVectorizedTrips)
    return false;
  bool anyShort = false, anyLong = false;
  for (size_t k = 0; k + 1 < innerBounds.size(); ++k)
    (isShortPiece(innerBounds[k], innerBounds[k + 1]) ? anyShort : anyLong) = true;
  return anyShort && anyLong;
}

// The loop at depth p twice: once around the innermost loop's short
// pieces, once around its long ones. Each element is still computed once,
// from the same nodes (only the order of the stores changes: the pieces
// write disjoint columns of the outputs, which no kernel reads). One long
// piece with a short rest (at most an eighth of it) goes first and runs
// flat where its rows lie back to back (flat_rows.h): the YOLO head's
// sigmoid over x[..., 4:85] as one loop of 3396 columns, not 40 of 81, each
// with a vector tail and a scalar one; the short pieces after it write the
// 4 extra columns per row again. Where the grid splits the rows themselves
// (the head on one thread), the same over the block's chunk of them.
void Linearizer::emitShortPiecesApart(int p, const std::vector<int64_t>& innerBounds) {
  const int l = order_[p], inner = order_[p + 1];
  const int64_t rows = block_.loops[l].extent, rowLength = block_.loops[inner].extent;
  std::vector<std::pair<int64_t, int64_t>> shortPieces, longPieces;
  for (size_t k = 0; k + 1 < innerBounds.size(); ++k)
    (isShortPiece(innerBounds[k], innerBounds[k + 1]) ? shortPieces : longPieces)
        .emplace_back(innerBounds[k], innerBounds[k + 1]);
  const int64_t longWidth = longPieces.front().second - longPieces.front().first;
  const bool mayRunFlat =
      options_.flatRows && longPieces.size() == 1 && (rowLength - longWidth) * kFlatRestShare <= longWidth;
  for (bool shortOnes : {!mayRunFlat, mayRunFlat}) {
    const auto& pieces = shortOnes ? shortPieces : longPieces;
    const bool flat = mayRunFlat && !shortOnes;
    // The rows this block runs, [first, last): all of them, or where the
    // blocks split them, the block's chunk. Flat, the row loop runs once, at
    // `first`, and the column loop from its column a to the last row's b;
    // these bounds exist before the loops they will bound.
    const auto [first, last] = pieceBounds(l, 0, rows);
    int rowEnd = -1, flatStart = -1, flatEnd = -1;
    if (flat) {
      rowEnd = g_.alu(AluOp::Add, DType::i64, {first, c(1)});
      flatStart = c(longPieces.front().first);
      const int spanRows = g_.alu(AluOp::Sub, DType::i64, {g_.alu(AluOp::Sub, DType::i64, {last, first}), c(1)});
      flatEnd = g_.alu(AluOp::Add, DType::i64,
                       {g_.alu(AluOp::Mul, DType::i64, {spanRows, c(rowLength)}), c(longPieces.front().second)});
    }
    int u = loopUOp(first, last);
    loopVar_[l] = u;
    loopUOps_.push_back(u);
    emitLevel(p + 1);
    emitInnerPieces(inner, pieces);
    const int column = loopVar_[inner];
    g_.add(makeUOp(UOpKind::EndLoop, DType::i64, {u}), false);
    loopUOps_.pop_back();
    forgetValuesFrom(p + 1);
    if (flat && runsFlat(g_, u, column, rowLength)) {
      g_.setLoopBounds(u, first, rowEnd);
      g_.setLoopBounds(column, flatStart, flatEnd);
    }
  }
  closeLoops();
}

// Row-major output index: a loop's dims are consecutive, so the loop
// variable times the size of the dims after them.
int Linearizer::outputIndex() {
  const auto& shape = tg_.iterShape();
  int index = c(0);
  for (int l = 0; l < (int)block_.loops.size(); ++l) {
    const auto& dims = block_.loops[l].iterDims;
    if (dims.empty()) continue;
    int64_t stride = 1;
    for (size_t d = dims.back() + 1; d < shape.size(); ++d) stride *= shape[d];
    int term = g_.alu(AluOp::Mul, DType::i64, {loopVar_[l], c(stride)});
    index = g_.alu(AluOp::Add, DType::i64, {index, term});
  }
  return index;
}

void Linearizer::closeLoops() {
  while (loopUOps_.size() > loopFloor_) {
    g_.add(makeUOp(UOpKind::EndLoop, DType::i64, {loopUOps_.back()}), false);
    loopUOps_.pop_back();
  }
}

void Linearizer::emitStores(int index) {
  for (const auto& s : tg_.stores()) {
    STITCH_ASSERT(s.output >= 0 && s.output < out_.numOutputs, "store to output ", s.output, " out of range");
    int v = value_.at(s.value);
    STITCH_ASSERT(v >= 0, "stored value %", s.value, " not emitted");
    DType dt = out_.buffers[s.output];
    if (g_.at(v).dtype != dt) v = g_.add(makeUOp(UOpKind::Cast, dt, {v}));
    g_.add(makeUOp(UOpKind::Store, dt, {buffers_[s.output], index, v}), false);
  }
}

}  // namespace linearizer_detail

UOpGraph withoutDeadUOps(const UOpGraph& g) {
  const auto& uops = g.uops();
  // A store into a block-local buffer that no live uop reads (a loop piece
  // folded away the select that read it) is dead too: liveness to a fixed
  // point, each round dropping the stores of buffers only dead loads read.
  std::vector<char> live(uops.size(), 1);
  for (bool changed = true; changed;) {
    std::vector<char> read(uops.size(), 0);
    for (size_t i = 0; i < uops.size(); ++i)
      if (live[i] && (uops[i].kind == UOpKind::Load || uops[i].kind == UOpKind::FoldLanes)) read[uops[i].src[0]] = 1;
    std::vector<char> next(uops.size(), 0);
    for (int i = (int)uops.size() - 1; i >= 0; --i) {
      const UOp& u = uops[i];
      bool deadStore = u.kind == UOpKind::Store && uops[u.src[0]].kind == UOpKind::DefineLocal && !read[u.src[0]];
      if (hasEffect(u.kind) && !deadStore) next[i] = 1;
      if (next[i])
        for (int s : u.src) next[s] = 1;
    }
    changed = next != live;
    live = std::move(next);
  }
  UOpGraph out;
  std::vector<int> map(uops.size(), -1);
  for (size_t i = 0; i < uops.size(); ++i) {
    if (!live[i]) continue;
    UOp u = uops[i];
    for (int& s : u.src) s = map[s];
    map[i] = out.add(std::move(u), mergeableKind(uops[i].kind));
  }
  return out;
}

namespace {

// Whether an integer division or remainder runs in some innermost loop.
bool divisionInInnermostLoop(const UOpGraph& g) {
  const auto& uops = g.uops();
  std::vector<int> open;  // LOOP uops, outer to inner
  bool nested = false;    // the innermost open loop contains another loop
  bool division = false;  // ... or a division
  for (const UOp& u : uops) {
    if (u.kind == UOpKind::Loop) {
      open.push_back(0);
      nested = false, division = false;
    } else if (u.kind == UOpKind::EndLoop && !open.empty()) {
      if (!nested && division) return true;
      open.pop_back();
      nested = true, division = false;
    } else if (u.kind == UOpKind::Alu && u.dtype == DType::i64 &&
               (u.alu == AluOp::Div || u.alu == AluOp::Mod || u.alu == AluOp::FloorDiv || u.alu == AluOp::Remainder)) {
      division = true;
    }
  }
  return false;
}

KernelUOps linearizeWith(const Kernel& kernel, bool mayUnroll, const LinearizeOptions& options, bool* unrolled) {
  KernelUOps out;
  out.name = kernel.name;
  Linearizer lin(kernel, out, mayUnroll, options);
  lin.run();
  *unrolled = lin.unrolled();
  out.uops = withoutDeadUOps(out.uops);
  if (options.tilesInOutputs) out.uops = withoutDeadUOps(fillTilesInOutputs(out.uops));
  return out;
}

}  // namespace

KernelUOps linearize(const Kernel& kernel, const LinearizeOptions& options) {
  STITCH_ASSERT(kernel.kind == KernelKind::GraphDefined, "linearize: kernel ", kernel.name,
                " is not graph-defined");
  bool unrolled = false;
  KernelUOps out = linearizeWith(kernel, true, options, &unrolled);
  // Unrolling a short inner loop pays only when the loop around it stays
  // free of index division (a broadcast operand split across a merged loop
  // would need one per element); then the plain nest is better.
  if (unrolled && divisionInInnermostLoop(out.uops)) out = linearizeWith(kernel, false, options, &unrolled);
  return out;
}

}  // namespace stitch
