#include "runtime/run_graphs.h"

#include <cstring>

#include "common/error.h"

namespace stitch {

namespace {

void collectTensors(const IValue& v, std::vector<Tensor>& out) {
  if (v.isTensor()) {
    out.push_back(v.toTensor());
  } else if (v.isList() || v.isTuple()) {
    for (const IValue& e : v.toList()) collectTensors(e, out);
  }
}

template <typename T>
void put(std::string& key, const T& x) {
  key.append(reinterpret_cast<const char*>(&x), sizeof x);
}

void putShape(std::string& key, const Shape& s) {
  put(key, s.size());
  for (int64_t d : s) put(key, d);
}

// `v` into `key`; `tensors` numbers the tensors met so far (for sharing).
void putValue(std::string& key, const IValue& v, std::vector<const Storage*>& tensors) {
  if (v.isTensor()) {
    const Tensor& t = v.toTensor();
    key += t.defined() ? 'T' : '0';
    if (!t.defined()) return;
    put(key, t.dtype());
    putShape(key, t.sizes());
    putShape(key, t.strides());
    put(key, t.offset());
    put(key, t.storage()->nbytes());
    size_t first = 0;
    while (first < tensors.size() && tensors[first] != t.storage().get()) ++first;
    put(key, first);
    tensors.push_back(t.storage().get());
  } else if (v.isList() || v.isTuple()) {
    key += v.isList() ? 'L' : 'U';
    put(key, v.toList().size());
    for (const IValue& e : v.toList()) putValue(key, e, tensors);
  } else if (v.isInt()) {
    key += 'i';
    put(key, v.toInt());
  } else if (v.isDouble()) {
    key += 'd';
    put(key, v.toDouble());  // the bits: -0.0 and NaN payloads stay apart
  } else if (v.isBool()) {
    key += v.toBool() ? 'y' : 'n';
  } else if (v.isStr()) {
    key += 's';
    put(key, v.toStr().size());
    key += v.toStr();
  } else if (v.isDType()) {
    key += 't';
    put(key, v.toDType());
  } else {
    STITCH_ASSERT(v.isNone(), "an input of a kind the run signature does not know");
    key += 'N';
  }
}

}  // namespace

std::vector<Tensor> inputTensors(const IValueList& inputs) {
  std::vector<Tensor> out;
  for (const IValue& v : inputs) collectTensors(v, out);
  return out;
}

std::string runSignature(const IValueList& inputs) {
  std::string key;
  std::vector<const Storage*> tensors;
  for (const IValue& v : inputs) putValue(key, v, tensors);
  return key;
}

RunCapture::RunCapture(const IValueList& inputs) {
  for (const Tensor& t : inputTensors(inputs)) storages_.push_back(t.defined() ? t.storage().get() : nullptr);
}

int RunCapture::inputOf(const Tensor& t) const {
  for (size_t i = 0; i < storages_.size(); ++i)
    if (storages_[i] && storages_[i] == t.storage().get()) return (int)i;
  return -1;
}

void RunCapture::recordUpload(const Tensor& t, CudaPointer at) {
  const int i = inputOf(t);
  if (i < 0) throw CaptureRefused("an upload of a tensor that is no input's");
  uploads_.push_back({(size_t)i, t.dtype(), t.sizes(), t.strides(), t.offset(), at});
}

void CapturedOutputs::add(const IValue& value, const RunCapture& capture,
                          const std::function<bool(const Tensor&, DeviceMirror&)>& mirror) {
  outputs_.push_back(item(value, capture, mirror));
}

int CapturedOutputs::bufferOf(const DeviceMirror& m, int input, ptrdiff_t at) {
  for (size_t b = 0; b < buffers_.size(); ++b)
    if (buffers_[b].mirror.ptr == m.ptr) return (int)b;
  buffers_.push_back({m, input, at});
  return (int)buffers_.size() - 1;
}

CapturedOutputs::Item CapturedOutputs::item(const IValue& value, const RunCapture& capture,
                                            const std::function<bool(const Tensor&, DeviceMirror&)>& mirror) {
  Item it;
  if (value.isList() || value.isTuple()) {
    it.list = value.isList() ? 1 : 2;
    for (const IValue& e : value.toList()) it.items.push_back(item(e, capture, mirror));
    return it;
  }
  if (!value.isTensor() || !value.toTensor().defined()) {
    it.value = value;
    return it;
  }
  const Tensor& t = value.toTensor();
  it.dtype = t.dtype();
  it.sizes = t.sizes();
  it.strides = t.strides();
  DeviceMirror m;
  const bool mirrored = mirror(t, m);
  it.input = capture.inputOf(t);
  if (it.input >= 0) {
    // Where the run wrote the input on the device, the read-back writes it
    // on the host, as the walk would have.
    const char* base = reinterpret_cast<const char*>(t.storage()->data());
    if (mirrored && m.hostBehind) it.buffer = bufferOf(m, it.input, m.host - base);
    it.offset = t.offset();
    return it;
  }
  if (!mirrored) throw CaptureRefused("an output with no device buffer");
  const size_t elem = dtypeSize(t.dtype());
  const ptrdiff_t at = static_cast<const char*>(t.rawData()) - m.host;
  STITCH_ASSERT(at >= 0 && at % (ptrdiff_t)elem == 0 && m.bytes % elem == 0, "an output misplaced in its buffer");
  it.buffer = bufferOf(m, -1, 0);
  it.offset = at / (ptrdiff_t)elem;
  return it;
}

IValue CapturedOutputs::value(const Item& item, const std::vector<Tensor>& inputs,
                              const std::vector<std::shared_ptr<Storage>>& storages) const {
  if (item.list) {
    IValueList elems;
    for (const Item& e : item.items) elems.push_back(value(e, inputs, storages));
    return item.list == 1 ? IValue::list(std::move(elems)) : IValue::tuple(std::move(elems));
  }
  if (item.input < 0 && item.buffer < 0) return item.value;
  const std::shared_ptr<Storage>& s =
      item.input >= 0 ? inputs.at((size_t)item.input).storage() : storages[(size_t)item.buffer];
  return IValue(Tensor::onStorage(s, Shape{0}, item.dtype).asStrided(item.sizes, item.strides, item.offset));
}

IValueList CapturedOutputs::read(GpuDevice& device, const std::vector<Tensor>& inputs, int64_t& syncs) const {
  std::vector<std::shared_ptr<Storage>> storages;
  for (const Buffer& b : buffers_) {
    const DeviceMirror& m = b.mirror;
    if (b.input >= 0) {
      storages.emplace_back();
      device.copyToHost(inputs.at((size_t)b.input).storage()->data() + b.at, m.ptr, m.bytes);
    } else {
      storages.push_back(std::make_shared<Storage>(m.bytes, false));
      device.copyToHost(storages.back()->data(), m.ptr, m.bytes);
    }
    ++syncs;
  }
  IValueList out;
  for (const Item& item : outputs_) out.push_back(value(item, inputs, storages));
  return out;
}

RunGraphs::Step RunGraphs::next(const IValueList& inputs) {
  std::string key = runSignature(inputs);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    if (entries_.size() >= kMaxGraphs) return Step::Eager;
    it = entries_.emplace(std::move(key), Entry()).first;
  }
  current_ = &it->second;
  if (current_->graph) return Step::Replay;
  if (current_->refused || current_->runs++ == 0) return Step::Eager;
  return Step::Capture;
}

void RunGraphs::refuse() { current_->refused = true; }

void RunGraphs::store(std::unique_ptr<GpuGraph> graph, std::vector<RunCapture::Upload> uploads,
                      CapturedOutputs outputs, int64_t kernels) {
  current_->graph = std::move(graph);
  current_->uploads = std::move(uploads);
  current_->outputs = std::move(outputs);
  current_->kernels = kernels;
}

IValueList RunGraphs::replay(GpuDevice& device, const IValueList& inputs, int64_t& syncs) const {
  const std::vector<Tensor> tensors = inputTensors(inputs);
  for (const RunCapture::Upload& u : current_->uploads) {
    const Tensor view =
        Tensor::onStorage(tensors.at(u.input).storage(), Shape{0}, u.dtype).asStrided(u.sizes, u.strides, u.offset);
    const Tensor dense = view.isContiguous() ? view : view.contiguous();
    device.copyToDevice(u.at, dense.rawData(), size_t(dense.numel()) * dtypeSize(dense.dtype()));
  }
  current_->graph->launch();
  return current_->outputs.read(device, tensors, syncs);
}

}  // namespace stitch
