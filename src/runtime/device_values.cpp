#include "runtime/device_values.h"

#include "common/error.h"

namespace stitch {

namespace {

size_t bytesOf(const Tensor& t) { return size_t(t.numel()) * dtypeSize(t.dtype()); }

}  // namespace

DeviceValues::DeviceValues(GpuDevice& device, size_t slots, bool resident)
    : device_(device), resident_(resident), slots_(slots) {}

DeviceValues::~DeviceValues() {
  for (Slot& s : slots_)
    if (s.ptr) device_.release(s.ptr);
  for (CudaPointer p : callUploads_) device_.release(p);
}

CudaPointer DeviceValues::forKernel(size_t slot, const Tensor& dense) {
  if (slots_[slot].ptr) return slots_[slot].ptr;
  STITCH_ASSERT(dense.isContiguous(), "uploading a strided tensor");
  CudaPointer p = device_.allocate(bytesOf(dense));
  device_.copyToDevice(p, dense.rawData(), bytesOf(dense));
  if (resident_)
    slots_[slot] = Slot{p, false};
  else
    callUploads_.push_back(p);
  return p;
}

CudaPointer DeviceValues::allocate(size_t bytes) { return device_.allocate(bytes); }

void DeviceValues::written(size_t slot, CudaPointer p, const Tensor& host) {
  forget(slot);
  slots_[slot] = Slot{p, true};
  if (resident_) return;
  copyBack(slot, host);
  forget(slot);
}

void DeviceValues::forget(size_t slot) {
  if (slots_[slot].ptr) device_.release(slots_[slot].ptr);
  slots_[slot] = Slot{};
}

CudaPointer DeviceValues::copyForCarry(size_t slot, const Tensor& host) {
  if (!slots_[slot].ptr || !slots_[slot].hostBehind) return 0;
  CudaPointer p = device_.allocate(bytesOf(host));
  device_.copyOnDevice(p, slots_[slot].ptr, bytesOf(host));
  return p;
}

void DeviceValues::endCall() {
  for (CudaPointer p : callUploads_) device_.release(p);
  callUploads_.clear();
}

void DeviceValues::copyBack(size_t slot, const Tensor& host) {
  STITCH_ASSERT(host.isContiguous(), "a kernel output's host tensor is strided");
  device_.copyToHost(host.rawData(), slots_[slot].ptr, bytesOf(host));
  slots_[slot].hostBehind = false;
  ++hostSyncs_;
}

}  // namespace stitch
