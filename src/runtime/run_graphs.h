// Whole runs of a program on the GPU as graphs (GpuGraph: a CUDA graph),
// so a run that needs nothing from the device before its end costs one
// launch: an LSTM's or a decoder's loop of small kernels stops paying the
// launch and the host's walk per kernel.
//
// A run is a function of its inputs' signature (shapes, strides, scalar
// values: `runSignature`) as long as the host reads no tensor during it:
// then the kernels, their arguments and the buffers they use are the
// same each time, and only the data differs. So the first run with a
// signature runs as usual (it loads what the program needs); the second
// is captured (GpuDevice::beginCapture): the host walks the program as
// usual while the device records. A capture refuses (CaptureRefused,
// caught by the capture, which then runs the program as usual, as will
// every later run with that signature) where the host would read a
// tensor, or would upload one that is no input's. Uploads of the inputs
// are recorded (RunCapture), not made; outputs are found where they lie
// on the device (CapturedOutputs). A replay then makes the recorded
// uploads from the new inputs, launches the graph and reads the outputs
// back into fresh host tensors: what PyTorch's CUDA graphs do with their
// static input buffers, without copies on the device.
#pragma once
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "interp/ivalue.h"
#include "interp/tensor.h"
#include "runtime/gpu_device.h"

namespace stitch {

// Raised inside a run being captured where a replay could not repeat it.
class CaptureRefused : public std::exception {
 public:
  explicit CaptureRefused(const char* why) : why_(why) {}
  const char* what() const noexcept override { return why_; }

 private:
  const char* why_;
};

// The tensors in `inputs` (elements of lists and tuples too), in order.
std::vector<Tensor> inputTensors(const IValueList& inputs);

// A key equal for two runs exactly when a capture of one replays the
// other: each tensor's dtype, sizes, strides, offset, storage size and
// which earlier input tensor shares its storage; each other value itself.
std::string runSignature(const IValueList& inputs);

// A run being captured: its input tensors' storages, and the uploads it
// made from them.
class RunCapture {
 public:
  explicit RunCapture(const IValueList& inputs);

  // One upload: the view of input tensor `input`'s storage (dtype, sizes,
  // strides, offset), dense, into `at`.
  struct Upload {
    size_t input;
    DType dtype;
    Shape sizes, strides;
    int64_t offset;
    CudaPointer at;
  };
  // Records the upload of `t` into `at`; CaptureRefused when t lies in no
  // input's storage.
  void recordUpload(const Tensor& t, CudaPointer at);
  // The input tensor whose storage `t` lies in, or -1.
  int inputOf(const Tensor& t) const;
  std::vector<Upload>& uploads() { return uploads_; }

 private:
  std::vector<const Storage*> storages_;  // per input tensor
  std::vector<Upload> uploads_;
};

// Where a device buffer mirrors host memory (DeviceValues::mirrorOf).
struct DeviceMirror {
  CudaPointer ptr = 0;
  size_t bytes = 0;
  const char* host = nullptr;
  bool hostBehind = false;  // the device holds data the host has not read
};

// A captured run's outputs: each tensor as a place in a fresh storage that
// a device buffer is read into, or in an input's storage (an argument the
// run writes, or returns), with the device buffer read into it when the
// run left the host behind; each other value as it was.
class CapturedOutputs {
 public:
  // Adds output `value`; `mirror` finds the buffer a tensor of it lies in
  // (false: none, and the capture refuses unless the tensor lies in an
  // input's storage).
  void add(const IValue& value, const RunCapture& capture,
           const std::function<bool(const Tensor&, DeviceMirror&)>& mirror);
  // The outputs as the device holds them after a launch, for the run with
  // `inputs`: one read-back (host sync) per buffer, counted in `syncs`;
  // tensors that shared memory share it.
  IValueList read(GpuDevice& device, const std::vector<Tensor>& inputs, int64_t& syncs) const;

 private:
  struct Buffer {
    DeviceMirror mirror;
    int input = -1;      // read into input tensor `input`'s storage, at byte `at`,
    ptrdiff_t at = 0;    // or into a fresh storage
  };
  struct Item {
    IValue value;     // neither a tensor nor a list or tuple
    int input = -1;   // a tensor on input tensor `input`'s storage,
    int buffer = -1;  // or on buffer `buffer`'s fresh one; its place there
    DType dtype = DType::f32;
    Shape sizes, strides;
    int64_t offset = 0;
    int list = 0;  // 1: a list, 2: a tuple, of `items`
    std::vector<Item> items;
  };
  Item item(const IValue& value, const RunCapture& capture,
            const std::function<bool(const Tensor&, DeviceMirror&)>& mirror);
  int bufferOf(const DeviceMirror& m, int input, ptrdiff_t at);
  IValue value(const Item& item, const std::vector<Tensor>& inputs,
               const std::vector<std::shared_ptr<Storage>>& storages) const;

  std::vector<Buffer> buffers_;
  std::vector<Item> outputs_;
};

// A program's graphs, by input signature.
class RunGraphs {
 public:
  enum class Step { Eager, Capture, Replay };
  // What the run with `inputs` does; it concerns that signature from now
  // on. More than kMaxGraphs signatures: the others run eagerly.
  Step next(const IValueList& inputs);
  // The capture of this signature's run refused: it runs eagerly always.
  void refuse();
  void store(std::unique_ptr<GpuGraph> graph, std::vector<RunCapture::Upload> uploads, CapturedOutputs outputs,
             int64_t kernels);
  // The uploads from `inputs`, the launch, the outputs read back.
  IValueList replay(GpuDevice& device, const IValueList& inputs, int64_t& syncs) const;
  // Kernel launches the graph of this signature holds.
  int64_t kernels() const { return current_->kernels; }

  static constexpr size_t kMaxGraphs = 8;

 private:
  struct Entry {
    int runs = 0;
    bool refused = false;
    std::unique_ptr<GpuGraph> graph;
    std::vector<RunCapture::Upload> uploads;
    CapturedOutputs outputs;
    int64_t kernels = 0;
  };
  std::map<std::string, Entry> entries_;
  Entry* current_ = nullptr;
};

}  // namespace stitch
