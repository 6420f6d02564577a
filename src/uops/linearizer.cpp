#include "uops/linearizer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "uops/reduce_order.h"

namespace stitch {

namespace {

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
    case UOpKind::Cast: return false;
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

class Linearizer {
 public:
  Linearizer(const Kernel& kernel, KernelUOps& out)
      : kernel_(kernel), block_(kernel.block), tg_(kernel.block.thread), out_(out), g_(out.uops) {}

  void run();

 private:
  void analyze();
  void emitLevel(int level);
  void emitNode(int n);
  void emitReduce(int n);
  void emitOuterReduces(const std::vector<int>& reduces);
  int combine(ReduceOp op, DType acc, int prev, int value);
  void openLoop(int l);
  // Opens output loop l; returns its LOOP (or -1 for a loop of one) and sets
  // *offset to the variable's offset within this block's share of the loop.
  int openLoopUOp(int l, int* offset);
  int decodeIterVar(int dim);
  int constOf(const TNode& n);
  int c(int64_t v) { return g_.constInt(v); }
  int loopUOp(int start, int end) { return g_.add(makeUOp(UOpKind::Loop, DType::i64, {start, end}), false); }

  const Kernel& kernel_;
  const BlockGraph& block_;
  const ThreadGraph& tg_;
  KernelUOps& out_;
  UOpGraph& g_;

  std::vector<int> buffers_, params_;
  std::vector<int> loopOfDim_;      // iteration dim -> index in block.loops
  std::vector<int> order_;          // block.loops indices, outer to inner (reduce_order.h)
  std::vector<int> positionOf_;     // block.loops index -> its depth in order_
  int splitLoop_ = 0;               // the loop the grid splits, in chunks of chunk_ iterations
  int64_t chunk_ = 1;
  std::vector<int> loopVar_;        // per loop: its variable (a LOOP, or CONST 0 for a loop of one)
  int special_ = -1;
  std::vector<int> loopUOps_;       // LOOP uops still to close, outer to inner
  std::vector<int> outDepth_;       // per node: output loops it needs open (0: none)
  std::vector<std::vector<int>> rvars_;  // per node: reduce variables it depends on (sorted)
  std::vector<char> needed_;
  std::vector<int> value_;          // per node: its uop, -1 before it is emitted
  std::vector<int> reduceVarNode_;  // reduce variable -> its node
  std::vector<char> bound_;         // reduce variable -> its loop is open
};

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
      case TOp::Param: break;
      case TOp::Load:
      case TOp::Alu:
      case TOp::Cast:
      case TOp::Reduce: {
        std::vector<int> rv;
        for (int a : n.args) {
          STITCH_ASSERT(a < (int)i, "thread graph not in dependency order");
          outDepth_[i] = std::max(outDepth_[i], outDepth_[a]);
          rv.insert(rv.end(), rvars_[a].begin(), rvars_[a].end());
        }
        std::sort(rv.begin(), rv.end());
        rv.erase(std::unique(rv.begin(), rv.end()), rv.end());
        if (n.op == TOp::Reduce)
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
  }
  value_[i] = v;
}

// The accumulator's start: the identity of the combining op.
UOp reduceInit(ReduceOp op, DType dtype) {
  UOp c = makeUOp(UOpKind::Const, dtype);
  bool fl = isFloating(dtype);
  double inf = std::numeric_limits<double>::infinity();
  auto lowest = [&]() -> int64_t {
    return dtype == DType::b8 ? 0 : dtype == DType::i32 ? INT32_MIN : INT64_MIN;
  };
  auto highest = [&]() -> int64_t {
    return dtype == DType::b8 ? 1 : dtype == DType::i32 ? INT32_MAX : INT64_MAX;
  };
  switch (op) {
    case ReduceOp::Sum: c.fval = 0, c.ival = 0; break;
    case ReduceOp::Prod: c.fval = 1, c.ival = 1; break;
    case ReduceOp::Max: fl ? (void)(c.fval = -inf) : (void)(c.ival = lowest()); break;
    case ReduceOp::Min: fl ? (void)(c.fval = inf) : (void)(c.ival = highest()); break;
  }
  return c;
}

int Linearizer::combine(ReduceOp op, DType acc, int prev, int v) {
  switch (op) {
    case ReduceOp::Sum: return g_.alu(AluOp::Add, acc, {prev, v});
    case ReduceOp::Prod: return g_.alu(AluOp::Mul, acc, {prev, v});
    // The new value first: like the interpreter, a later equal value (-0.0
    // after +0.0) does not replace the current one, and NaN wins.
    case ReduceOp::Max: return g_.alu(AluOp::Max, acc, {v, prev});
    case ReduceOp::Min: return g_.alu(AluOp::Min, acc, {v, prev});
  }
  return -1;
}

void Linearizer::emitReduce(int i) {
  const TNode& n = tg_.node(i);
  DType acc = n.dtype;
  int init = g_.add(reduceInit(n.reduce, acc));
  int accUOp = -1;
  if (!n.reduceVars.empty()) accUOp = g_.add(makeUOp(UOpKind::DefineAcc, acc, {init}), false);
  std::vector<int> loops;
  const int body = n.args[0];
  for (int r : n.reduceVars) {
    int l = loopUOp(c(0), c(tg_.reduceExtent(r)));
    loops.push_back(l);
    STITCH_ASSERT(reduceVarNode_.at(r) >= 0, "reduce variable ", r, " without a node");
    value_[reduceVarNode_[r]] = l;
    bound_[r] = 1;
    // Body nodes that need this variable and no variable still unbound.
    for (int k = 0; k <= body; ++k) {
      if (!needed_[k] || value_[k] >= 0 || tg_.node(k).op == TOp::ReduceVar) continue;
      const auto& rv = rvars_[k];
      if (std::find(rv.begin(), rv.end(), r) == rv.end()) continue;
      if (!std::all_of(rv.begin(), rv.end(), [&](int x) { return bound_[x] != 0; })) continue;
      emitNode(k);
    }
  }
  int v = value_[body];
  STITCH_ASSERT(v >= 0, "reduction body of %", i, " not emitted");
  if (g_.at(v).dtype != acc) v = g_.add(makeUOp(UOpKind::Cast, acc, {v}));
  int next = combine(n.reduce, acc, accUOp >= 0 ? accUOp : init, v);
  if (loops.empty()) {
    value_[i] = next;
    return;
  }
  int phi = g_.add(makeUOp(UOpKind::Phi, acc, {accUOp, next, loops.back()}), false);
  for (auto it = loops.rbegin(); it != loops.rend(); ++it)
    g_.add(makeUOp(UOpKind::EndLoop, DType::i64, {*it}), false);
  for (int r : n.reduceVars) bound_[r] = 0;
  value_[i] = phi;
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

// Reductions with their loops outside the innermost output loop (see
// reduce_order.h): accumulators in local arrays indexed by the inner loop's
// offset in this block. Passes of the inner loop: start values; per
// reduction, accumulate (inside its reduce loops); then the rest and the
// stores. Earlier reductions' results are reloaded from their arrays.
void Linearizer::emitOuterReduces(const std::vector<int>& reduces) {
  const int inner = order_.back();
  const int depth = (int)block_.loops.size();
  const int64_t size =
      inner == splitLoop_ ? std::min(chunk_, block_.loops[inner].extent) : block_.loops[inner].extent;
  std::vector<int> arrays, done;
  for (int r : reduces) {
    UOp local = makeUOp(UOpKind::DefineLocal, tg_.node(r).dtype);
    local.name = "partial";
    local.name += std::to_string(arrays.size());
    local.ival = size;
    arrays.push_back(g_.add(local, false));
  }
  auto endLoop = [&](int loop) { g_.add(makeUOp(UOpKind::EndLoop, DType::i64, {loop}), false); };
  // Values computed inside a closed inner loop are out of scope.
  auto forgetInner = [&] {
    for (size_t k = 0; k < value_.size(); ++k)
      if (outDepth_[k] == depth || !rvars_[k].empty()) value_[k] = -1;
  };
  int offset;
  auto openInner = [&] {
    int j = openLoopUOp(inner, &offset);
    for (size_t d = 0; d < done.size(); ++d)
      value_[done[d]] = g_.add(makeUOp(UOpKind::Load, tg_.node(done[d]).dtype, {arrays[d], offset}), false);
    return j;
  };
  int j = openInner();
  for (size_t k = 0; k < reduces.size(); ++k) {
    const TNode& n = tg_.node(reduces[k]);
    g_.add(makeUOp(UOpKind::Store, n.dtype, {arrays[k], offset, g_.add(reduceInit(n.reduce, n.dtype))}), false);
  }
  endLoop(j);
  forgetInner();

  for (size_t k = 0; k < reduces.size(); ++k) {
    const int i = reduces[k];
    const TNode& n = tg_.node(i);
    const int body = n.args[0];
    const DType acc = n.dtype;
    std::vector<int> loops;
    for (int r : n.reduceVars) {
      int l = loopUOp(c(0), c(tg_.reduceExtent(r)));
      loops.push_back(l);
      value_[reduceVarNode_.at(r)] = l;
      bound_[r] = 1;
      for (int m = 0; m <= body; ++m) {
        if (!needed_[m] || value_[m] >= 0 || tg_.node(m).op == TOp::ReduceVar || outDepth_[m] >= depth) continue;
        const auto& rv = rvars_[m];
        if (std::find(rv.begin(), rv.end(), r) == rv.end()) continue;
        if (!std::all_of(rv.begin(), rv.end(), [&](int x) { return bound_[x] != 0; })) continue;
        emitNode(m);
      }
    }
    // The reduction's operand and what it depends on, short of other reductions.
    std::vector<char> inBody(body + 1, 0);
    inBody[body] = 1;
    for (int m = body; m >= 0; --m)
      if (inBody[m] && tg_.node(m).op != TOp::Reduce)
        for (int a : tg_.node(m).args) inBody[a] = 1;
    j = openInner();
    for (int m = 0; m <= body; ++m) {
      if (!inBody[m] || value_[m] >= 0 || tg_.node(m).op == TOp::ReduceVar || outDepth_[m] != depth) continue;
      const auto& rv = rvars_[m];
      if (!std::all_of(rv.begin(), rv.end(), [&](int x) { return bound_[x] != 0; })) continue;
      emitNode(m);
    }
    int v = value_[body];
    STITCH_ASSERT(v >= 0, "reduction body of %", i, " not emitted");
    if (g_.at(v).dtype != acc) v = g_.add(makeUOp(UOpKind::Cast, acc, {v}));
    int prev = g_.add(makeUOp(UOpKind::Load, acc, {arrays[k], offset}), false);
    g_.add(makeUOp(UOpKind::Store, acc, {arrays[k], offset, combine(n.reduce, acc, prev, v)}), false);
    endLoop(j);
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) endLoop(*it);
    for (int r : n.reduceVars) bound_[r] = 0;
    forgetInner();
    done.push_back(i);
  }
  loopUOps_.push_back(openInner());
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
  UOp sp = makeUOp(UOpKind::Special, DType::i64);
  sp.name = "gidx0";
  sp.ival = block_.grid.empty() ? 1 : block_.grid[0];
  special_ = g_.add(sp, false);

  STITCH_ASSERT(!block_.loops.empty(), "kernel ", kernel_.name, " without loops");
  for (const LoopDim& l : block_.loops)
    if (l.extent == 0) return;  // no element: the kernel does nothing
  const int numLoops = (int)block_.loops.size();
  order_ = outputLoopOrder(block_);
  positionOf_.assign(numLoops, -1);
  for (int p = 0; p < numLoops; ++p) positionOf_.at(order_.at(p)) = p;
  loopVar_.assign(numLoops, -1);
  // The grid splits loops[0] in blocks of blockExtent, unless loops[0] went
  // inside loops a reduction depends on: then every block would redo the
  // reduction, and the grid's blocks split the outermost loop instead.
  splitLoop_ = order_[0];
  chunk_ = block_.blockExtent;
  if (splitLoop_ != 0) {
    int64_t blocks = std::max<int64_t>(sp.ival, 1), extent = block_.loops[splitLoop_].extent;
    chunk_ = (extent + blocks - 1) / blocks;
  }
  analyze();
  const std::vector<int> outer = outerReduceNodes(block_, order_, splitLoop_, chunk_);
  emitLevel(0);
  for (int p = 0; p < numLoops; ++p) {
    if (p == numLoops - 1 && !outer.empty()) emitOuterReduces(outer);
    else openLoop(order_[p]);
    emitLevel(p + 1);
  }
  // Row-major output index: a loop's dims are consecutive, so the loop
  // variable times the size of the dims after them.
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
  for (const auto& s : tg_.stores()) {
    STITCH_ASSERT(s.output >= 0 && s.output < out_.numOutputs, "store to output ", s.output, " out of range");
    int v = value_.at(s.value);
    STITCH_ASSERT(v >= 0, "stored value %", s.value, " not emitted");
    DType dt = out_.buffers[s.output];
    if (g_.at(v).dtype != dt) v = g_.add(makeUOp(UOpKind::Cast, dt, {v}));
    g_.add(makeUOp(UOpKind::Store, dt, {buffers_[s.output], index, v}), false);
  }
  for (auto it = loopUOps_.rbegin(); it != loopUOps_.rend(); ++it)
    g_.add(makeUOp(UOpKind::EndLoop, DType::i64, {*it}), false);
}

}  // namespace

UOpGraph withoutDeadUOps(const UOpGraph& g) {
  const auto& uops = g.uops();
  std::vector<char> live(uops.size(), 0);
  for (int i = (int)uops.size() - 1; i >= 0; --i) {
    if (hasEffect(uops[i].kind)) live[i] = 1;
    if (live[i])
      for (int s : uops[i].src) live[s] = 1;
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

KernelUOps linearize(const Kernel& kernel) {
  STITCH_ASSERT(kernel.kind == KernelKind::GraphDefined, "linearize: kernel ", kernel.name,
                " is not graph-defined");
  KernelUOps out;
  out.name = kernel.name;
  Linearizer(kernel, out).run();
  out.uops = withoutDeadUOps(out.uops);
  return out;
}

}  // namespace stitch
