// The device copies of a run's tensors on the CUDA path
// (runtime/cuda_kernels.h). Per value slot of the run: the device buffer
// holding the value, and per buffer whether the host's copy is behind it
// (written on the device, not read back yet).
//
// Resident (a pure graph, where a live value never changes): a kernel's
// outputs stay on the device and its inputs are uploaded once per value;
// the host copy is brought up to date only when the host reads the value
// (a host op, a CPU kernel, a program output, a loop's carried value), so
// kernels chained on the device cost no host sync between them. Not
// resident (an imperative graph, whose host ops write tensors in place):
// every call uploads its inputs and reads its outputs back.
//
// A buffer that mirrors host memory (a kernel's dense output, a dense
// upload) is shared, counted, by the slots of views of it (select, slice,
// transpose, ...: `shareView`), so taking a view reads nothing back. A
// kernel reads a contiguous view in place and a strided one through a
// dense copy made on the device (runtime/device_copy.h); a region of a
// value no one else holds is written on the device (`writeRegion`: a KV
// cache's new row).
//
// In a run being captured (runtime/run_graphs.h) uploads are recorded, not
// made, into buffers that no later allocation of the capture reuses: a
// replay makes them all before the graph runs.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "interp/ivalue.h"
#include "interp/tensor.h"
#include "runtime/gpu_device.h"
#include "runtime/run_graphs.h"

namespace stitch {

class DeviceValues {
 public:
  // `capture`: the run is being captured.
  DeviceValues(GpuDevice& device, size_t slots, bool resident, RunCapture* capture = nullptr);
  ~DeviceValues();
  DeviceValues(const DeviceValues&) = delete;
  DeviceValues& operator=(const DeviceValues&) = delete;

  // Before the host reads slot's tensor: copies the device's buffer back
  // when the host is behind it.
  void readOnHost(size_t slot) {
    if (slots_[slot] && slots_[slot]->hostBehind) copyBack(*slots_[slot]);
  }
  // Whether slot's value has a device buffer.
  bool onDevice(size_t slot) const { return slots_[slot] != nullptr; }
  // Whether the host's copy of slot's value is behind the device's.
  bool hostBehind(size_t slot) const { return slots_[slot] && slots_[slot]->hostBehind; }
  // Slot's value (`value`, the host tensor bound there) dense on the device
  // for a kernel to read: its buffer, the place of a contiguous view in
  // it, a dense copy made on the device of a strided view (released at
  // endCall), or, when it has none, `value` uploaded.
  CudaPointer forKernel(size_t slot, const Tensor& value);
  // Where slot's value (`value`) lies in a buffer that mirrors host memory,
  // with value's strides; 0 when it has no such buffer.
  CudaPointer inPlace(size_t slot, const Tensor& value) const {
    const Buffer* b = slots_[slot];
    return b && b->host ? placeOf(*b, value) : 0;
  }
  // Slot's value (`value`) goes into a list (list.append): its buffer,
  // when it mirrors host memory, is kept with that memory until the run
  // ends, so the list's element is read back only when the host reads
  // the list (readOnHost(list)), and a copy kernel on the device finds it
  // (listedPlace).
  void keepForList(size_t slot, const Tensor& value);
  // `t`, bound at slot, was taken out of a list: it shares the kept buffer
  // that holds its data, if one does.
  void takeFromList(size_t slot, const Tensor& t);
  // Before the host reads the elements of a list or tuple (nested ones
  // too): those in kept buffers the host is behind are copied back.
  void readOnHost(const IValue& list);
  bool keepsAny() const { return !kept_.empty(); }
  // Where tensor `t` lies in a kept buffer, with t's strides; 0 if none.
  CudaPointer listedPlace(const Tensor& t) const;
  // `t` (which has no device buffer) uploaded dense for this call.
  CudaPointer uploadForCall(const Tensor& t);
  // A strided copy on the device (runtime/device_copy.h), counted: of
  // `shape`'s sizes and element size; with several sources, source p to
  // dst + p * pieceStep elements.
  void copyStrided(const Tensor& shape, CudaPointer dst, const Shape& dstStrides, CudaPointer src,
                   const Shape& srcStrides);
  void copyPieces(const Tensor& shape, CudaPointer dst, const Shape& dstStrides, int64_t pieceStep,
                  const std::vector<CudaPointer>& srcs, const Shape& srcStrides);
  // A device buffer for a kernel's output of `bytes`.
  CudaPointer allocate(size_t bytes);
  // The kernel launched with `p` as slot's output (already bound on the
  // host as `host`, dense) has been queued: the host copy is behind
  // (resident), or copied back now.
  void written(size_t slot, CudaPointer p, const Tensor& host);
  // `view` (bound at viewSlot, a view the host made of the value at
  // baseSlot, no data read) shares the base's buffer. False when the base
  // has no buffer that mirrors its host memory (the view then has none).
  bool shareView(size_t viewSlot, size_t baseSlot, const Tensor& view);
  // Writes src (slot srcSlot, host tensor `src`, broadcast as
  // Tensor::copyFrom does) into `region`, a view of the value at baseSlot,
  // on the device. Only where the base's buffer mirrors its host memory
  // and no other slot shares it, src has region's dtype, no buffer of src
  // is the base's and ranks are within a strided copy's; false otherwise
  // (nothing done). The host's copy of the base is then behind.
  bool writeRegion(size_t baseSlot, const Tensor& region, size_t srcSlot, const Tensor& src);
  // Slot's value is gone or replaced: its device buffer goes back when no
  // other slot shares it.
  void forget(size_t slot);
  // For a loop carrying slot's value (`host`) into its next iteration: a
  // copy of the device's value when the host is behind it (or `always`,
  // when it has a buffer that mirrors it) and the value is contiguous,
  // else 0 (the host's value is read). The caller owns the copy until
  // written() takes it for the slot that receives the value, or release().
  CudaPointer copyForCarry(size_t slot, const Tensor& host, bool always = false);
  void release(CudaPointer p) { give(p); }
  // The buffer that mirrors the host memory `t` lies in: slot's, or a
  // list's kept one. False when there is none.
  bool mirrorOf(size_t slot, const Tensor& t, DeviceMirror& out) const;
  // After a call: the call's temporary buffers (uploads when not
  // resident, dense copies of strided views) go back.
  void endCall();

  int64_t hostSyncs() const { return hostSyncs_; }
  // Strided copies launched (dense views, region writes).
  int64_t copyLaunches() const { return copyLaunches_; }

 private:
  // A device buffer; `host` is the host memory it mirrors (null for a
  // dense copy of a strided host value: no view shares it).
  struct Buffer {
    CudaPointer ptr = 0;
    size_t bytes = 0;
    char* host = nullptr;
    bool hostBehind = false;
    int slots = 0;  // slots sharing it
  };
  void copyBack(Buffer& b);
  Buffer* newBuffer(CudaPointer p, size_t bytes, char* host, bool hostBehind);
  // Where `t` (whose data lies in b's host memory) starts on the device.
  static CudaPointer placeOf(const Buffer& b, const Tensor& t);
  // `t` uploaded dense.
  CudaPointer upload(const Tensor& t);
  // p back to the device, unless it is a captured upload.
  void give(CudaPointer p);
  // A dense copy of strided `t` (in b) made on the device, for this call.
  CudaPointer denseOnDevice(const Buffer& b, const Tensor& t);

  // The kept buffer holding `t`'s data, or null.
  const Buffer* keptHolding(const Tensor& t) const;

  struct Kept {
    Buffer* buffer;
    std::shared_ptr<Storage> storage;  // so no other tensor is made on that memory
  };

  GpuDevice& device_;
  bool resident_;
  RunCapture* capture_;
  std::set<CudaPointer> captured_;  // a capture's uploads: kept by its graph
  std::map<const char*, Kept> kept_;  // by the host memory the buffer mirrors
  std::vector<Buffer*> slots_;
  std::vector<CudaPointer> callBuffers_;  // released at endCall
  int64_t hostSyncs_ = 0;
  int64_t copyLaunches_ = 0;
};

}  // namespace stitch
