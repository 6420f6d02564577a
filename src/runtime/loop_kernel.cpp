#include "runtime/loop_kernel.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "common/error.h"
#include "ir/view_shape.h"
#include "runtime/attention_kernel.h"
#include "runtime/strided_layout.h"
#include "runtime/team_barrier.h"
#include "ugraph/loop_kernels.h"

namespace stitch {

namespace {

enum class ScalarOp : uint8_t { Add, Sub, Mul, Min, Max, Neg, Lt, Le, Gt, Ge, Eq, Ne, Not, And, Or };

struct KernelStep {
  int kernel = 0;
  std::vector<int> buffers;  // tensor registers: the kernel's outputs, then its inputs
  size_t outputs = 0;        // how many of `buffers` it writes
  std::vector<int> params;   // scalar registers
  bool barrierAfter = true;  // LoopKernel::Phase
  int64_t firstThread = 0;
};

struct ScalarStep {
  ScalarOp op = ScalarOp::Add;
  int dst = 0, a = 0, b = 0;
};

struct AppendStep {
  int list = 0;     // index into lists_
  int source = 0;   // tensor register
  int counter = 0;  // the outermost loop's counter register: the row
  bool strided = false;  // the source is a view: copied by its layout
};

// A view of a register (ugraph/loop_kernels.h: LoopView), computed by every
// thread alike.
struct ViewStep {
  LoopView view;
  int src = 0, dst = 0;                  // tensor registers
  int index = -1, start = -1, end = -1;  // scalar registers (-1: none)
  size_t elemSize = 4;
  const Node* node = nullptr;  // named by a fault's error
};

// An in-place write: `region` views the base (its dst a register of its
// own), the team copies `source` into it; the result is the base.
struct AssignStep {
  ViewStep region;
  int source = 0, out = 0;  // tensor registers
  // Off when the next step is a write that touches nothing this one does:
  // the two meet the team at one barrier.
  bool barrierAfter = true;
};

// The attention kernel on the team: items, a barrier, combined rows.
struct AttentionStep {
  int q = 0, k = 0, v = 0, out = 0;  // tensor registers
  int scale = 0;                     // scalar register
  int scratch = 0;                   // index into the run's partial buffers
};

// InPlace: a carried tensor written in place (a chain of AssignSteps from
// the slot's parameter to its yield) lives in one buffer, which starts as a
// copy of the value the loop is entered with.
enum class CarryKind : uint8_t { PingPong, PassThrough, Copy, Scalar, List, InPlace };

struct Carry {
  CarryKind kind = CarryKind::Copy;
  // Registers (tensor or scalar by kind); List: `param` is the list index.
  int init = -1, param = -1, yield = -1, output = -1;
  int bufferA = -1, bufferB = -1;  // PingPong / Copy: the value's two homes
  size_t bytes = 0;
};

enum class StepKind : uint8_t { Kernel, Scalar, Loop, Append, View, Assign, Attention };

struct Step {
  StepKind kind = StepKind::Kernel;
  int index = 0;  // into the program's steps of that kind
};

struct LoopSteps {
  int trips = -1, cond = -1, counter = -1;  // scalar registers
  int next = -1;  // scalar register of the body's condition (a while loop's; -1: constant true)
  std::vector<Step> body;
  std::vector<Carry> carries;
  bool copies = false;  // a carry is copied at the end of each iteration
};

struct BufferSpec {
  Shape shape;
  DType dtype = DType::f32;
};

struct ListSpec {
  Shape element;
  DType dtype = DType::f32;
  size_t bytes = 0;  // per element
  StridedLayout layout;  // a row's
};

// One thread's registers and argument arrays.
struct ThreadState {
  std::vector<void*> ptr;
  std::vector<StitchScalar> scal;
  std::vector<void*> args;
  std::vector<StitchScalar> params;
  std::vector<void*> nextPtr;  // the carried values of the next iteration
  std::vector<StitchScalar> nextScal;
  std::vector<StridedLayout> lay;  // per tensor register
  int64_t tid = 0, team = 1;
  TeamBarrier* barrier = nullptr;
  bool sense = false;
  // A view's index out of range stops every thread at the same step (they
  // compute the same scalars); the run then raises the interpreter's error.
  const Node* fault = nullptr;
  LoopViewFault faultAt;
};

int64_t wrapping(ScalarOp op, int64_t a, int64_t b) {
  const uint64_t x = (uint64_t)a, y = (uint64_t)b;
  switch (op) {
    case ScalarOp::Add: return (int64_t)(x + y);
    case ScalarOp::Sub: return (int64_t)(x - y);
    case ScalarOp::Mul: return (int64_t)(x * y);
    case ScalarOp::Min: return std::min(a, b);
    case ScalarOp::Max: return std::max(a, b);
    case ScalarOp::Neg: return (int64_t)(0 - x);
    case ScalarOp::Lt: return a < b;
    case ScalarOp::Le: return a <= b;
    case ScalarOp::Gt: return a > b;
    case ScalarOp::Ge: return a >= b;
    case ScalarOp::Eq: return a == b;
    case ScalarOp::Ne: return a != b;
    case ScalarOp::Not: return a == 0;
    case ScalarOp::And: return a != 0 && b != 0;
    case ScalarOp::Or: return a != 0 || b != 0;
  }
  return 0;
}

ScalarOp scalarOpOf(const Node* n) {
  static const std::pair<const char*, ScalarOp> ops[] = {
      {"scalar.add", ScalarOp::Add}, {"scalar.sub", ScalarOp::Sub}, {"scalar.mul", ScalarOp::Mul},
      {"scalar.min", ScalarOp::Min}, {"scalar.max", ScalarOp::Max}, {"scalar.neg", ScalarOp::Neg},
      {"scalar.lt", ScalarOp::Lt},   {"scalar.le", ScalarOp::Le},   {"scalar.gt", ScalarOp::Gt},
      {"scalar.ge", ScalarOp::Ge},   {"scalar.eq", ScalarOp::Eq},   {"scalar.ne", ScalarOp::Ne},
      {"scalar.not", ScalarOp::Not}, {"scalar.and", ScalarOp::And}, {"scalar.or", ScalarOp::Or}};
  for (const auto& [name, op] : ops)
    if (n->is(name)) return op;
  STITCH_ASSERT(false, "loop kernel: no scalar op '", n->kind(), "'");
  return ScalarOp::Add;
}

void teamBarrier(ThreadState& st) {
  if (st.team > 1) st.barrier->wait(st.sense);
}

// The interpreter's error for a select index out of range, at the view.
[[noreturn]] void raiseFault(const Node& node, const LoopViewFault& f) {
  try {
    checkSelectIndex(f.index, f.dim, f.size);
  } catch (const UserError& e) {
    throw RuntimeFailure(e.message(), node.loc());
  }
  STITCH_ASSERT(false, "loop kernel: a fault with the index in range");
  std::abort();
}

}  // namespace

class LoopKernelProgram {
 public:
  LoopKernelProgram(const LoopKernel& loop, const KernelGraph& kernels, const std::vector<PhaseCode>& code)
      : kernels_(kernels), loop_(loop), code_(code) {
    top_ = buildLoop(loop.loop, true);
  }

  const std::vector<const Value*>& outerValues() const { return outer_; }

  const std::vector<int>& inPlaceInputs() const { return inPlaceInputs_; }

  bool run(const std::vector<const IValue*>& outer, const std::vector<bool>& writable, BufferPool& pool,
           int threads, IValueList& outputs) const {
    STITCH_ASSERT(outer.size() == outer_.size(), "loop kernel given ", outer.size(), " values for ", outer_.size());
    ThreadState base;
    base.ptr.assign(tensorRegs_, nullptr);
    base.scal = scalarInit_;
    base.args.assign(maxArgs_, nullptr);
    base.params.assign(maxParams_, StitchScalar{0});
    base.nextPtr.assign(maxCarries_, nullptr);
    base.nextScal.assign(maxCarries_, StitchScalar{0});
    base.lay = layoutInit_;
    std::vector<Tensor> keep;  // dense copies of strided inputs, alive for the run
    for (size_t k = 0; k < outer_.size(); ++k) {
      const Value* v = outer_[k];
      const IValue& value = *outer[k];
      if (outerReg_[k].tensor) {
        if (!value.isTensor()) return false;
        const Tensor& t = value.toTensor();
        if (t.dtype() != *v->type()->dtype() || t.sizes() != *v->type()->shape()) return false;
        if (!t.isContiguous()) {
          keep.push_back(pool.allocate(t.sizes(), t.dtype()));
          keep.back().copyFrom(t);
        }
        base.ptr[outerReg_[k].reg] = t.isContiguous() ? t.rawData() : keep.back().rawData();
      } else if (v->type()->kind() == TypeKind::Float) {
        base.scal[outerReg_[k].reg].f = value.toDouble();
      } else {
        base.scal[outerReg_[k].reg].i = value.toInt();
      }
    }
    const LoopSteps& top = loops_[top_];
    const int64_t trips = base.scal[top.cond].i ? std::max<int64_t>(base.scal[top.trips].i, 0) : 0;
    std::vector<void*> buffers(buffers_.size());
    std::vector<Tensor> homes(buffers_.size());
    // A carry written in place lives in the value it starts from when the
    // caller says no one else sees it; otherwise in a copy of it.
    std::vector<const Carry*> copiedIn;
    for (const Carry& c : top.carries) {
      if (c.kind != CarryKind::InPlace) continue;
      const size_t k = (size_t)outerIndexOfReg_.at(c.init);
      if (!writable.empty() && writable[k] && outer[k]->toTensor().isContiguous())
        homes[c.bufferA] = outer[k]->toTensor();
      else
        copiedIn.push_back(&c);
    }
    for (size_t b = 0; b < buffers_.size(); ++b) {
      if (!homes[b].defined()) homes[b] = pool.allocate(buffers_[b].shape, buffers_[b].dtype);
      buffers[b] = homes[b].rawData();
    }
    for (const auto& [reg, buffer] : fixedHomes_) base.ptr[reg] = buffers[buffer];
    for (const Carry* c : copiedIn) std::memcpy(buffers[c->bufferA], base.ptr[c->init], c->bytes);
    std::vector<std::unique_ptr<float[]>> scratch(scratchFloats_.size());
    std::vector<float*> scratchAt(scratchFloats_.size());
    for (size_t i = 0; i < scratch.size(); ++i) {
      scratch[i].reset(new float[(size_t)std::max<int64_t>(scratchFloats_[i], 1)]);
      scratchAt[i] = scratch[i].get();
    }
    std::vector<Tensor> lists(lists_.size());
    std::vector<char*> listRows(lists_.size());
    for (size_t l = 0; l < lists_.size(); ++l) {
      Shape shape{trips};
      shape.insert(shape.end(), lists_[l].element.begin(), lists_[l].element.end());
      lists[l] = pool.allocate(shape, lists_[l].dtype);
      listRows[l] = (char*)lists[l].rawData();
    }
    Run r{*this, buffers, listRows, scratchAt};
    const int team = std::max(1, threads);
    std::vector<ThreadState> states(team, base);
    TeamBarrier barrier;
    if (team == 1) {
      r.loop(top, states[0]);
    } else {
#pragma omp parallel num_threads(team)
      {
#pragma omp single
        barrier.setTeam(omp_get_num_threads());
        ThreadState& st = states[omp_get_thread_num()];
        st.tid = omp_get_thread_num();
        st.team = omp_get_num_threads();
        st.barrier = &barrier;
        r.loop(top, st);
      }
    }
    if (states[0].fault) raiseFault(*states[0].fault, states[0].faultAt);
    outputs = loopOutputs(top, states[0], outer, buffers, homes, lists, trips);
    return true;
  }

 private:
  struct OuterReg {
    bool tensor = false;
    int reg = 0;
  };

  // One run's shared, read-only state.
  struct Run {
    const LoopKernelProgram& p;
    const std::vector<void*>& buffers;
    const std::vector<char*>& listRows;
    const std::vector<float*>& scratch;  // per AttentionStep

    void* other(const Carry& c, void* current) const {
      return current == buffers[c.bufferA] ? buffers[c.bufferB] : buffers[c.bufferA];
    }

    void loop(const LoopSteps& l, ThreadState& st) const {
      const int64_t trips = st.scal[l.trips].i;
      bool cond = st.scal[l.cond].i != 0;
      for (const Carry& c : l.carries) {
        if (c.kind == CarryKind::Scalar) st.scal[c.param] = st.scal[c.init];
        else if (c.kind == CarryKind::InPlace) st.ptr[c.param] = buffers[c.bufferA];
        else if (c.kind != CarryKind::List) st.ptr[c.param] = st.ptr[c.init];
      }
      for (int64_t t = 0; t < trips && cond; ++t) {
        st.scal[l.counter].i = t;
        for (const Carry& c : l.carries)
          if (c.kind == CarryKind::PingPong) st.ptr[c.yield] = other(c, st.ptr[c.param]);
        for (const Step& s : l.body) {
          step(s, st);
          if (st.fault) return;
        }
        if (l.next >= 0) cond = st.scal[l.next].i != 0;
        endIteration(l, st);
      }
      for (const Carry& c : l.carries) {
        if (c.kind == CarryKind::Scalar) st.scal[c.output] = st.scal[c.param];
        else if (c.kind != CarryKind::List) st.ptr[c.output] = st.ptr[c.param];
      }
    }

    // The carried values move to the block parameters all at once (a swap
    // of two carries reads both before writing either).
    void endIteration(const LoopSteps& l, ThreadState& st) const {
      if (l.copies) {
        if (st.tid == 0)
          for (const Carry& c : l.carries)
            if (c.kind == CarryKind::Copy) std::memcpy(other(c, st.ptr[c.param]), st.ptr[c.yield], c.bytes);
        teamBarrier(st);
      }
      std::vector<void*>& nextPtr = st.nextPtr;
      std::vector<StitchScalar>& nextScal = st.nextScal;
      for (size_t i = 0; i < l.carries.size(); ++i) {
        const Carry& c = l.carries[i];
        switch (c.kind) {
          case CarryKind::PingPong:
          case CarryKind::InPlace: nextPtr[i] = st.ptr[c.yield]; break;
          case CarryKind::PassThrough: nextPtr[i] = st.ptr[c.param]; break;
          case CarryKind::Copy: nextPtr[i] = other(c, st.ptr[c.param]); break;
          case CarryKind::Scalar: nextScal[i] = st.scal[c.yield]; break;
          case CarryKind::List: break;
        }
      }
      for (size_t i = 0; i < l.carries.size(); ++i) {
        const Carry& c = l.carries[i];
        if (c.kind == CarryKind::Scalar) st.scal[c.param] = nextScal[i];
        else if (c.kind != CarryKind::List) st.ptr[c.param] = nextPtr[i];
      }
    }

    void step(const Step& s, ThreadState& st) const {
      switch (s.kind) {
        case StepKind::Kernel: return kernel(p.kernelSteps_[s.index], st);
        case StepKind::Scalar: {
          const ScalarStep& a = p.scalarSteps_[s.index];
          st.scal[a.dst].i = wrapping(a.op, st.scal[a.a].i, st.scal[a.b].i);
          return;
        }
        case StepKind::Loop: return loop(p.loops_[s.index], st);
        case StepKind::Append: {
          const AppendStep& a = p.appends_[s.index];
          const ListSpec& list = p.lists_[a.list];
          char* row = listRows[a.list] + st.scal[a.counter].i * list.bytes;
          if (st.tid == 0) {
            if (a.strided)
              copyStrided(row, list.layout, (const char*)st.ptr[a.source], st.lay[a.source], dtypeSize(list.dtype), 0,
                          copyRows(list.layout));
            else
              std::memcpy(row, st.ptr[a.source], list.bytes);
          }
          teamBarrier(st);
          return;
        }
        case StepKind::View: view(p.viewSteps_[s.index], st); return;
        case StepKind::Assign: return assign(p.assignSteps_[s.index], st);
        case StepKind::Attention: return attention(p.attentionSteps_[s.index], st);
      }
    }

    bool view(const ViewStep& v, ThreadState& st) const {
      LoopViewArgs args;
      if (v.index >= 0) args.index = args.start = st.scal[v.index].i;
      args.hasStart = v.view.op == LoopView::Op::Slice && v.index >= 0;
      args.hasEnd = v.end >= 0;
      if (args.hasEnd) args.end = st.scal[v.end].i;
      StridedLayout layout = st.lay[v.src];
      int64_t offset = 0;
      if (!applyLoopView(v.view, args, layout, offset, st.faultAt)) {
        st.fault = v.node;
        return false;
      }
      st.lay[v.dst] = layout;
      st.ptr[v.dst] = (char*)st.ptr[v.src] + offset * (int64_t)v.elemSize;
      return true;
    }

    // The team splits the region's rows; the base is the result.
    void assign(const AssignStep& a, ThreadState& st) const {
      if (!view(a.region, st)) return;
      const StridedLayout& region = st.lay[a.region.dst];
      const BlockShare share = blockShare(copyRows(region), st.team, st.tid);
      copyStrided((char*)st.ptr[a.region.dst], region, (const char*)st.ptr[a.source], st.lay[a.source],
                  a.region.elemSize, share.begin, share.end);
      st.ptr[a.out] = st.ptr[a.region.src];
      st.lay[a.out] = st.lay[a.region.src];
      if (a.barrierAfter) teamBarrier(st);
    }

    void attention(const AttentionStep& a, ThreadState& st) const {
      const StridedLayout &q = st.lay[a.q], &k = st.lay[a.k], &v = st.lay[a.v];
      const int r = q.rank;
      const AttentionCall call{(const float*)st.ptr[a.q], (const float*)st.ptr[a.k], (const float*)st.ptr[a.v],
                               (float*)st.ptr[a.out],     r - 2,                     q.sizes,
                               q.strides,                 k.strides,                 v.strides,
                               q.sizes[r - 2],            k.sizes[r - 2],            q.sizes[r - 1],
                               v.sizes[r - 1],            q.strides[r - 2],          k.strides[r - 2],
                               v.strides[r - 2],          (float)st.scal[a.scale].f};
      const AttentionWork w = attentionWork(call);
      const int64_t team = w.parallel ? st.team : 1;
      float* partials = scratch[a.scratch];
      if (st.tid < team) {
        const BlockShare items = blockShare(w.items, team, st.tid);
        attentionItems(call, w, partials, items.begin, items.end);
      }
      teamBarrier(st);
      if (w.chunks == 1) return;  // the items wrote the rows
      if (st.tid < team) {
        const BlockShare rows = blockShare(w.batches * call.rows, team, st.tid);
        attentionCombine(call, w, partials, rows.begin, rows.end);
      }
      teamBarrier(st);
    }

    // Every thread runs the same share of the blocks in every iteration
    // (contiguous ranges, as parallel_blocks.h splits a grid).
    void kernel(const KernelStep& k, ThreadState& st) const {
      for (size_t i = 0; i < k.buffers.size(); ++i) st.args[i] = st.ptr[k.buffers[i]];
      for (size_t i = 0; i < k.params.size(); ++i) st.params[i] = st.scal[k.params[i]];
      const PhaseCode& code = p.code_[k.kernel];
      const int64_t t = (st.tid + st.team - k.firstThread % st.team) % st.team;
      if (code.blockCount > 0) {
        const BlockShare share = blockShare(code.blockCount, st.team, t);
        if (share.begin < share.end) code.blocks(st.args.data(), st.params.data(), share.begin, share.end);
      } else if (t == 0) {
        code.entry(st.args.data(), st.params.data(), 1);
      }
      if (k.barrierAfter) teamBarrier(st);
    }
  };

  IValueList loopOutputs(const LoopSteps& top, const ThreadState& st, const std::vector<const IValue*>& outer,
                         const std::vector<void*>& buffers, const std::vector<Tensor>& homes,
                         const std::vector<Tensor>& lists, int64_t trips) const {
    IValueList out;
    for (size_t i = 0; i < top.carries.size(); ++i) {
      const Carry& c = top.carries[i];
      const Value* v = loop_.loop->output(i);
      switch (c.kind) {
        case CarryKind::Scalar: {
          const StitchScalar s = st.scal[c.output];
          const TypeKind kind = v->type()->kind();
          out.push_back(kind == TypeKind::Float ? IValue(s.f) : kind == TypeKind::Bool ? IValue(s.i != 0) : IValue(s.i));
          break;
        }
        case CarryKind::List: {
          const ListSpec& spec = lists_[c.param];
          IValueList rows;
          const int64_t numel = (int64_t)(spec.bytes / dtypeSize(spec.dtype));
          for (int64_t t = 0; t < trips; ++t)
            rows.push_back(lists[c.param].asStrided(spec.element, contiguousStrides(spec.element), t * numel));
          out.push_back(IValue::list(std::move(rows)));
          break;
        }
        case CarryKind::PingPong:
        case CarryKind::PassThrough:
        case CarryKind::Copy:
        case CarryKind::InPlace: {
          // In one of the slot's buffers, or still the value it started from.
          void* final = st.ptr[c.output];
          if (c.bufferA >= 0 && final == buffers[c.bufferA]) out.push_back(homes[c.bufferA]);
          else if (c.bufferB >= 0 && final == buffers[c.bufferB]) out.push_back(homes[c.bufferB]);
          else out.push_back(*outer[outerIndexOfReg_.at(c.init)]);
          break;
        }
      }
    }
    return out;
  }

  // ---- building ----

  int newTensorReg(const Value* v) {
    tensorRegOf_[v] = tensorRegs_;
    return newScratchReg(v);
  }

  // A register no value names (an assign's region); `v` gives its dtype and,
  // when static, its layout until a view sets one.
  int newScratchReg(const Value* v) {
    const Type& t = *v->type();
    StridedLayout layout;
    if (t.fullyKnown() && t.rank() <= kMaxLoopRank) layout = StridedLayout::dense(*t.shape());
    layoutInit_.push_back(layout);
    maxLayout_.push_back(layout);
    rootOf_.push_back(tensorRegs_);
    return tensorRegs_++;
  }

  int newScalarReg(const Value* v, StitchScalar init = StitchScalar{0}) {
    scalarRegOf_[v] = (int)scalarInit_.size();
    scalarInit_.push_back(init);
    return (int)scalarInit_.size() - 1;
  }

  int newBuffer(const Value* v) {
    buffers_.push_back(BufferSpec{*v->type()->shape(), *v->type()->dtype()});
    return (int)buffers_.size() - 1;
  }

  // A value read inside the loop: defined there already, or from outside.
  int tensorReg(const Value* v) {
    auto it = tensorRegOf_.find(v);
    if (it != tensorRegOf_.end()) return it->second;
    const int reg = newTensorReg(v);
    outerIndexOfReg_[reg] = (int)outer_.size();
    outer_.push_back(v);
    outerReg_.push_back(OuterReg{true, reg});
    return reg;
  }

  int scalarReg(const Value* v) {
    auto it = scalarRegOf_.find(v);
    if (it != scalarRegOf_.end()) return it->second;
    const int reg = newScalarReg(v);
    outer_.push_back(v);
    outerReg_.push_back(OuterReg{false, reg});
    return reg;
  }

  static bool isTensorValue(const Value* v) { return v->type()->isTensor(); }

  int buildLoop(const Node* node, bool outermost) {
    LoopSteps l;
    l.trips = scalarReg(node->input(0));
    l.cond = scalarReg(node->input(1));
    const Block* body = node->block(0);
    l.counter = newScalarReg(body->param(0));
    // A carried tensor that a body kernel produces lives in its slot's two
    // buffers (the first slot that yields it; another one copies it).
    std::unordered_map<const Value*, size_t> pingPong;
    for (size_t i = 1; i < body->params().size(); ++i) {
      const Value* y = body->ret(i);
      const Node* def = y->node();
      if (isTensorValue(y) && def && def->owningBlock() == body && kernels_.inKernel.count(def) && !pingPong.count(y))
        pingPong[y] = i;
    }
    std::unordered_map<const Value*, int> listOf;  // carried list param -> list index
    for (size_t i = 1; i < body->params().size(); ++i) {
      const Value* init = node->input(i + 1);
      const Value* param = body->param(i);
      const Value* y = body->ret(i);
      Carry c;
      if (init->type()->kind() == TypeKind::List) {
        STITCH_ASSERT(outermost, "loop kernel: a carried list in a nested loop");
        const Value* element = param->uses().at(0).user->input(1);
        c.kind = CarryKind::List;
        c.param = (int)lists_.size();
        const Shape& shape = *element->type()->shape();
        lists_.push_back(ListSpec{shape, *element->type()->dtype(),
                                  (size_t)numelOf(shape) * dtypeSize(*element->type()->dtype()),
                                  // (only a view, of rank kMaxLoopRank at most, is copied by it)
                                  shape.size() <= (size_t)kMaxLoopRank ? StridedLayout::dense(shape)
                                                                       : StridedLayout{}});
        listOf[param] = c.param;
      } else if (!isTensorValue(init)) {
        c.kind = CarryKind::Scalar;
        c.init = scalarReg(init);
        c.param = newScalarReg(param);
      } else {
        c.init = tensorReg(init);
        c.param = newTensorReg(param);
        const Node* def = y->node();
        const bool inPlace =
            def && def->is("immut.select_rev") && def->owningBlock() == body && !kernels_.inKernel.count(def);
        c.kind = y == param                                ? CarryKind::PassThrough
                 : inPlace                                 ? CarryKind::InPlace
                 : pingPong.count(y) && pingPong[y] == i ? CarryKind::PingPong
                                                           : CarryKind::Copy;
        STITCH_ASSERT(outermost || c.kind != CarryKind::InPlace, "loop kernel: an in-place carry in a nested loop");
        if (c.kind != CarryKind::PassThrough) {
          c.bufferA = newBuffer(param);
          if (c.kind != CarryKind::InPlace) c.bufferB = newBuffer(param);
          c.bytes = (size_t)numelOf(*param->type()->shape()) * dtypeSize(*param->type()->dtype());
        }
        l.copies |= c.kind == CarryKind::Copy;
      }
      l.carries.push_back(c);
    }
    for (const Node* n : *body) buildNode(n, l, pingPong, listOf, outermost ? l.counter : -1);
    if (!isCountedLoop(node)) l.next = scalarReg(body->ret(0));
    for (size_t i = 0; i < l.carries.size(); ++i) {
      Carry& c = l.carries[i];
      const Value* y = body->ret(i + 1);
      if (c.kind == CarryKind::Scalar) c.yield = scalarReg(y);
      else if (c.kind != CarryKind::List) c.yield = tensorReg(y);
      const Value* out = node->output(i);
      if (c.kind == CarryKind::Scalar) c.output = newScalarReg(out);
      else if (c.kind != CarryKind::List) c.output = newTensorReg(out);
    }
    maxCarries_ = std::max(maxCarries_, l.carries.size());
    inPlaceInputs_.resize(outer_.size(), -1);
    for (size_t i = 0; i < l.carries.size(); ++i)
      if (l.carries[i].kind == CarryKind::InPlace) inPlaceInputs_[(size_t)outerIndexOfReg_.at(l.carries[i].init)] = (int)i + 2;
    loops_.push_back(std::move(l));
    return (int)loops_.size() - 1;
  }

  void buildNode(const Node* n, LoopSteps& l, const std::unordered_map<const Value*, size_t>& pingPong,
                 const std::unordered_map<const Value*, int>& listOf, int counter) {
    if (n->is("prim.constant")) {
      const Constant& c = n->attr("value");
      StitchScalar s{0};
      if (n->output()->type()->kind() == TypeKind::Float) s.f = c.toDouble();
      else if (c.isBool()) s.i = c.toBool();
      else s.i = c.toInt();
      newScalarReg(n->output(), s);
      return;
    }
    auto at = kernels_.kernelAt.find(n);
    if (at != kernels_.kernelAt.end()) {
      if (kernels_.kernels[at->second].kind == KernelKind::Attention) return buildAttention(n, l);
      return buildKernel(at->second, l, pingPong);
    }
    if (kernels_.inKernel.count(n) || n->is("tssa.update")) return;
    if (n->is("immut.select_rev")) return buildAssign(n, l);
    if (std::optional<LoopView> view = loopViewOf(n)) {
      viewSteps_.push_back(viewStep(n, *view, tensorReg(n->input(0)), newTensorReg(n->output())));
      l.body.push_back(Step{StepKind::View, (int)viewSteps_.size() - 1});
      return;
    }
    if (n->is("prim.loop")) {
      l.body.push_back(Step{StepKind::Loop, buildLoop(n, false)});
      return;
    }
    if (n->is("list.append")) {
      STITCH_ASSERT(counter >= 0 && listOf.count(n->input(0)), "loop kernel: an append to a list it does not own");
      const int source = tensorReg(n->input(1));
      appends_.push_back(AppendStep{listOf.at(n->input(0)), source, counter, isView(source)});
      l.body.push_back(Step{StepKind::Append, (int)appends_.size() - 1});
      return;
    }
    ScalarStep s;
    s.op = scalarOpOf(n);
    s.a = scalarReg(n->input(0));
    s.b = n->inputs().size() > 1 ? scalarReg(n->input(1)) : s.a;
    s.dst = newScalarReg(n->output());
    scalarSteps_.push_back(s);
    l.body.push_back(Step{StepKind::Scalar, (int)scalarSteps_.size() - 1});
  }

  bool isView(int reg) const {
    return std::any_of(viewSteps_.begin(), viewSteps_.end(), [&](const ViewStep& v) { return v.dst == reg; });
  }

  ViewStep viewStep(const Node* n, const LoopView& view, int src, int dst) {
    ViewStep v;
    v.view = view;
    v.src = src;
    v.dst = dst;
    if (view.index) v.index = scalarReg(view.index);
    if (view.end) v.end = scalarReg(view.end);
    v.elemSize = dtypeSize(*n->input(0)->type()->dtype());
    v.node = n;
    // The largest layout the view can have: a select's index and a slice's
    // bounds change no size or stride but the sliced length, at most the
    // whole dim.
    StridedLayout most = maxLayout_[src];
    int64_t offset = 0;
    LoopViewFault unused;
    applyLoopView(view, LoopViewArgs{}, most, offset, unused);
    maxLayout_[dst] = most;
    rootOf_[(size_t)dst] = rootOf_[(size_t)src];
    return v;
  }

  void buildAssign(const Node* n, LoopSteps& l) {
    AssignStep a;
    const int base = tensorReg(n->input(0));
    a.region = viewStep(n, *loopViewOf(n), base, newScratchReg(n->input(0)));
    a.source = tensorReg(n->input(1));
    a.out = newTensorReg(n->output());
    rootOf_[(size_t)a.out] = rootOf_[(size_t)base];
    // Right after another write into other memory, read from memory that
    // one does not write: no barrier between the two.
    if (!l.body.empty() && l.body.back().kind == StepKind::Assign) {
      AssignStep& previous = assignSteps_[(size_t)l.body.back().index];
      const int written = rootOf_[(size_t)previous.region.src];
      if (written != rootOf_[(size_t)base] && written != rootOf_[(size_t)a.source] &&
          rootOf_[(size_t)base] != rootOf_[(size_t)previous.source])
        previous.barrierAfter = false;
    }
    assignSteps_.push_back(a);
    l.body.push_back(Step{StepKind::Assign, (int)assignSteps_.size() - 1});
  }

  void buildAttention(const Node* n, LoopSteps& l) {
    AttentionStep a;
    a.q = tensorReg(n->input(0));
    a.k = tensorReg(n->input(1));
    a.v = tensorReg(n->input(2));
    a.scale = scalarReg(n->input(3));
    a.out = newTensorReg(n->output());
    fixedHomes_.emplace_back(a.out, newBuffer(n->output()));
    // Partials for the most keys the slices can give.
    const StridedLayout &q = maxLayout_[a.q], &k = maxLayout_[a.k], &v = maxLayout_[a.v];
    const int r = q.rank;
    const AttentionCall most{nullptr,        nullptr,        nullptr,        nullptr,        r - 2,
                             q.sizes,        q.strides,      k.strides,      v.strides,      q.sizes[r - 2],
                             k.sizes[r - 2], q.sizes[r - 1], v.sizes[r - 1], q.strides[r - 2], k.strides[r - 2],
                             v.strides[r - 2], 1.0f};
    a.scratch = (int)scratchFloats_.size();
    scratchFloats_.push_back(attentionPartialFloats(most, attentionWork(most)));
    attentionSteps_.push_back(a);
    l.body.push_back(Step{StepKind::Attention, (int)attentionSteps_.size() - 1});
  }

  void buildKernel(int index, LoopSteps& l, const std::unordered_map<const Value*, size_t>& pingPong) {
    const Kernel& k = kernels_.kernels[index];
    KernelStep step;
    step.kernel = index;
    std::vector<int> inputs;
    for (const Value* in : k.inputs) inputs.push_back(tensorReg(in));
    bool anyElement = false;
    for (const Value* out : k.outputs) {
      const int reg = newTensorReg(out);
      if (!pingPong.count(out)) fixedHomes_.emplace_back(reg, newBuffer(out));
      step.buffers.push_back(reg);
      anyElement |= numelOf(*out->type()->shape()) > 0;
    }
    step.outputs = step.buffers.size();
    const LoopKernel::Phase& phase = loop_.phases.at(index);
    step.barrierAfter = phase.barrierAfter;
    step.firstThread = phase.firstThread;
    step.buffers.insert(step.buffers.end(), inputs.begin(), inputs.end());
    for (const Value* p : k.params) step.params.push_back(scalarReg(p));
    maxArgs_ = std::max(maxArgs_, step.buffers.size());
    maxParams_ = std::max(maxParams_, step.params.size());
    // Kernels whose outputs are all empty are not called (as on the host).
    if (!anyElement) return;
    kernelSteps_.push_back(std::move(step));
    l.body.push_back(Step{StepKind::Kernel, (int)kernelSteps_.size() - 1});
  }

  const KernelGraph& kernels_;
  const LoopKernel& loop_;
  std::vector<PhaseCode> code_;
  int top_ = -1;
  std::vector<LoopSteps> loops_;
  std::vector<KernelStep> kernelSteps_;
  std::vector<ScalarStep> scalarSteps_;
  std::vector<AppendStep> appends_;
  std::vector<ViewStep> viewSteps_;
  std::vector<AssignStep> assignSteps_;
  std::vector<AttentionStep> attentionSteps_;
  std::vector<int64_t> scratchFloats_;  // per AttentionStep
  // Per tensor register: its layout before any view sets one (dense and
  // static), and the largest a view can give it (sizes bound the scratch).
  std::vector<StridedLayout> layoutInit_, maxLayout_;
  // Per tensor register: the register whose memory it is a view of (itself
  // when it is none).
  std::vector<int> rootOf_;
  std::vector<BufferSpec> buffers_;
  std::vector<ListSpec> lists_;
  std::vector<std::pair<int, int>> fixedHomes_;  // tensor register -> its buffer
  std::unordered_map<const Value*, int> tensorRegOf_, scalarRegOf_;
  std::vector<const Value*> outer_;
  std::vector<OuterReg> outerReg_;
  std::unordered_map<int, int> outerIndexOfReg_;
  std::vector<int> inPlaceInputs_;
  int tensorRegs_ = 0;
  std::vector<StitchScalar> scalarInit_;
  size_t maxArgs_ = 0, maxParams_ = 0, maxCarries_ = 0;
};

LoopKernelRunner::LoopKernelRunner(const LoopKernel& loop, const KernelGraph& kernels,
                                   const std::vector<PhaseCode>& code)
    : program_(std::make_unique<LoopKernelProgram>(loop, kernels, code)) {}

LoopKernelRunner::~LoopKernelRunner() = default;

const std::vector<const Value*>& LoopKernelRunner::outerValues() const { return program_->outerValues(); }

const std::vector<int>& LoopKernelRunner::inPlaceInputs() const { return program_->inPlaceInputs(); }

bool LoopKernelRunner::run(const std::vector<const IValue*>& outer, const std::vector<bool>& writable,
                           BufferPool& pool, int threads, IValueList& outputs) const {
  return program_->run(outer, writable, pool, threads, outputs);
}

}  // namespace stitch
