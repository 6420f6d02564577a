// TensorStitch's front door: load a module of TorchScript-subset source,
// compile one of its functions for the types of its arguments, and run it
// on tensors that live in the caller's memory. The `stitch` command and the
// Python package are two users of this header and nothing else of the
// compiler.
//
//   auto module = stitch::api::Module::fromFile("normalize.py");
//   stitch::api::Function f = module.function("normalize");
//   std::vector<stitch::api::Value> args = f.bind({src, 0.5, 2.0}, {});
//   std::shared_ptr<const stitch::api::Program> p = f.compile(args);
//   std::vector<stitch::api::Value> out = p->run(args);
//
// Tensors pass without a copy: a Tensor names the caller's memory (pointer,
// dtype, sizes and strides in elements) and an owner that keeps it alive.
// Writes the program makes into its arguments land in that memory, as under
// PyTorch. Results are tensors on buffers the runtime made (or views of the
// arguments), each holding an owner that keeps its buffer alive.
//
// Errors: CompileError for a bad program or bad arguments (its what() is
// the one line `FILE:LINE:COL: error: message`, or `stitch: error: ...`
// without a source location), RunError for a failure that depends on the
// data (an index out of range), InternalError for a bug in TensorStitch.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace stitch::api {

enum class DType { f32, f64, i32, i64, b8 };  // b8: bool, one byte per element

const char* dtypeName(DType dtype);  // "f32", "f64", "i32", "i64", "bool"
size_t dtypeSize(DType dtype);       // bytes per element

struct Tensor {
  void* data = nullptr;  // element [0, ..., 0]
  DType dtype = DType::f32;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;  // in elements; may be 0 or negative
  std::shared_ptr<const void> owner;  // keeps `data` alive

  // A new contiguous zero-filled tensor that owns its (64-byte aligned)
  // memory. CompileError for a negative size; RunError when no machine
  // holds it (more than 2^46 bytes) or the allocation fails.
  static Tensor empty(DType dtype, std::vector<int64_t> sizes);
  // A tensor of this dtype and these sizes without memory: only its type
  // matters (Function::dump).
  static Tensor typeOnly(DType dtype, std::vector<int64_t> sizes);
  int64_t numel() const;
  bool contiguous() const;  // row-major, no gaps
};

// What a function takes and returns: None, a Python bool / int / float, a
// tensor, or a list or tuple of values.
class Value {
 public:
  enum class Kind { None, Bool, Int, Float, Tensor, List, Tuple };

  Value() = default;  // None
  Value(bool b) : v_(b) {}
  Value(int64_t i) : v_(i) {}
  Value(int i) : v_((int64_t)i) {}
  Value(double d) : v_(d) {}
  Value(Tensor t) : v_(std::move(t)) {}
  static Value list(std::vector<Value> items);
  static Value tuple(std::vector<Value> items);

  Kind kind() const;
  bool toBool() const;
  int64_t toInt() const;      // an int or a bool
  double toDouble() const;    // a float, an int or a bool
  const Tensor& tensor() const;
  const std::vector<Value>& items() const;  // of a list or a tuple

 private:
  struct Items {
    Kind kind;
    std::vector<Value> values;
  };
  std::variant<std::monostate, bool, int64_t, double, Tensor, std::shared_ptr<const Items>> v_;
};

class CompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// A call whose arguments do not fit the parameters (too many, a missing or
// unknown one, one given twice): Python raises TypeError for these.
class ArgumentError : public CompileError {
 public:
  using CompileError::CompileError;
};
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class InternalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where the compiler can stop and show its IR (DESIGN.md's pipeline).
enum class Stage { Parsed, Functional, Simplified, Fused, UGraph, UOps, Code };
const char* stageName(Stage stage);
std::optional<Stage> stageFromName(std::string_view name);
std::string stageNames();  // "parsed, functional, ..., code"

// Where compiled kernels run. Cuda: the first CUDA GPU, through the CUDA
// driver and NVRTC loaded at run time (RunError without them).
enum class Device { Cpu, Cuda };
const char* deviceName(Device device);                       // "cpu", "cuda"
std::optional<Device> deviceFromName(std::string_view name);

enum class Mode {
  Compiled,  // the whole pipeline: generated kernels and the runtime
  Interp,    // the reference interpreter on the IR after `Options::stage`
};

struct Options {
  Mode mode = Mode::Compiled;
  Stage stage = Stage::Parsed;  // Interp mode only
  int threads = 0;              // OpenMP threads; 0: one per core
  Device device = Device::Cpu;  // Compiled mode: where generated kernels run
  // Every run is also interpreted on the program as parsed (compiled mode)
  // or before shape specialization (interp mode) and compared within
  // |a - b| <= atol + rtol |b| + 8 eps max|b| (rtol 1e-4, atol 1e-5, eps the
  // dtype's machine epsilon, the maximum over the expected tensor: float
  // kernels round relative to the terms they sum); RunInfo says how it
  // went. Program::check compares one chosen run instead (benchmarks).
  bool check = false;
  // Times every fused group's candidate schedules on the arguments of the
  // first compilation and keeps the fastest (stored on disk for the next
  // tuned compilation of the same program and types).
  bool tune = false;
  bool tuneProgress = false;  // a progress bar on stderr while tuning
  // Compiled mode: ProgramInfo::work gets each kernel's static work
  // estimate (costs a second linearization of every op on its own).
  bool estimateWork = false;
};

// A parameter's annotation, structured so that a caller can build an
// argument for it without reading the annotation's text.
struct ParameterType {
  enum class Kind { Tensor, Int, Float, Bool, None, Str, DType, List, Tuple };
  Kind kind = Kind::Tensor;
  std::vector<ParameterType> elements;  // List: the element type; Tuple: one per element
  std::string text;  // as the IR prints it: "Tensor", "float", "List[Tensor]"
};

struct Parameter {
  std::string name;
  ParameterType type;
  bool hasDefault = false;
};

struct StageOps {
  Stage stage;
  int64_t ops = 0;
  int64_t mutatingOps = 0;
};

// What compiling a program did.
// A kernel's value operations per call (data ALU ops and stores, times
// their loops), next to the same count for its ops each compiled alone:
// fusion saves loads and stores, so work well above opWork means a value
// recomputed per element of a loop it does not depend on.
struct KernelWork {
  std::string kernel;  // "k0", ...
  std::string kind;    // "block" (generated), "copy", "contraction" (library: work = opWork)
  int64_t work = 0;
  int64_t opWork = 0;
};

struct ProgramInfo {
  Mode mode = Mode::Compiled;
  std::vector<StageOps> stages;     // op counts after each stage that ran
  std::string functionalFallback;   // why functionalization refused ("" if it did not)
  int64_t kernels = 0;              // kernels in the kernel graph (compiled mode)
  bool compiledCode = false;        // false: no generated kernel, nothing compiled
  double compileMs = 0;             // of the C code
  std::string cache;                // "compiled", "disk", "memory" or "none"
  std::string compiler;             // e.g. "clang 14.0.6", "nvrtc 13.5"
  std::string device = "cpu";       // or the GPU's name: "NVIDIA H200 (sm_90)"
  bool rebuiltBadEntry = false;     // a corrupt disk-cache entry was rebuilt
  // With Options::tune: groups tuned, schedules measured, and whether the
  // choice came from the tuning cache.
  std::optional<std::pair<int64_t, int64_t>> tuned;
  bool tuneFromCache = false;
  std::vector<KernelWork> work;     // with Options::estimateWork
};

struct CheckResult {
  bool ok = true;
  double maxAbsError = 0;
  std::string mismatch;   // what differs first, when !ok
  std::string reference;  // what the run was compared with
};

struct RunInfo {
  int64_t kernelCalls = 0;
  int64_t hostSyncs = 0;             // waits for the GPU (device cuda)
  int64_t graphKernels = 0;          // kernels in the CUDA graph the run launched (its one kernel call), or 0
  std::optional<CheckResult> check;  // with Options::check
};

struct TimedRuns {
  std::vector<Value> outputs;   // of the last run
  std::vector<double> timesMs;  // one per timed run
  double medianMs = 0;          // of timesMs
  double minMs = 0;
  int64_t kernelCalls = 0;      // per run (0 in interp mode)
  int64_t hostSyncs = 0;        // per run: waits for the GPU (device cuda)
  int64_t graphKernels = 0;     // per run: kernels in the CUDA graph it launched, or 0
  // Compiled mode, loops the host steps through (iterations per run > 0):
  // the median over the timed runs of the run's time outside its kernels'
  // routines, per iteration (dispatch, buffers, host ops, read-backs).
  int64_t hostIterations = 0;
  double hostUsPerIteration = 0;
};

// One function compiled for one signature of argument types.
class Program {
 public:
  virtual ~Program() = default;
  // Runs on arguments of the types it was compiled for (CompileError
  // otherwise). Writes into arguments land in their memory. Safe to call
  // from several threads (runs take turns).
  virtual std::vector<Value> run(const std::vector<Value>& args, RunInfo* info = nullptr) const = 0;
  // For benchmarks: runs on a private copy of `args`, which stay as they
  // are. repetitions <= 0: one run, timed; N > 0: one untimed warm-up run,
  // then N timed runs, the copy refilled in place before each (not timed:
  // the program sees the same values every time; only the arguments a run
  // can write are looked at). Never checks.
  virtual TimedRuns runTimed(const std::vector<Value>& args, int repetitions) const = 0;
  // Options::check on demand: interprets the reference program on a copy
  // of `args` (as they were before the run) and compares its results with
  // that run's `outputs`. CompileError when compiled without Options::check.
  virtual CheckResult check(const std::vector<Value>& args, const std::vector<Value>& outputs) const = 0;
  virtual const ProgramInfo& info() const = 0;
};

class Module;

// A function of a module; compiles for each new signature of argument
// types (dtypes, shapes, list lengths and element types) and keeps each
// program (in memory; the generated code also on disk, so another process
// loads it without compiling).
class Function {
 public:
  const std::string& name() const;
  const std::vector<Parameter>& parameters() const;
  // Whether the function is annotated to return a tuple: run() then gives
  // one value per element (a function returning one value gives one).
  bool returnsTuple() const;

  // One value per parameter from positional and keyword arguments, the
  // parameters' defaults filling the rest. ArgumentError for a missing,
  // unknown or twice given argument, or too many.
  std::vector<Value> bind(std::vector<Value> args,
                          std::vector<std::pair<std::string, Value>> keywords = {}) const;
  // The program for these arguments' types (bound: one per parameter),
  // compiled on the first call for its signature and kept.
  std::shared_ptr<const Program> compile(const std::vector<Value>& args, const Options& options = {}) const;
  // bind, compile and run in one.
  std::vector<Value> call(std::vector<Value> args, std::vector<std::pair<std::string, Value>> keywords = {},
                          const Options& options = {}, RunInfo* info = nullptr) const;
  // The IR after `stage` for these argument types (nullopt: the parameter's
  // annotation), or with no stage every pass's IR in order ("== after PASS
  // (T ms) ==" headers). Compiles nothing; a tensor may be Tensor::typeOnly.
  // Stage code is the C translation unit, or with Device::Cuda the CUDA one
  // (no GPU needed). The fused groups' schedules are chosen for `threads`,
  // as compile() chooses them for Options::threads (0: one per core), so the
  // text is what a run with that many threads executes.
  std::string dump(const std::vector<std::optional<Value>>& args, std::optional<Stage> stage,
                   Device device = Device::Cpu, int threads = 0) const;

  struct Stats {
    int64_t compilations = 0;  // signatures compiled
    int64_t cacheHits = 0;     // compile() calls served by a kept program
    // Compilations by where their machine code came from (ProgramInfo::cache:
    // "compiled", "disk", "memory", "none").
    std::map<std::string, int64_t> codeFrom;
  };
  Stats stats() const;

 private:
  friend class Module;
  struct State;
  std::shared_ptr<State> state_;
};

class Module {
 public:
  // `path` names the source in error locations.
  static Module fromSource(const std::string& source, const std::string& path);
  static Module fromFile(const std::string& path);
  // The functions in file order.
  std::vector<std::string> functionNames() const;
  // The function named `name`; "" the last one in the file.
  Function function(const std::string& name = "") const;

  struct State;  // the parsed source (opaque)

 private:
  std::shared_ptr<const State> state_;
};

// The version of TensorStitch, e.g. "0.1.0".
const char* version();

}  // namespace stitch::api
