#include "runtime/program_run.h"

#include <algorithm>

#include "runtime/in_place_assign.h"

namespace stitch {

ProgramRun::ProgramRun(CompiledProgram& program, bool timeKernels, std::vector<WritableArgument> writable,
                       RunCapture* capture)
    : p_(program),
      env_(program.slots_.size()),
      bound_(program.slots_.size(), 0),
      writable_(std::move(writable)),
      timeKernels_(timeKernels),
      capture_(capture) {
  if (program.onCuda_)
    device_ = std::make_unique<DeviceValues>(gpuDevice(), program.slots_.size(), program.pureGraph_, capture);
}

IValueList ProgramRun::runBlock(const Block* block, IValueList params, std::vector<CudaPointer>* carries) {
  const std::vector<Value*>& ps = block->params();
  STITCH_ASSERT(ps.size() == params.size(), "block expects ", ps.size(), " values, got ", params.size());
  for (size_t i = 0; i < ps.size(); ++i) {
    bind(ps[i], std::move(params[i]));
    if (carries && (*carries)[i]) {
      const size_t slot = p_.slots_.of(ps[i]);
      device_->written(slot, (*carries)[i], env_[slot].toTensor());
      (*carries)[i] = 0;
    }
  }
  const BlockLiveness& live = p_.liveness_.of(block);
  const std::vector<NodeStep>& steps = p_.steps_.of(block);
  drop(live.unusedParams);
  size_t index = 0;
  for (const Node* node : *block) {
    const NodeStep& step = steps[index];
    withNodeLocation(*node, [&] { runNode(node, step); });
    drop(live.dropAfter[index++]);
  }
  IValueList out;
  const std::vector<Value*>& rs = block->returns();
  if (capture_ && block == p_.graph_.top()) {
    captureReturns(rs);
  } else {
    if (carries) carries->assign(rs.size(), 0);
    for (size_t j = 0; j < rs.size(); ++j) out.push_back(carries ? carryOut(rs[j], (*carries)[j]) : lookup(rs[j]));
  }
  drop(live.dropAtEnd);
  return out;
}

IValue* ProgramRun::find(const Value* v) {
  size_t slot = p_.slots_.of(v);
  if (!bound_[slot]) return nullptr;
  if (capture_ && holdsTensor(env_[slot])) throw CaptureRefused("the host reads a tensor");
  if (device_) {
    const IValue& value = env_[slot];
    if (value.isTensor())
      device_->readOnHost(slot);
    else if (device_->keepsAny() && (value.isList() || value.isTuple()))
      device_->readOnHost(value);
  }
  return &env_[slot];
}

const IValue& ProgramRun::lookup(const Value* v) const {
  const IValue* value = find(v);
  STITCH_ASSERT(value, "value %", v->debugName(), " used before it is defined");
  return *value;
}

void ProgramRun::bind(const Value* v, IValue value) {
  size_t slot = p_.slots_.of(v);
  if (device_) device_->forget(slot);
  env_[slot] = std::move(value);
  bound_[slot] = 1;
}

void ProgramRun::unbind(const Value* v) {
  size_t slot = p_.slots_.of(v);
  if (device_) device_->forget(slot);
  env_[slot] = IValue();
  bound_[slot] = 0;
}

void ProgramRun::drop(const std::vector<const Value*>& dead) {
  for (const Value* v : dead) unbind(v);
}

IValueList ProgramRun::inputValues(const Node* node) const {
  IValueList args;
  args.reserve(node->inputs().size());
  for (const Value* in : node->inputs()) args.push_back(lookup(in));
  return args;
}

bool ProgramRun::appendedInPlace(const Node* node) {
  const size_t slot = p_.slots_.of(node->input(0));
  STITCH_ASSERT(bound_[slot], "value %", node->input(0)->debugName(), " used before it is defined");
  IValue* list = &env_[slot];  // not find(): appending reads no element
  if (!list->appendIfUnshared(appendedElement(node))) return false;
  IValue grown = std::move(*list);
  unbind(node->input(0));
  bind(node->output(), std::move(grown));
  ++inPlaceAppends_;
  return true;
}

const IValue& ProgramRun::appendedElement(const Node* node) {
  const size_t slot = p_.slots_.of(node->input(1));
  if (!device_ || !bound_[slot] || !env_[slot].isTensor() || !device_->onDevice(slot)) return lookup(node->input(1));
  device_->keepForList(slot, env_[slot].toTensor());
  return env_[slot];
}

IValueList ProgramRun::callHost(const HostOp& op, const Node* node) {
  hostArgs_.clear();
  if (device_ && op.appends) {
    const size_t list = p_.slots_.of(node->input(0));
    STITCH_ASSERT(bound_[list], "value %", node->input(0)->debugName(), " used before it is defined");
    hostArgs_.push_back(env_[list]);  // copying the list reads no element
    hostArgs_.push_back(appendedElement(node));
  } else {
    for (const Value* in : node->inputs()) hostArgs_.push_back(lookup(in));
  }
  IValueList results = runHostOp(op, *node, hostArgs_);
  // The references go now: how many hold a buffer decides in-place writes.
  hostArgs_.clear();
  return results;
}

IValueList ProgramRun::callHostUnread(const HostOp& op, const Node* node) {
  hostArgs_.clear();
  for (const Value* in : node->inputs()) {
    const size_t slot = p_.slots_.of(in);
    STITCH_ASSERT(bound_[slot], "value %", in->debugName(), " used before it is defined");
    hostArgs_.push_back(env_[slot]);
  }
  IValueList results = runHostOp(op, *node, hostArgs_);
  hostArgs_.clear();
  return results;
}

void ProgramRun::extractedOnDevice(const Node* node, const HostOp& op) {
  bindOutputs(node, callHostUnread(op, node));
  for (const Value* out : node->outputs()) {
    const size_t slot = p_.slots_.of(out);
    if (env_[slot].isTensor() && env_[slot].toTensor().defined()) device_->takeFromList(slot, env_[slot].toTensor());
  }
}

bool ProgramRun::viewedOnDevice(const Node* node, const HostOp& op) {
  const size_t base = p_.slots_.of(node->input(0));
  if (!bound_[base] || !env_[base].isTensor()) return false;
  if (op.reshapes && !env_[base].toTensor().isContiguous()) return false;  // the host would copy
  if (!residentOnDevice(base)) return false;
  hostArgs_.clear();
  hostArgs_.push_back(env_[base]);  // not find(): nothing is read back
  for (size_t i = 1; i < node->inputs().size(); ++i) hostArgs_.push_back(lookup(node->input(i)));
  IValueList results = runHostOp(op, *node, hostArgs_);
  hostArgs_.clear();
  STITCH_ASSERT(
      results.size() == 1 && results[0].isTensor() && results[0].toTensor().sameStorage(env_[base].toTensor()), "'",
      node->kind(), "' took no view of its input");
  bind(node->output(), std::move(results[0]));
  const size_t view = p_.slots_.of(node->output());
  // A buffer that mirrors no host memory is an upload: the host is current.
  if (!device_->shareView(view, base, env_[view].toTensor()))
    STITCH_ASSERT(!device_->hostBehind(base), "a view of a value the host is behind");
  return true;
}

bool ProgramRun::holdsTensor(const IValue& v) {
  if (v.isTensor()) return v.toTensor().defined();
  if (!v.isList() && !v.isTuple()) return false;
  for (const IValue& e : v.toList())
    if (holdsTensor(e)) return true;
  return false;
}

void ProgramRun::captureReturns(const std::vector<Value*>& rs) {
  for (const Value* r : rs) {
    const size_t slot = p_.slots_.of(r);
    STITCH_ASSERT(bound_[slot], "value %", r->debugName(), " used before it is defined");
    captured_.add(env_[slot], *capture_,
                  [&](const Tensor& t, DeviceMirror& m) { return device_->mirrorOf(slot, t, m); });
  }
}

IValue ProgramRun::carryOut(const Value* v, CudaPointer& device) {
  const size_t slot = p_.slots_.of(v);
  STITCH_ASSERT(bound_[slot], "value %", v->debugName(), " used before it is defined");
  const bool tensor = device_ && env_[slot].isTensor();
  const bool always = tensor && capture_ && env_[slot].toTensor().defined() && residentOnDevice(slot);
  device = tensor ? device_->copyForCarry(slot, env_[slot].toTensor(), always) : 0;
  // Carrying a list reads none of its elements (kept on the device).
  if (device || (device_ && (env_[slot].isList() || env_[slot].isTuple()))) return env_[slot];
  return lookup(v);
}

void ProgramRun::bindOutputs(const Node* node, IValueList results) {
  const std::vector<Value*>& outs = node->outputs();
  STITCH_ASSERT(results.size() == outs.size(), "'", node->kind(), "' gave ", results.size(), " values for ",
                outs.size(), " outputs");
  for (size_t i = 0; i < outs.size(); ++i) bind(outs[i], std::move(results[i]));
}

void ProgramRun::runNode(const Node* node, const NodeStep& step) {
  using A = NodeStep::Action;
  // Constants are cheap and kernels bake theirs, but a host op may still
  // read one, so they are always bound.
  if (step.action == A::Constant) return bind(node->output(), step.constant);
  if (step.mayAssignInPlace && assignedInPlace(node, step)) return;
  switch (step.action) {
    case A::Kernel:
      return callKernel(step.kernel);
    case A::Loop:
      return runLoop(node);
    case A::If:
      return runIf(node);
    case A::Host:
      if (step.appendsInPlace && appendedInPlace(node)) return;
      if (device_ && (step.host.aliases || step.host.reshapes) && viewedOnDevice(node, step.host)) return;
      if (device_ && step.host.readsShapes) return bindOutputs(node, callHostUnread(step.host, node));
      if (device_ && step.host.extracts) return extractedOnDevice(node, step.host);
      if (device_ && step.host.copies && p_.pureGraph_ && hostCopyOnDevice(node)) return;
      return bindOutputs(node, callHost(step.host, node));
    case A::Constant:
    case A::InKernel:
    case A::Nothing:
      return;
  }
}

void ProgramRun::runLoop(const Node* node) {
  auto kernel = p_.loopKernels_.find(node);
  if (kernel != p_.loopKernels_.end() && runLoopKernel(node, *kernel->second)) return;
  const std::vector<Value*>& ins = node->inputs();
  STITCH_ASSERT(ins.size() >= 2, "prim.loop needs max_trip_count and cond");
  int64_t maxTrip = lookup(ins[0]).toInt();
  bool cond = lookup(ins[1]).toBool();
  IValueList carried;
  // The carried values' device copies, as the body's params see them
  // (the first param is the trip count): a GPU run's carries stay there.
  CarriedCopies copies(device_.get(), ins.size() - 1);
  const std::vector<bool>& moved = p_.steps_.movedCarries(node);
  for (size_t i = 2; i < ins.size(); ++i) {
    carried.push_back(carryOut(ins[i], copies.ptrs[i - 1]));
    if (moved[i]) unbind(ins[i]);  // the body may write it in place
  }
  const Block* body = node->block(0);
  std::vector<CudaPointer>* carries = device_ ? &copies.ptrs : nullptr;
  bindOutputs(node, runLoopIterations(maxTrip, cond, std::move(carried), [&](IValueList params) {
                ++hostIterations_;
                IValueList returns = runBlock(body, std::move(params), carries);
                // The condition is a bool the host reads, never on the device.
                STITCH_ASSERT(!copies.ptrs[0], "a loop condition held on the device");
                return returns;
              }));
  if (!device_) return;
  for (size_t i = 0; i < node->outputs().size(); ++i) {
    CudaPointer& copy = copies.ptrs.at(i + 1);
    if (!copy) continue;
    const size_t slot = p_.slots_.of(node->output(i));
    device_->written(slot, copy, env_[slot].toTensor());
    copy = 0;
  }
}

bool ProgramRun::runLoopKernel(const Node* node, const LoopKernelRunner& kernel) {
  loopOuter_.clear();
  for (const Value* v : kernel.outerValues()) loopOuter_.push_back(&lookup(v));
  findWritableOuter(node, kernel);
  IValueList outputs;
  KernelClock clock(*this);
  if (!kernel.run(loopOuter_, loopWritable_, p_.pool_, p_.threads_, outputs)) return false;
  ++kernelCalls_;
  bindOutputs(node, std::move(outputs));
  return true;
}

void ProgramRun::findWritableOuter(const Node* node, const LoopKernelRunner& kernel) {
  loopWritable_.assign(loopOuter_.size(), false);
  const std::vector<int>& inputs = kernel.inPlaceInputs();
  const std::vector<bool>& moved = p_.steps_.movedCarries(node);
  for (size_t k = 0; k < loopOuter_.size(); ++k) {
    if (inputs[k] < 0 || !moved[(size_t)inputs[k]] || !loopOuter_[k]->isTensor()) continue;
    const Tensor& t = loopOuter_[k]->toTensor();
    loopWritable_[k] = t.defined() && (p_.pool_.onlyHeldBy(t.storage(), 1) || writableArgument(t));
  }
}

void ProgramRun::runIf(const Node* node) {
  bool cond = lookup(node->input(0)).toBool();
  bindOutputs(node, runBlock(node->block(cond ? 0 : 1), {}));
}

bool ProgramRun::assignedInPlace(const Node* node, const NodeStep& step) {
  // On the GPU an assign that is a kernel runs there: here it would bring
  // both tensors to the host.
  if (device_ && step.kernel >= 0) return false;
  if (device_ && assignedOnDevice(node, step)) return true;
  const IValue& base = lookup(node->input(0));
  const IValue& src = lookup(node->input(1));
  if (!base.isTensor() || !src.isTensor()) return false;
  const Tensor& b = base.toTensor();
  if (!b.defined() || b.sameStorage(src.toTensor())) return false;
  if (!p_.pool_.onlyHeldBy(b.storage(), 1) && !writableArgument(b)) return false;
  IValueList args = inputValues(node);
  Tensor out;
  {
    KernelClock clock(*this, step.kernel >= 0);  // else a host op's work
    out = assignInPlace(*node, step.view, args);
  }
  bind(node->output(), std::move(out));
  if (step.kernel >= 0) ++kernelCalls_;
  ++inPlaceAssigns_;
  return true;
}

bool ProgramRun::residentOnDevice(size_t slot) {
  if (device_->onDevice(slot)) return true;
  const Tensor& t = env_[slot].toTensor();
  if (!p_.pureGraph_ || !t.defined() || !t.isContiguous()) return false;
  device_->forKernel(slot, t);
  return true;
}

bool ProgramRun::assignedOnDevice(const Node* node, const NodeStep& step) {
  const size_t baseSlot = p_.slots_.of(node->input(0)), srcSlot = p_.slots_.of(node->input(1));
  if (!env_[baseSlot].isTensor() || !env_[srcSlot].isTensor() || !residentOnDevice(baseSlot)) return false;
  const IValue base = env_[baseSlot];
  const Tensor& b = base.toTensor();
  const Tensor& src = env_[srcSlot].toTensor();
  if (!b.defined() || !src.defined() || b.sameStorage(src)) return false;
  // This environment's reference and `base`'s.
  if (!p_.pool_.onlyHeldBy(b.storage(), 2) && !writableArgument(b, 1)) return false;
  Tensor region = b;
  if (step.view) {
    IValueList viewArgs{base};
    for (size_t i = 2; i < node->inputs().size(); ++i) viewArgs.push_back(lookup(node->input(i)));
    IValueList r = (*step.view)(*node, viewArgs);
    STITCH_ASSERT(r.size() == 1 && r[0].isTensor() && r[0].toTensor().sameStorage(b), node->kind(),
                  "'s view gave no view of its base");
    region = r[0].toTensor();
  }
  if (!device_->writeRegion(baseSlot, region, srcSlot, src)) return false;
  bind(node->output(), base);
  device_->shareView(p_.slots_.of(node->output()), baseSlot, b);
  ++inPlaceAssigns_;
  return true;
}

bool ProgramRun::writableArgument(const Tensor& t, long extra) const {
  for (const WritableArgument& w : writable_)
    if (w.storage == t.storage().get()) return t.storage().use_count() == w.callerReferences + 1 + extra;
  return false;
}

}  // namespace stitch
