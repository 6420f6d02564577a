// ProgramRun's kernel calls (runtime/program_run.h): generated kernels,
// contractions, attention and copies, on the host or the GPU.
#include <algorithm>

#include "runtime/attention_kernel.h"
#include "runtime/copy_kernels.h"
#include "runtime/device_attention.h"
#include "runtime/device_contraction.h"
#include "runtime/device_copy.h"
#include "runtime/program_run.h"

namespace stitch {

void ProgramRun::callKernel(int index) {
  const Kernel& k = p_.plan_.kernels.kernels.at(index);
  ++kernelCalls_;
  switch (k.kind) {
    case KernelKind::GraphDefined:
      return callGenerated(k, p_.functions_.at(index));
    case KernelKind::Copy:
      return callCopy(k);
    case KernelKind::Contraction:
      return callContraction(k, p_.contractions_.at(index).get());
    case KernelKind::Attention:
      return callAttention(k);
  }
}

void ProgramRun::callAttention(const Kernel& k) {
  const Node* node = k.nodes[0];
  if (device_ && attendOnDevice(k)) return;
  // Rows must be contiguous: an operand strided along its last dim is
  // copied first.
  auto rows = [&](const Value* v) {
    const Tensor& t = lookup(v).toTensor();
    return t.dim() > 0 && t.size(t.dim() - 1) > 1 && t.stride(t.dim() - 1) != 1 ? t.contiguous() : t;
  };
  const Tensor q = rows(node->input(0)), keys = rows(node->input(1)), v = rows(node->input(2));
  if (!attentionApplies(q, keys, v)) return runNodesOnHost(k);
  Tensor out = p_.pool_.allocate(attentionOutputShape(q, v), DType::f32);
  {
    KernelClock clock(*this);
    attentionF32(q, keys, v, (float)lookup(node->input(3)).toDouble(), out, p_.threads_);
  }
  bind(node->output(), std::move(out));
}

bool ProgramRun::attendOnDevice(const Kernel& k) {
  const Node* node = k.nodes[0];
  const std::vector<const Value*> operands = {node->input(0), node->input(1), node->input(2)};
  // The host tensors' sizes, not their data: nothing is read back here.
  auto sized = [&](int i) -> const IValue& { return env_[p_.slots_.of(operands[(size_t)i])]; };
  for (int i = 0; i < 3; ++i)
    if (!sized(i).isTensor()) return false;
  const Tensor &q = sized(0).toTensor(), &keys = sized(1).toTensor(), &v = sized(2).toTensor();
  DeviceAttention a;
  if (!deviceAttentionSizes(q, keys, v, a) || !deviceRunsAttention(a)) return false;
  // Each operand where it lies when the kernel can step through it (a
  // slice of a KV cache), else dense.
  auto place = [&](int i, CudaPointer& ptr, int64_t& batch, int64_t& row) {
    const size_t slot = p_.slots_.of(operands[(size_t)i]);
    const Tensor& t = sized(i).toTensor();
    int64_t b = 0, r = 0;
    if ((ptr = device_->inPlace(slot, t)) && attentionStrides(t, b, r)) {
      batch = b;
      row = r;
    } else {
      ptr = device_->forKernel(slot, t);  // dense: the strides deviceAttentionSizes set
    }
  };
  place(0, a.q, a.qBatch, a.qRow);
  place(1, a.k, a.kBatch, a.kRow);
  place(2, a.v, a.vBatch, a.vRow);
  a.scale = (float)lookup(node->input(3)).toDouble();
  Tensor out = p_.pool_.allocate(attentionOutputShape(q, v), DType::f32);
  a.out = device_->allocate(size_t(out.numel()) * 4);
  {
    KernelClock clock(*this);
    // The dispatch counted one call; a combine is a second launch.
    kernelCalls_ += runAttentionOnDevice(gpuDevice(), a) - 1;
  }
  device_->endCall();
  bind(node->output(), std::move(out));
  const size_t slot = p_.slots_.of(node->output());
  device_->written(slot, a.out, env_[slot].toTensor());
  return true;
}

void ProgramRun::callContraction(const Kernel& k, const ContractionKernel* kernel) {
  if (!kernel) return runNodesOnHost(k);
  if (device_ && contractOnDevice(k, *kernel)) return;
  if (!kernel->runnable()) return runNodesOnHost(k);
  std::vector<Tensor> operands;
  for (const Value* v : kernel->operands()) {
    const IValue& value = lookup(v);
    if (!value.isTensor() || !matchesStaticType(value.toTensor(), v)) return runNodesOnHost(k);
    operands.push_back(dense(value.toTensor()));
  }
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : operands) ptrs.push_back(&t);
  const Type& type = staticTensorType(k.outputs.at(0));
  Tensor out = p_.pool_.allocate(*type.shape(), *type.dtype());
  {
    KernelClock clock(*this);
    kernel->run(ptrs, out);
  }
  bind(k.outputs.at(0), std::move(out));
}

bool ProgramRun::contractOnDevice(const Kernel& k, const ContractionKernel& kernel) {
  if (!deviceRunsContraction(gpuDevice(), kernel.form())) return false;
  std::vector<CudaPointer> operands(kernel.operands().size());
  if (!deviceOperands(kernel.operands(), operands.data())) return false;
  const Type& type = staticTensorType(k.outputs.at(0));
  Tensor out = p_.pool_.allocate(*type.shape(), *type.dtype());
  const CudaPointer result = device_->allocate(size_t(out.numel()) * dtypeSize(out.dtype()));
  {
    KernelClock clock(*this);
    // The dispatch counted one call; an epilogue is a second launch.
    kernelCalls_ += runContractionOnDevice(gpuDevice(), kernel, operands, result) - 1;
  }
  device_->endCall();
  bind(k.outputs.at(0), std::move(out));
  const size_t slot = p_.slots_.of(k.outputs.at(0));
  device_->written(slot, result, env_[slot].toTensor());
  return true;
}

void ProgramRun::runNodesOnHost(const Kernel& k) {
  for (const Node* node : k.nodes) {
    if (node->kind() == "prim.constant") continue;  // bound where it stands
    withNodeLocation(*node, [&] { bindOutputs(node, runHostOp(*node, inputValues(node))); });
  }
}

Tensor ProgramRun::dense(const Tensor& t) {
  if (t.isContiguous()) return t;
  Tensor copy = p_.pool_.allocate(t.sizes(), t.dtype());
  copy.copyFrom(t);
  return copy;
}

void ProgramRun::callGenerated(const Kernel& k, KernelFunction fn) {
  if (device_) return callOnDevice(k);
  STITCH_ASSERT(fn, "kernel ", k.name, " has no loaded code");
  const size_t nOut = k.outputs.size();
  bufs_.assign(nOut + k.inputs.size(), nullptr);
  denseCopies_.clear();
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    const Value* v = k.inputs[i];
    const IValue& value = lookup(v);
    // A shape the static type did not foresee (data-dependent): the host
    // computes it exactly instead.
    if (!value.isTensor() || !matchesStaticType(value.toTensor(), v)) {
      denseCopies_.clear();
      return runNodesOnHost(k);
    }
    const Tensor& t = value.toTensor();
    if (t.isContiguous()) {
      bufs_[nOut + i] = t.rawData();
    } else {
      denseCopies_.push_back(dense(t));
      bufs_[nOut + i] = denseCopies_.back().rawData();
    }
  }
  setParams(k);
  outputs_.clear();
  bool anyElement = false;
  for (size_t i = 0; i < nOut; ++i) {
    const Type& type = staticTensorType(k.outputs[i]);
    outputs_.push_back(p_.pool_.allocate(*type.shape(), *type.dtype()));
    anyElement |= outputs_.back().numel() > 0;
    bufs_[i] = outputs_.back().rawData();
  }
  if (anyElement) {
    KernelClock clock(*this);
    fn(bufs_.data(), params_.data(), p_.callThreads_[&k - p_.plan_.kernels.kernels.data()]);
  }
  denseCopies_.clear();
  for (size_t i = 0; i < nOut; ++i) bind(k.outputs[i], std::move(outputs_[i]));
  outputs_.clear();
}

void ProgramRun::setParams(const Kernel& k) {
  params_.resize(k.params.size());
  for (size_t i = 0; i < k.params.size(); ++i) {
    const IValue& value = lookup(k.params[i]);
    if (k.params[i]->type()->kind() == TypeKind::Float)
      params_[i].f = value.toDouble();
    else
      params_[i].i = value.toInt();
  }
}

bool ProgramRun::deviceOperands(const std::vector<const Value*>& values, CudaPointer* out) {
  for (size_t i = 0; i < values.size(); ++i) {
    const Value* v = values[i];
    const size_t slot = p_.slots_.of(v);
    STITCH_ASSERT(bound_[slot], "value %", v->debugName(), " used before it is defined");
    const IValue& value = env_[slot];  // not find(): a value already on the device stays there
    if (!value.isTensor() || !matchesStaticType(value.toTensor(), v)) {
      device_->endCall();
      return false;
    }
    out[i] = device_->forKernel(slot, value.toTensor());
  }
  return true;
}

void ProgramRun::callOnDevice(const Kernel& k) {
  const size_t nOut = k.outputs.size();
  deviceBufs_.assign(nOut + k.inputs.size(), 0);
  if (!deviceOperands(k.inputs, deviceBufs_.data() + nOut)) return runNodesOnHost(k);
  setParams(k);
  outputs_.clear();
  for (size_t i = 0; i < nOut; ++i) {
    const Type& type = staticTensorType(k.outputs[i]);
    outputs_.push_back(p_.pool_.allocate(*type.shape(), *type.dtype()));
    deviceBufs_[i] = device_->allocate(size_t(outputs_.back().numel()) * dtypeSize(outputs_.back().dtype()));
  }
  {
    KernelClock clock(*this);
    // The dispatch counted one call; a part after the grid is a second launch.
    kernelCalls_ +=
        p_.cuda_->launch(k.name, deviceBufs_.data(), deviceBufs_.size(), params_.data(), params_.size()) - 1;
  }
  device_->endCall();
  for (size_t i = 0; i < nOut; ++i) {
    bind(k.outputs[i], std::move(outputs_[i]));
    const size_t slot = p_.slots_.of(k.outputs[i]);
    device_->written(slot, deviceBufs_[i], env_[slot].toTensor());
  }
  outputs_.clear();
}

bool ProgramRun::copyOperand(const Kernel& k, const Value* v, IValue& out, bool onDevice,
                             std::vector<std::pair<Tensor, size_t>>& slots) const {
  auto value = [&](const Value* x) -> const IValue* {
    if (!onDevice) return find(x);
    const size_t slot = p_.slots_.of(x);
    if (!bound_[slot]) return nullptr;
    if (env_[slot].isTensor()) slots.emplace_back(env_[slot].toTensor(), slot);
    return &env_[slot];
  };
  if (const IValue* found = value(v)) {
    out = *found;
    return true;
  }
  const Node* def = v->node();
  bool inside = std::find(k.nodes.begin(), k.nodes.end(), def) != k.nodes.end();
  if (!inside || def->kind() != "prim.list_construct") return false;
  IValueList elems;
  for (const Value* e : def->inputs()) {
    const IValue* found = value(e);
    if (!found) return false;
    elems.push_back(*found);
  }
  out = IValue::list(std::move(elems));
  return true;
}

void ProgramRun::callCopy(const Kernel& k) {
  const Node* node = k.nodes.back();
  // In an imperative graph `contiguous` returns its input when that is
  // contiguous, and later writes through either must show in both.
  bool supported = isCopyKernelOp(node->kind()) && node->outputs().size() == 1 && k.outputs.size() == 1 &&
                   k.outputs[0] == node->output() && (p_.pureGraph_ || node->kind() != "contiguous");
  IValueList args;
  std::vector<std::pair<Tensor, size_t>> slots;
  for (const Value* in : node->inputs()) {
    if (!supported) break;
    args.emplace_back();
    supported = copyOperand(k, in, args.back(), device_ != nullptr, slots);
  }
  if (supported) {
    const Type& type = staticTensorType(node->output());
    Tensor out = p_.pool_.allocate(*type.shape(), *type.dtype());
    if (device_) {
      if (copiedOnDevice(node, args, slots, out)) {
        --kernelCalls_;  // the dispatch counted one call; the pieces count as copies
        return;
      }
      // The host copies: the operands as the host has them.
      args.clear();
      for (const Value* in : node->inputs()) {
        args.emplace_back();
        copyOperand(k, in, args.back(), false, slots);
      }
    }
    bool ran;
    {
      KernelClock clock(*this);
      ran = runCopyKernel(*node, args, out);
    }
    if (ran) {
      bind(node->output(), std::move(out));
      return;
    }
  }
  runNodesOnHost(k);
}

bool ProgramRun::hostCopyOnDevice(const Node* node) {
  IValueList args;
  std::vector<std::pair<Tensor, size_t>> slots;
  for (const Value* in : node->inputs()) {
    const size_t slot = p_.slots_.of(in);
    if (!bound_[slot]) return false;
    args.push_back(env_[slot]);  // nothing read back
    if (env_[slot].isTensor()) slots.emplace_back(env_[slot].toTensor(), slot);
  }
  const auto result = copyKernelResult(*node, args);
  if (!result) return false;
  return copiedOnDevice(node, args, slots, p_.pool_.allocate(result->first, result->second));
}

bool ProgramRun::copiedOnDevice(const Node* node, const IValueList& args,
                                const std::vector<std::pair<Tensor, size_t>>& slots, const Tensor& out) {
  const std::optional<std::vector<CopyPiece>> pieces = copyKernelPieces(*node, args, out);
  if (!pieces) return false;
  for (const CopyPiece& p : *pieces)
    if (p.from.dtype() != out.dtype() || p.from.dim() != p.to.dim() || p.to.dim() > kDeviceCopyMaxRank) return false;
  const CudaPointer result = device_->allocate(size_t(out.numel()) * dtypeSize(out.dtype()));
  // Each piece's source and its strides, and where it goes (elements
  // into the output).
  struct Source {
    CudaPointer src;
    Shape strides;
    int64_t at;
  };
  std::vector<Source> sources;
  for (const CopyPiece& p : *pieces) {
    const Tensor& from = p.from;
    CudaPointer src = device_->listedPlace(from);
    Shape strides = from.strides();
    for (const auto& [t, slot] : slots) {
      if (src || !t.sameStorage(from) || t.rawData() != from.rawData() || t.sizes() != from.sizes()) continue;
      if (!(src = device_->inPlace(slot, from))) {
        src = device_->forKernel(slot, from);
        strides = contiguousStrides(from.sizes());
      }
    }
    if (!src) {  // no device buffer holds it: the host's copy is current
      src = device_->uploadForCall(from);
      strides = contiguousStrides(from.sizes());
    }
    sources.push_back({src, std::move(strides), p.to.offset() - out.offset()});
  }
  // Runs of pieces alike in shape and strides at a fixed distance (a
  // stack's rows) go in one launch.
  const size_t elem = dtypeSize(out.dtype());
  for (size_t i = 0; i < sources.size();) {
    const Tensor& to = (*pieces)[i].to;
    std::vector<CudaPointer> srcs{sources[i].src};
    const int64_t step = i + 1 < sources.size() ? sources[i + 1].at - sources[i].at : 0;
    size_t j = i + 1;
    for (; j < sources.size() && (int64_t)srcs.size() < kDeviceCopyMaxPieces; ++j) {
      const Tensor& next = (*pieces)[j].to;
      if (next.sizes() != to.sizes() || next.strides() != to.strides() || sources[j].strides != sources[i].strides ||
          sources[j].at - sources[j - 1].at != step)
        break;
      srcs.push_back(sources[j].src);
    }
    device_->copyPieces(to, result + CudaPointer(sources[i].at * (int64_t)elem), to.strides(), step, srcs,
                        sources[i].strides);
    i = j;
  }
  device_->endCall();
  const Value* v = node->output();
  bind(v, out);
  device_->written(p_.slots_.of(v), result, out);
  return true;
}

}  // namespace stitch
