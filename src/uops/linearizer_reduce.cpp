// The reductions of a kernel's linearization (linearizer_impl.h).
#include "uops/linearizer_impl.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "uops/lane_reduce.h"
#include "uops/reduce_order.h"

namespace stitch::linearizer_detail {

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
    case ReduceOp::Sum: {
      // A sum of products (a contraction) accumulates with fused
      // multiply-adds: one rounding per term, one instruction (numerics.h).
      const UOp& term = g_.at(v);
      if (isFloating(acc) && term.kind == UOpKind::Alu && term.alu == AluOp::Mul && term.dtype == acc)
        return g_.alu(AluOp::MulAdd, acc, {term.src[0], term.src[1], prev});
      return g_.alu(AluOp::Add, acc, {prev, v});
    }
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
  const int body = n.args[0];
  auto dependsOn = [&](int k, int r) {
    return std::find(rvars_[k].begin(), rvars_[k].end(), r) != rvars_[k].end();
  };
  auto combineWith = [&](int prev, int v) { return combine(n.reduce, acc, prev, v); };
  // Lane split (lane_reduce.h) over the innermost reduce variable, unless
  // the body holds another reduction (its loops would be emitted twice).
  bool lanes = false;
  if (!n.reduceVars.empty()) {
    const int last = n.reduceVars.back();
    lanes = laneSplits(n.reduce, tg_.reduceExtent(last));
    for (int k = 0; k <= body && lanes; ++k)
      lanes = !(needed_[k] && value_[k] < 0 && tg_.node(k).op == TOp::Reduce && dependsOn(k, last));
  }
  const int64_t width = !lanes ? 1
                       : options_.threadLanes ? threadReduceLanes(tg_.reduceExtent(n.reduceVars.back()))
                                              : reduceLanes(tg_.reduceExtent(n.reduceVars.back()));
  // Lanes on threads with nothing to add to start from their first term.
  const bool firstTerms = lanes && options_.threadLanes && n.reduceVars.size() == 1;
  int laneArray = lanes ? defineLanes(g_, acc, firstTerms ? -1 : init, width) : -1;
  int accUOp = -1;
  if (!n.reduceVars.empty() && !lanes) accUOp = g_.add(makeUOp(UOpKind::DefineAcc, acc, {init}), false);
  std::vector<int> loops;
  auto bind = [&](int r, int value) {
    STITCH_ASSERT(reduceVarNode_.at(r) >= 0, "reduce variable ", r, " without a node");
    value_[reduceVarNode_[r]] = value;
    bound_[r] = 1;
  };
  const size_t serialVars = lanes ? n.reduceVars.size() - 1 : n.reduceVars.size();
  for (size_t v = 0; v < serialVars; ++v) {
    const int r = n.reduceVars[v];
    int l = loopUOp(c(0), c(tg_.reduceExtent(r)));
    loops.push_back(l);
    bind(r, l);
    emitBodyNodes(body, r);
  }
  auto bodyValue = [&] {
    int v = value_[body];
    STITCH_ASSERT(v >= 0, "reduction body of %", i, " not emitted");
    if (g_.at(v).dtype != acc) v = g_.add(makeUOp(UOpKind::Cast, acc, {v}));
    return v;
  };
  if (lanes) {
    const int last = n.reduceVars.back();
    const int64_t extent = tg_.reduceExtent(last), full = extent / width * width;
    auto endLoop = [&](int l) { g_.add(makeUOp(UOpKind::EndLoop, DType::i64, {l}), false); };
    // Values of the innermost variable's iterations are out of scope once
    // its loops close.
    auto forget = [&] {
      for (int k = 0; k <= body; ++k)
        if (dependsOn(k, last) && tg_.node(k).op != TOp::ReduceVar) value_[k] = -1;
    };
    if (options_.threadLanes) {
      // Lanes on threads: the lane loop outside (the block's threads share
      // it), each lane's terms inside, folded in a register in the order
      // the vector form folds them. Outer reduce loops add to the lanes.
      const int64_t outer = extent / width;
      int lane = loopUOp(c(0), c(width));
      auto term = [&](int o) {
        bind(last, g_.alu(AluOp::Add, DType::i64, {g_.alu(AluOp::Mul, DType::i64, {o, c(width)}), lane}));
        emitBodyNodes(body, last);
        const int v = bodyValue();
        forget();
        return v;
      };
      // The first term combined with the identity, as the vector form's
      // first step combines it (a product term: one fused multiply-add).
      int prev = firstTerms ? combineWith(init, term(c(0)))
                            : g_.add(makeUOp(UOpKind::Load, acc, {laneArray, lane}), false);
      int laneAcc = g_.add(makeUOp(UOpKind::DefineAcc, acc, {prev}), false);
      int o = loopUOp(c(firstTerms ? 1 : 0), c(outer));
      int next = combineWith(laneAcc, term(o));
      int folded = g_.add(makeUOp(UOpKind::Phi, acc, {laneAcc, next, o}), false);
      endLoop(o);
      g_.add(makeUOp(UOpKind::Store, acc, {laneArray, lane, folded}), false);
      endLoop(lane);
    } else {
      // Each trip of the lane loop folds `unroll` consecutive terms of every
      // lane: one load and one store of the lane array (which stays in
      // memory) per `unroll` combines, so its store-to-load latency no longer
      // sits between every two terms of a lane. The same terms in the same
      // order per lane: the same result. An outer loop of at most 4 trips
      // becomes one trip folding all of them (a 64-long dot product: one
      // load and store of the lanes per output; clang still vectorizes the
      // lane loop, LaneReduceKernels.ShortDotIsOneVectorizedLaneTrip).
      const int64_t outer = extent / width;
      const int64_t unroll = outer <= 4 ? outer : outer % 4 == 0 ? 4 : outer % 2 == 0 ? 2 : 1;
      int o = loopUOp(c(0), c(outer / unroll));
      int lane = loopUOp(c(0), c(width));
      // Not cachable: the lane changes between loads.
      int folded = g_.add(makeUOp(UOpKind::Load, acc, {laneArray, lane}), false);
      const int start = g_.alu(AluOp::Mul, DType::i64, {o, c(unroll * width)});
      // Where the combine is exact whatever the order (max, min, integer
      // sums and products) the trip's terms combine pairwise first and the
      // lane's running value once: one dependent step per trip instead of
      // `unroll` (a softmax's max pass waited on that chain).
      const bool anyOrder = n.reduce == ReduceOp::Max || n.reduce == ReduceOp::Min || !isFloating(acc);
      std::vector<int> terms;
      for (int64_t u = 0; u < unroll; ++u) {
        bind(last, g_.alu(AluOp::Add, DType::i64, {g_.alu(AluOp::Add, DType::i64, {start, c(u * width)}), lane}));
        emitBodyNodes(body, last);
        if (anyOrder) terms.push_back(bodyValue());
        else folded = combineWith(folded, bodyValue());
        forget();
      }
      while (terms.size() > 1) {
        std::vector<int> pairs;
        for (size_t t = 0; t + 1 < terms.size(); t += 2) pairs.push_back(combineWith(terms[t], terms[t + 1]));
        if (terms.size() % 2) pairs.push_back(terms.back());
        terms = std::move(pairs);
      }
      if (!terms.empty()) folded = combineWith(folded, terms[0]);
      g_.add(makeUOp(UOpKind::Store, acc, {laneArray, lane, folded}), false);
      endLoop(lane);
      endLoop(o);
      forget();
    }
    if (full < extent) {
      int t = loopUOp(c(0), c(extent - full));
      bind(last, g_.alu(AluOp::Add, DType::i64, {c(full), t}));
      emitBodyNodes(body, last);
      accumulateLane(g_, acc, laneArray, t, bodyValue(), combineWith);
      endLoop(t);
      forget();
    }
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) endLoop(*it);
    for (int r : n.reduceVars) bound_[r] = 0;
    value_[i] = foldsInOneUOp(n.reduce, acc, options_.threadLanes)
                    ? foldLanes(g_, n.reduce, acc, laneArray, width)
                    : combineLanes(g_, acc, laneArray, width, combineWith);
    return;
  }
  int v = bodyValue();
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

// Reductions with their loops outside the innermost output loop (see
// reduce_order.h): accumulators in local arrays indexed by the inner loop's
// offset in this block. Passes of the inner loop: start values; per
// reduction, accumulate (inside its reduce loops); later passes and the
// final inner loop (openInnerReloading) reload earlier results from the
// arrays. Emitted where the output loops the reductions read are open
// (outerReducesDepth): a sum that no outer output loop changes is computed
// once per block, not once per iteration of those loops.
// A bound on one loop body's size; NASRNN's sixteen fit in one batch.
constexpr size_t kOuterReduceBatch = 16;

void Linearizer::emitOuterReduces(const std::vector<int>& reduces) {
  const int inner = order_.back();
  const int depth = (int)block_.loops.size();
  const int64_t size =
      inner == splitLoop_ ? std::min(chunk_, block_.loops[inner].extent) : block_.loops[inner].extent;
  outerArrays_.clear();
  outerDone_.clear();
  for (int r : reduces) {
    UOp local = makeUOp(UOpKind::DefineLocal, tg_.node(r).dtype);
    local.name = "partial";
    local.name += std::to_string(outerArrays_.size());
    local.ival = size;
    outerArrays_.push_back(g_.add(local, false));
  }
  auto endLoop = [&](int loop) { g_.add(makeUOp(UOpKind::EndLoop, DType::i64, {loop}), false); };
  int offset;
  int j = openInnerReloading(&offset);
  for (size_t k = 0; k < reduces.size(); ++k) {
    const TNode& n = tg_.node(reduces[k]);
    g_.add(makeUOp(UOpKind::Store, n.dtype, {outerArrays_[k], offset, g_.add(reduceInit(n.reduce, n.dtype))}),
           false);
  }
  endLoop(j);
  forgetValuesFrom(depth);  // what the closed inner loop computed

  // Reductions run in batches: up to kOuterReduceBatch consecutive ones
  // with reduce loops of the same extents, none reading another of its
  // batch, share one loop nest (a NASRNN cell's sixteen GEMVs over the same
  // k: sixteen independent accumulator chains per step instead of one,
  // whose store-to-load latency bounds each loop on its own; 50 steps on
  // two threads: 6.85 -> 3.87 ms, against 6.0 ms in batches of four).
  auto extentsOf = [&](int i) {
    std::vector<int64_t> e;
    for (int r : tg_.node(i).reduceVars) e.push_back(tg_.reduceExtent(r));
    return e;
  };
  auto inBodyOf = [&](int i) {
    const int body = tg_.node(i).args[0];
    // The reduction's operand and what it depends on, short of other reductions.
    std::vector<char> inBody(body + 1, 0);
    inBody[body] = 1;
    for (int m = body; m >= 0; --m)
      if (inBody[m] && tg_.node(m).op != TOp::Reduce)
        for (int a : tg_.node(m).args) inBody[a] = 1;
    return inBody;
  };
  for (size_t first = 0; first < reduces.size();) {
    size_t last = first + 1;
    while (last < reduces.size() && last - first < kOuterReduceBatch &&
           extentsOf(reduces[last]) == extentsOf(reduces[first])) {
      std::vector<char> inBody = inBodyOf(reduces[last]);
      bool readsBatch = false;
      for (size_t b = first; b < last; ++b)
        readsBatch |= reduces[b] < (int)inBody.size() && inBody[reduces[b]];
      if (readsBatch) break;
      ++last;
    }
    std::vector<int> loops;
    const std::vector<int64_t> extents = extentsOf(reduces[first]);
    // The innermost reduce variable advances `jam` terms per pass over the
    // inner output loop (unroll and jam, as emitColumnFill): each element
    // takes the same terms in the same order, its accumulator loaded and
    // stored once per `jam` of them (a GEMV split along its columns was
    // bound by those stores).
    const int64_t jam = extents.empty() ? 1 : termsPerPass(extents.back());
    for (size_t p = 0; p < extents.size(); ++p) {
      const bool jammed = jam > 1 && p + 1 == extents.size();
      int l = loopUOp(c(0), c(jammed ? extents[p] / jam : extents[p]));
      loops.push_back(l);
      if (jammed) break;  // bound per term inside the inner output loop
      for (size_t k = first; k < last; ++k) {
        const int r = tg_.node(reduces[k]).reduceVars[p];
        value_[reduceVarNode_.at(r)] = l;
        bound_[r] = 1;
      }
      for (size_t k = first; k < last; ++k) {
        const int r = tg_.node(reduces[k]).reduceVars[p], body = tg_.node(reduces[k]).args[0];
        for (int m = 0; m <= body; ++m) {
          if (!needed_[m] || value_[m] >= 0 || tg_.node(m).op == TOp::ReduceVar || outDepth_[m] >= depth) continue;
          const auto& rv = rvars_[m];
          if (std::find(rv.begin(), rv.end(), r) == rv.end()) continue;
          if (!std::all_of(rv.begin(), rv.end(), [&](int x) { return bound_[x] != 0; })) continue;
          emitNode(m);
        }
      }
    }
    j = openInnerReloading(&offset);
    std::vector<int> prev(last - first, -1);
    for (int64_t u = 0; u < jam; ++u) {
      std::vector<int> lastVars;
      if (jam > 1) {
        const int term = g_.alu(AluOp::Add, DType::i64, {g_.alu(AluOp::Mul, DType::i64, {loops.back(), c(jam)}), c(u)});
        for (size_t k = first; k < last; ++k) {
          const int r = tg_.node(reduces[k]).reduceVars.back();
          value_[reduceVarNode_.at(r)] = term;
          bound_[r] = 1;
          lastVars.push_back(r);
        }
      }
      for (size_t k = first; k < last; ++k) {
        const int i = reduces[k];
        const TNode& n = tg_.node(i);
        const int body = n.args[0];
        const DType acc = n.dtype;
        std::vector<char> inBody = inBodyOf(i);
        // Jammed, the terms' values that do not depend on the inner loop
        // (x[k] of a GEMV) are emitted here too, per term.
        for (int m = 0; m <= body; ++m) {
          if (!inBody[m] || value_[m] >= 0 || tg_.node(m).op == TOp::ReduceVar) continue;
          if (outDepth_[m] != depth && (jam == 1 || outDepth_[m] > depth)) continue;
          const auto& rv = rvars_[m];
          if (!std::all_of(rv.begin(), rv.end(), [&](int x) { return bound_[x] != 0; })) continue;
          emitNode(m);
        }
        int v = value_[body];
        STITCH_ASSERT(v >= 0, "reduction body of %", i, " not emitted");
        if (g_.at(v).dtype != acc) v = g_.add(makeUOp(UOpKind::Cast, acc, {v}));
        if (prev[k - first] < 0) prev[k - first] = g_.add(makeUOp(UOpKind::Load, acc, {outerArrays_[k], offset}), false);
        prev[k - first] = combine(n.reduce, acc, prev[k - first], v);
      }
      // The next term's values are its own.
      for (size_t m = 0; m < value_.size(); ++m) {
        const auto& rv = rvars_[m];
        if (tg_.node((int)m).op != TOp::ReduceVar &&
            std::any_of(lastVars.begin(), lastVars.end(), [&](int r) { return std::find(rv.begin(), rv.end(), r) != rv.end(); }))
          value_[m] = -1;
      }
    }
    for (size_t k = first; k < last; ++k)
      g_.add(makeUOp(UOpKind::Store, tg_.node(reduces[k]).dtype, {outerArrays_[k], offset, prev[k - first]}), false);
    endLoop(j);
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) endLoop(*it);
    for (size_t k = first; k < last; ++k)
      for (int r : tg_.node(reduces[k]).reduceVars) bound_[r] = 0;
    forgetValuesFrom(depth);  // what the closed inner loop computed
    for (size_t k = first; k < last; ++k) outerDone_.push_back(reduces[k]);
    first = last;
  }
}

// Opens the innermost output loop with the finished outer reductions'
// results loaded from their arrays.
int Linearizer::openInnerReloading(int* offset) {
  int j = openLoopUOp(order_.back(), offset);
  for (size_t d = 0; d < outerDone_.size(); ++d)
    value_[outerDone_[d]] =
        g_.add(makeUOp(UOpKind::Load, tg_.node(outerDone_[d]).dtype, {outerArrays_[d], *offset}), false);
  return j;
}

// The output loops (a depth in order_) the reductions read, the innermost
// one aside: their accumulator arrays are indexed by it.
int Linearizer::outerReducesDepth(const std::vector<int>& reduces) const {
  const int inner = order_.back();
  // Nodes come in dependency order: one backward sweep marks what the
  // reductions read.
  std::vector<char> read(tg_.nodes().size(), 0);
  for (int r : reduces) read[r] = 1;
  int depth = 0;
  for (int k = (int)read.size() - 1; k >= 0; --k) {
    if (!read[k]) continue;
    const TNode& n = tg_.node(k);
    if (n.op == TOp::IterVar && loopOfDim_.at(n.index) != inner)
      depth = std::max(depth, positionOf_.at(loopOfDim_.at(n.index)) + 1);
    for (int a : n.args) read[a] = 1;
  }
  return depth;
}

// The nodes `from` needs, not looking below `stop` (-1: none).
void Linearizer::markNeeded(const std::vector<int>& from, int stop) {
  needed_.assign(tg_.nodes().size(), 0);
  for (int f : from) needed_.at(f) = 1;
  for (int i = (int)needed_.size() - 1; i >= 0; --i)
    if (needed_[i] && i != stop)
      for (int a : tg_.node(i).args) needed_[a] = 1;
}

// Every needed node not yet emitted that no open reduction binds, in order
// (all loops open).
void Linearizer::emitRemaining() {
  for (int k = 0; k < (int)tg_.nodes().size(); ++k)
    if (needed_[k] && value_[k] < 0 && rvars_[k].empty() && tg_.node(k).op != TOp::ReduceVar) emitNode(k);
}

// A Column kernel (BlockGraph::column), in two phases. Grid: each block
// folds its part of the reduction for every output element into
// partials[block][element]. After the grid (ENDLOOP of the SPECIAL: the
// renderer runs what follows once, when every block is done): per element,
// the partials combined in block order stand for the reduction, and the
// rest of the element's expression and the stores follow.
void Linearizer::runColumn() {
  const ColumnSplit& col = *block_.column;
  const int numLoops = (int)block_.loops.size();
  order_.clear();
  for (int l = 0; l < numLoops; ++l) order_.push_back(l);
  positionOf_ = order_;
  loopVar_.assign(numLoops, -1);
  splitLoop_ = -1;  // every block walks all output elements
  analyze();
  int64_t outputs = 1;
  for (const LoopDim& l : block_.loops) outputs *= l.extent;
  const TNode& r = tg_.node(col.reduce);

  markNeeded({col.partial}, -1);
  for (int l = 0; l < numLoops; ++l) openLoop(l);
  emitRemaining();
  int at = g_.alu(AluOp::Add, DType::i64, {g_.alu(AluOp::Mul, DType::i64, {special_, c(outputs)}), outputIndex()});
  g_.add(makeUOp(UOpKind::Store, r.dtype, {partials_, at, value_.at(col.partial)}), false);
  closeLoops();
  g_.add(makeUOp(UOpKind::EndLoop, DType::i64, {special_}), false);

  std::vector<int> stored;
  for (const auto& s : tg_.stores()) stored.push_back(s.value);
  markNeeded(stored, col.reduce);
  value_.assign(tg_.nodes().size(), -1);
  for (int l = 0; l < numLoops; ++l) openLoop(l);
  const int index = outputIndex();
  int init = g_.add(reduceInit(r.reduce, r.dtype));
  int acc = g_.add(makeUOp(UOpKind::DefineAcc, r.dtype, {init}), false);
  int b = loopUOp(c(0), c(col.parts));
  int part = g_.add(makeUOp(UOpKind::Load, r.dtype,
                            {partials_, g_.alu(AluOp::Add, DType::i64, {g_.alu(AluOp::Mul, DType::i64, {b, c(outputs)}), index})}),
                    false);
  int phi = g_.add(makeUOp(UOpKind::Phi, r.dtype, {acc, combine(r.reduce, r.dtype, acc, part), b}), false);
  g_.add(makeUOp(UOpKind::EndLoop, DType::i64, {b}), false);
  value_[col.reduce] = phi;
  emitRemaining();
  emitStores(index);
  closeLoops();
}

}  // namespace stitch::linearizer_detail
