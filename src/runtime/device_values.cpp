#include "runtime/device_values.h"

#include "common/error.h"
#include "runtime/device_copy.h"

namespace stitch {

namespace {

size_t bytesOf(const Tensor& t) { return size_t(t.numel()) * dtypeSize(t.dtype()); }

}  // namespace

DeviceValues::DeviceValues(GpuDevice& device, size_t slots, bool resident, RunCapture* capture)
    : device_(device), resident_(resident), capture_(capture), slots_(slots, nullptr) {}

DeviceValues::~DeviceValues() {
  for (size_t s = 0; s < slots_.size(); ++s) forget(s);
  for (auto& [host, kept] : kept_)
    if (--kept.buffer->slots == 0) {
      give(kept.buffer->ptr);
      delete kept.buffer;
    }
  endCall();
}

void DeviceValues::keepForList(size_t slot, const Tensor& value) {
  Buffer* b = slots_[slot];
  if (!b || !b->host) return;
  if (kept_.emplace(b->host, Kept{b, value.storage()}).second) ++b->slots;
}

const DeviceValues::Buffer* DeviceValues::keptHolding(const Tensor& t) const {
  const char* at = static_cast<const char*>(t.rawData());
  auto it = kept_.upper_bound(at);
  if (it == kept_.begin()) return nullptr;
  --it;
  const Buffer* b = it->second.buffer;
  return at < b->host + b->bytes && it->second.storage == t.storage() ? b : nullptr;
}

void DeviceValues::takeFromList(size_t slot, const Tensor& t) {
  Buffer* b = const_cast<Buffer*>(keptHolding(t));
  if (!b) return;
  forget(slot);
  slots_[slot] = b;
  ++b->slots;
}

void DeviceValues::readOnHost(const IValue& list) {
  for (const IValue& e : list.toList()) {
    if (e.isList() || e.isTuple()) {
      readOnHost(e);
    } else if (e.isTensor() && e.toTensor().defined()) {
      const Buffer* b = keptHolding(e.toTensor());
      if (b && b->hostBehind) copyBack(*const_cast<Buffer*>(b));
    }
  }
}

CudaPointer DeviceValues::listedPlace(const Tensor& t) const {
  const Buffer* b = keptHolding(t);
  return b ? placeOf(*b, t) : 0;
}

CudaPointer DeviceValues::uploadForCall(const Tensor& t) {
  CudaPointer p = upload(t);
  callBuffers_.push_back(p);
  return p;
}

void DeviceValues::copyStrided(const Tensor& shape, CudaPointer dst, const Shape& dstStrides, CudaPointer src,
                               const Shape& srcStrides) {
  copyPieces(shape, dst, dstStrides, 0, {src}, srcStrides);
}

void DeviceValues::copyPieces(const Tensor& shape, CudaPointer dst, const Shape& dstStrides, int64_t pieceStep,
                              const std::vector<CudaPointer>& srcs, const Shape& srcStrides) {
  if (shape.numel() == 0 || srcs.empty()) return;
  copyPiecesOnDevice(device_, shape.dim(), shape.sizes().data(), dtypeSize(shape.dtype()), dst, dstStrides.data(),
                     pieceStep, srcs.data(), (int64_t)srcs.size(), srcStrides.data());
  ++copyLaunches_;
}

DeviceValues::Buffer* DeviceValues::newBuffer(CudaPointer p, size_t bytes, char* host, bool hostBehind) {
  Buffer* b = new Buffer;
  b->ptr = p;
  b->bytes = bytes;
  b->host = host;
  b->hostBehind = hostBehind;
  b->slots = 1;
  return b;
}

CudaPointer DeviceValues::placeOf(const Buffer& b, const Tensor& t) {
  const char* at = static_cast<const char*>(t.rawData());
  STITCH_ASSERT(b.host && at >= b.host && (t.numel() == 0 || at < b.host + b.bytes),
                "a view outside the device buffer it shares");
  return b.ptr + CudaPointer(at - b.host);
}

CudaPointer DeviceValues::upload(const Tensor& t) {
  // A replay makes the upload before the graph runs: no earlier work of
  // the capture may have used the block.
  CudaPointer p = device_.allocate(bytesOf(t), capture_ != nullptr);
  if (capture_) {
    try {
      capture_->recordUpload(t, p);
    } catch (...) {
      device_.release(p);
      throw;
    }
    captured_.insert(p);
    return p;
  }
  const Tensor dense = t.isContiguous() ? t : t.contiguous();
  device_.copyToDevice(p, dense.rawData(), bytesOf(dense));
  return p;
}

void DeviceValues::give(CudaPointer p) {
  if (!captured_.count(p)) device_.release(p);
}

CudaPointer DeviceValues::denseOnDevice(const Buffer& b, const Tensor& t) {
  CudaPointer p = device_.allocate(bytesOf(t));
  callBuffers_.push_back(p);
  const Shape strides = contiguousStrides(t.sizes());
  copyStrided(t, p, strides, placeOf(b, t), t.strides());
  return p;
}

CudaPointer DeviceValues::forKernel(size_t slot, const Tensor& value) {
  if (Buffer* b = slots_[slot]) {
    if (!b->host) return b->ptr;  // the value's own dense copy
    if (value.isContiguous()) return placeOf(*b, value);
    if (value.dim() <= kDeviceCopyMaxRank) return denseOnDevice(*b, value);
    readOnHost(slot);  // too many dims for the device's copy: the host makes it dense
    return uploadForCall(value);
  }
  const bool dense = value.isContiguous();
  CudaPointer p = upload(value);
  if (resident_)
    slots_[slot] = newBuffer(p, bytesOf(value), dense ? static_cast<char*>(value.rawData()) : nullptr, false);
  else
    callBuffers_.push_back(p);
  return p;
}

CudaPointer DeviceValues::allocate(size_t bytes) { return device_.allocate(bytes); }

void DeviceValues::written(size_t slot, CudaPointer p, const Tensor& host) {
  STITCH_ASSERT(host.isContiguous(), "a kernel output's host tensor is strided");
  forget(slot);
  slots_[slot] = newBuffer(p, bytesOf(host), static_cast<char*>(host.rawData()), true);
  if (resident_) return;
  copyBack(*slots_[slot]);
  forget(slot);
}

bool DeviceValues::shareView(size_t viewSlot, size_t baseSlot, const Tensor& view) {
  Buffer* b = slots_[baseSlot];
  if (!b || !b->host) return false;
  placeOf(*b, view);  // asserts that the view lies in the buffer
  forget(viewSlot);
  slots_[viewSlot] = b;
  ++b->slots;
  return true;
}

bool DeviceValues::writeRegion(size_t baseSlot, const Tensor& region, size_t srcSlot, const Tensor& src) {
  Buffer* b = slots_[baseSlot];
  if (!b || !b->host || b->slots != 1 || slots_[srcSlot] == b) return false;
  if (src.dtype() != region.dtype() || region.dim() > kDeviceCopyMaxRank || src.dim() > region.dim()) return false;
  // src's strides on the device, broadcast to the region's sizes.
  const int64_t r = region.dim(), lead = r - src.dim();
  const Buffer* s = slots_[srcSlot];
  const Shape srcStrides = s && s->host ? src.strides() : contiguousStrides(src.sizes());
  Shape strides((size_t)r, 0);
  for (int64_t d = lead; d < r; ++d) {
    const int64_t n = src.size(d - lead);
    if (n == region.size(d))
      strides[(size_t)d] = srcStrides[(size_t)(d - lead)];
    else if (n != 1)
      return false;  // the host raises PyTorch's error
  }
  const CudaPointer from = s && s->host ? placeOf(*s, src) : forKernel(srcSlot, src);
  copyStrided(region, placeOf(*b, region), region.strides(), from, strides);
  b->hostBehind = true;
  return true;
}

void DeviceValues::forget(size_t slot) {
  Buffer* b = slots_[slot];
  if (!b) return;
  slots_[slot] = nullptr;
  if (--b->slots > 0) return;
  give(b->ptr);
  delete b;
}

bool DeviceValues::mirrorOf(size_t slot, const Tensor& t, DeviceMirror& out) const {
  const Buffer* b = slots_[slot];
  const char* at = static_cast<const char*>(t.rawData());
  if (!b || !b->host || at < b->host || at >= b->host + b->bytes) b = keptHolding(t);
  if (!b) return false;
  out = {b->ptr, b->bytes, b->host, b->hostBehind};
  return true;
}

CudaPointer DeviceValues::copyForCarry(size_t slot, const Tensor& host, bool always) {
  const Buffer* b = slots_[slot];
  if (!b || !b->host || !(b->hostBehind || always) || !host.isContiguous()) return 0;
  CudaPointer p = device_.allocate(bytesOf(host));
  device_.copyOnDevice(p, placeOf(*b, host), bytesOf(host));
  return p;
}

void DeviceValues::endCall() {
  for (CudaPointer p : callBuffers_) give(p);
  callBuffers_.clear();
}

void DeviceValues::copyBack(Buffer& b) {
  device_.copyToHost(b.host, b.ptr, b.bytes);
  b.hostBehind = false;
  ++hostSyncs_;
}

}  // namespace stitch
