// One run of a CompiledProgram (runtime/compiled_program.h): the
// environment of live values, walked block by block like the reference
// interpreter, with kernels called where they end. program_run.cpp walks
// (values, host ops, loops, branches, in-place assigns);
// program_run_kernels.cpp calls the kernels, on the host or the GPU.
#pragma once
#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "runtime/compiled_program.h"

namespace stitch {

class ProgramRun {
 public:
  // `capture`: the device records this run (runtime/run_graphs.h), and
  // the top block's returns go to captured() instead of the caller.
  ProgramRun(CompiledProgram& program, bool timeKernels, std::vector<WritableArgument> writable,
             RunCapture* capture = nullptr);

  int64_t kernelCalls() const { return kernelCalls_ + (device_ ? device_->copyLaunches() : 0); }
  CapturedOutputs& captured() { return captured_; }
  int64_t inPlaceAssigns() const { return inPlaceAssigns_; }
  int64_t inPlaceAppends() const { return inPlaceAppends_; }
  int64_t hostIterations() const { return hostIterations_; }
  int64_t hostSyncs() const { return device_ ? device_->hostSyncs() : 0; }
  double kernelMs() const { return kernelNs_ * 1e-6; }

  // `carries`: a loop body's device copies, of its params on the way in
  // (each taken for its param) and of its returns on the way out.
  IValueList runBlock(const Block* block, IValueList params, std::vector<CudaPointer>* carries = nullptr);

 private:
  // Times a kernel's own routine, from construction to the end of the
  // scope, when the run counts kernel time (and `kernel` says the routine
  // is one).
  class KernelClock {
   public:
    explicit KernelClock(ProgramRun& run, bool kernel = true) : run_(run.timeKernels_ && kernel ? &run : nullptr) {
      if (run_) start_ = std::chrono::steady_clock::now();
    }
    ~KernelClock() {
      if (run_)
        run_->kernelNs_ +=
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
    }

   private:
    ProgramRun* run_;
    std::chrono::steady_clock::time_point start_;
  };

  // The value's slot when it is bound; null when it is not. A tensor a
  // kernel wrote on the device is read back first: the host reads values
  // through here.
  IValue* find(const Value* v);
  const IValue* find(const Value* v) const { return const_cast<ProgramRun*>(this)->find(v); }

  const IValue& lookup(const Value* v) const;
  void bind(const Value* v, IValue value);

  // Releases the value now (a kernel buffer nobody else holds goes back to
  // the pool).
  void unbind(const Value* v);
  void drop(const std::vector<const Value*>& dead);
  IValueList inputValues(const Node* node) const;

  // list.append on a list this environment alone holds, which nothing
  // reads after it (NodeStep::appendsInPlace): the list grows where it is.
  bool appendedInPlace(const Node* node);

  // The value a list.append adds. On the GPU a tensor with a device
  // buffer is not read back: the buffer is kept for the list
  // (DeviceValues::keepForList), and the host reads it with the list.
  const IValue& appendedElement(const Node* node);

  // A host op on the node's inputs, their list the run's own, reused: a
  // loop's host steps allocate no argument list per step.
  IValueList callHost(const HostOp& op, const Node* node);

  // A host op that reads no tensor's data (HostOp::readsShapes), on the
  // values as they are: nothing is read back.
  IValueList callHostUnread(const HostOp& op, const Node* node);

  // Elements taken out of a list or tuple without reading them: a tensor
  // whose data a list keeps on the device (DeviceValues::keepForList)
  // shares that buffer; any other is current on the host.
  void extractedOnDevice(const Node* node, const HostOp& op);

  // A view of a value that has a device buffer: taken of the host's tensor
  // without reading it back (a view reads no data), sharing the buffer.
  bool viewedOnDevice(const Node* node, const HostOp& op);
  static bool holdsTensor(const IValue& v);

  // The top block's returns as the device holds them, for a replay to
  // read (the host reads none of them now).
  void captureReturns(const std::vector<Value*>& rs);

  // A value a loop carries into its next iteration, and in `device` a copy
  // of it on the device when the host is behind it: then the host's copy
  // is not brought up to date (no host sync per iteration). A capture
  // carries every dense tensor on the device: the host may read none.
  IValue carryOut(const Value* v, CudaPointer& device);
  void bindOutputs(const Node* node, IValueList results);
  void runNode(const Node* node, const NodeStep& step);

  // TorchScript's loop: runs while iter < max_trip_count and cond holds.
  void runLoop(const Node* node);

  // Device copies a loop owns until a slot takes them (returned on a throw).
  struct CarriedCopies {
    CarriedCopies(DeviceValues* values, size_t n) : values(values), ptrs(n, 0) {}
    ~CarriedCopies() {
      for (CudaPointer p : ptrs)
        if (p) values->release(p);
    }
    DeviceValues* values;
    std::vector<CudaPointer> ptrs;
  };

  // The whole loop in one call; false when a value it reads does not have
  // its static type (the loop then runs here, step by step).
  bool runLoopKernel(const Node* node, const LoopKernelRunner& kernel);

  // The values a loop kernel's in-place carries start from that it may
  // write: dying at the loop and held by this environment alone (or an
  // argument the caller lets the program write). Another value sharing the
  // memory, one the loop reads included, would hold a reference.
  void findWritableOuter(const Node* node, const LoopKernelRunner& kernel);
  void runIf(const Node* node);

  // An Assign op whose base nobody else can see any more writes into the
  // base (the one reference is this environment's entry).
  bool assignedInPlace(const Node* node, const NodeStep& step);

  // Whether slot's tensor has a device buffer, uploading it (whole, once)
  // when it is dense: a view or a region write on the host would bring
  // the value back, or upload a piece of it in the middle of the run.
  bool residentOnDevice(size_t slot);

  // The same on the device, for a base that has a device buffer: the
  // region is the forward view of the host's tensor (no data read), src is
  // copied into it there, and the result shares the base's buffer.
  bool assignedOnDevice(const Node* node, const NodeStep& step);

  // An argument's tensor that this environment alone holds, besides the
  // caller (writableArguments) and `extra` references the code asking
  // holds itself.
  bool writableArgument(const Tensor& t, long extra = 0) const;

  // ---- kernels ----

  void callKernel(int index);

  // The runtime's routine where it applies; else the interpreter's op,
  // which also raises PyTorch's errors for operands that do not fit.
  void callAttention(const Kernel& k);

  // On the GPU (runtime/device_attention.h): operands and result in device
  // memory, as for a generated kernel. False (nothing done) when the
  // kernels do not take the operands.
  bool attendOnDevice(const Kernel& k);

  // The backend's kernel when it has one and the operands have their static
  // shapes; else the interpreter's routine (double accumulation for f32).
  void callContraction(const Kernel& k, const ContractionKernel* kernel);

  // On the GPU: operands and result in device memory, as for a generated
  // kernel. False (nothing done) when the device cannot run it.
  bool contractOnDevice(const Kernel& k, const ContractionKernel& kernel);

  // Runs the kernel's nodes one by one as host ops: exactly the
  // interpreter's result, and its errors, for values a kernel cannot take.
  void runNodesOnHost(const Kernel& k);

  // A dense copy of a strided input, on a pooled buffer that goes back to
  // the pool right after the call.
  Tensor dense(const Tensor& t);

  // The argument arrays live in the run and are reused by every call: a
  // loop calls small kernels thousands of times, and each vector (and each
  // copied Tensor's shape) was an allocation per call.
  void callGenerated(const Kernel& k, KernelFunction fn);
  void setParams(const Kernel& k);

  // The device buffers of `values` for a kernel to read, uploaded where the
  // device has none. False (the call's uploads released) when one lacks
  // its static type: the host then runs the kernel's nodes.
  bool deviceOperands(const std::vector<const Value*>& values, CudaPointer* out);

  // A graph-defined kernel on the GPU: operands in device memory
  // (DeviceValues), outputs left there until the host reads them.
  void callOnDevice(const Kernel& k);

  // A copy kernel's operand: its value, or a list built inside the kernel
  // from values outside it.
  // On the GPU (`onDevice`) the values are taken as they are, nothing read
  // back, and `slots` gets each tensor's slot (a list's elements' too).
  bool copyOperand(const Kernel& k, const Value* v, IValue& out, bool onDevice,
                   std::vector<std::pair<Tensor, size_t>>& slots) const;

  void callCopy(const Kernel& k);

  // A copy op the host runs (its result's shape unknown to the graph: a
  // stack of a list a loop built) on the GPU as a copy kernel would.
  bool hostCopyOnDevice(const Node* node);

  // A copy kernel on the GPU: each piece copied into its place in the
  // output there, read where it lies (its value's buffer, or a list's kept
  // one) or uploaded when the host holds it. False (nothing done) when a
  // piece's dtype is not the output's (the host converts) or it has more
  // dims than a strided copy takes.
  bool copiedOnDevice(const Node* node, const IValueList& args, const std::vector<std::pair<Tensor, size_t>>& slots,
                      const Tensor& out);

  CompiledProgram& p_;
  std::vector<IValue> env_;  // per value slot (ValueSlots)
  std::vector<char> bound_;
  int64_t kernelCalls_ = 0;
  // callGenerated's argument arrays, kept between calls.
  std::vector<void*> bufs_;
  std::vector<CudaPointer> deviceBufs_;   // callOnDevice's
  std::unique_ptr<DeviceValues> device_;  // on CUDA: the values' device copies
  std::vector<StitchScalar> params_;
  std::vector<Tensor> outputs_, denseCopies_;
  IValueList hostArgs_;  // callHost's
  std::vector<WritableArgument> writable_;
  std::vector<const IValue*> loopOuter_;
  std::vector<bool> loopWritable_;
  int64_t inPlaceAssigns_ = 0;
  int64_t inPlaceAppends_ = 0;
  bool timeKernels_;
  RunCapture* capture_;
  CapturedOutputs captured_;
  int64_t kernelNs_ = 0;
  int64_t hostIterations_ = 0;
};

}  // namespace stitch
