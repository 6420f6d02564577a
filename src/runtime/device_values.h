// The device copies of a run's tensors on the CUDA path
// (runtime/cuda_kernels.h). Per value slot of the run: the device buffer
// holding the value and whether the host tensor is behind it (written by
// a kernel on the device, not read back yet).
//
// Resident (a pure graph, where a live value never changes): a kernel's
// outputs stay on the device and its inputs are uploaded once per value;
// the host copy is brought up to date only when the host reads the value
// (a host op, a CPU kernel, a program output, a loop's carried value), so
// kernels chained on the device cost no host sync between them. Not
// resident (an imperative graph, whose host ops write tensors in place):
// every call uploads its inputs and reads its outputs back.
#pragma once
#include <cstdint>
#include <vector>

#include "interp/tensor.h"
#include "runtime/gpu_device.h"

namespace stitch {

class DeviceValues {
 public:
  DeviceValues(GpuDevice& device, size_t slots, bool resident);
  ~DeviceValues();
  DeviceValues(const DeviceValues&) = delete;
  DeviceValues& operator=(const DeviceValues&) = delete;

  // Before the host reads slot's tensor `host`: copies the device's value
  // into it when the host is behind.
  void readOnHost(size_t slot, const Tensor& host) {
    if (slots_[slot].hostBehind) copyBack(slot, host);
  }
  // Slot's device buffer, or 0 when the value has none.
  CudaPointer onDevice(size_t slot) const { return slots_[slot].ptr; }
  // The device buffer of slot's value for a kernel to read; `dense` (the
  // value on the host, contiguous) is uploaded when the value has none.
  CudaPointer forKernel(size_t slot, const Tensor& dense);
  // A device buffer for a kernel's output of `bytes`.
  CudaPointer allocate(size_t bytes);
  // The kernel launched with `p` as slot's output (already bound on the
  // host as `host`) has been queued: the host copy is behind (resident), or
  // copied back now.
  void written(size_t slot, CudaPointer p, const Tensor& host);
  // Slot's value is gone or replaced: its device buffer goes back.
  void forget(size_t slot);
  // For a loop carrying slot's value (`host`) into its next iteration: a
  // copy of the device's value when the host is behind it, else 0 (the
  // host's value is current). The caller owns the copy until written()
  // takes it for the slot that receives the value, or release().
  CudaPointer copyForCarry(size_t slot, const Tensor& host);
  void release(CudaPointer p) { device_.release(p); }
  // After a call: not resident, the call's uploads go back.
  void endCall();

  int64_t hostSyncs() const { return hostSyncs_; }

 private:
  struct Slot {
    CudaPointer ptr = 0;
    bool hostBehind = false;
  };
  void copyBack(size_t slot, const Tensor& host);

  GpuDevice& device_;
  bool resident_;
  std::vector<Slot> slots_;
  std::vector<CudaPointer> callUploads_;  // not resident: this call's input buffers
  int64_t hostSyncs_ = 0;
};

}  // namespace stitch
