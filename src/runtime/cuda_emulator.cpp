#include "runtime/cuda_emulator.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>

#include "codegen/c_renderer.h"
#include "codegen/kernel_abi.h"
#include "codegen/kernel_cache.h"
#include "common/error.h"
#include "runtime/gpu_blas.h"

namespace stitch {

namespace {

using EmulatedKernel = void (*)(CudaKernelArgs);  // stitch_args by value
using SetThread = void (*)(unsigned, unsigned, unsigned);
using SetHooks = void (*)(void (*)(), void* (*)(int64_t, int64_t));

// The threads of the block being run as fibers (one launch at a time).
enum class FiberState { Ready, Waiting, Done };
struct BlockFibers {
  ucontext_t scheduler;
  std::vector<ucontext_t> contexts;
  std::vector<FiberState> state;
  unsigned current = 0;
  EmulatedKernel kernel = nullptr;
  const CudaKernelArgs* args = nullptr;
  std::map<int64_t, std::vector<unsigned char>> shared;  // the block's shared buffers by id
  int64_t sharedBytes = 0;    // of the buffers the kernel declares (not the shuffles' exchange buffers)
  int64_t dynamicShared = 0;  // the launch's
  std::string failure;        // what a thread did wrong (raised once it yields)
};

// The id of the block's dynamic shared memory (STITCH_EMULATE_DYNAMIC of
// the CUDA header); shuffles exchange through ids -1 .. -8.
constexpr int64_t kDynamicSharedId = -(int64_t(1) << 40);
BlockFibers* running = nullptr;

void fiberMain() {
  running->kernel(*running->args);
  running->state[running->current] = FiberState::Done;
}  // back to the scheduler (uc_link)

// __syncthreads() of an emulated kernel.
void fiberBarrier() {
  STITCH_ASSERT(running, "__syncthreads() outside a launch with barriers");
  const unsigned self = running->current;
  running->state[self] = FiberState::Waiting;
  swapcontext(&running->contexts[self], &running->scheduler);
}

// A shared buffer of the running block (STITCH_SHARED): new ones hold
// 0xff bytes, as nothing in CUDA says what shared memory holds at first.
// It runs on a fiber's stack, which an exception must not unwind: a wrong
// request is kept as the block's failure (the scheduler raises it) and
// gets a buffer of the size asked for.
void* fiberShared(int64_t id, int64_t bytes) {
  STITCH_ASSERT(running, "shared memory outside a launch with barriers");
  auto fail = [](std::string why) {
    if (running->failure.empty()) running->failure = std::move(why);
  };
  auto [it, added] = running->shared.try_emplace(id);
  if (added) {
    it->second.assign((size_t)std::max<int64_t>(bytes, 1), 0xff);
    if (id == kDynamicSharedId && bytes != running->dynamicShared)
      fail("a kernel uses " + std::to_string(bytes) + " bytes of dynamic shared memory, launched with " +
           std::to_string(running->dynamicShared));
    if (id >= 0 || id == kDynamicSharedId) running->sharedBytes += bytes;
    if (running->sharedBytes > CudaEmulator::kSharedMemoryPerBlock)
      fail("a block's shared memory of " + std::to_string(running->sharedBytes) + " bytes, over the device's " +
           std::to_string(CudaEmulator::kSharedMemoryPerBlock));
  } else if (it->second.size() != (size_t)std::max<int64_t>(bytes, 1)) {
    fail("shared buffer " + std::to_string(id) + " of " + std::to_string(it->second.size()) +
         " bytes asked for as " + std::to_string(bytes));
    static thread_local std::vector<unsigned char> spare;
    spare.assign((size_t)std::max<int64_t>(bytes, 1), 0xff);
    return spare.data();
  }
  return it->second.data();
}

constexpr size_t kFiberStackBytes = size_t(256) << 10;
constexpr size_t kGuardBytes = 4096;

// A kernel handle: the kernel and the setter of its library's thread indices.
struct EmulatedKernelHandle {
  EmulatedKernel kernel;
  SetThread setThread;
};

class EmulatedModule final : public GpuModule {
 public:
  explicit EmulatedModule(std::shared_ptr<const LoadedLibrary> library) : library_(std::move(library)) {}
  void* function(const std::string& name) const override {
    auto [it, added] = handles_.try_emplace(name);
    if (added) {
      it->second.kernel = reinterpret_cast<EmulatedKernel>(library_->function(name));
      it->second.setThread = reinterpret_cast<SetThread>(library_->function("stitch_emulate_thread"));
      reinterpret_cast<SetHooks>(library_->function("stitch_emulate_set_hooks"))(&fiberBarrier, &fiberShared);
    }
    return &it->second;
  }

 private:
  std::shared_ptr<const LoadedLibrary> library_;
  mutable std::map<std::string, EmulatedKernelHandle> handles_;  // node-based: handles stay put
};

}  // namespace

// The host BLAS routine, or a step of the graph being captured.
class CudaEmulator::Blas final : public GpuBlas {
 public:
  explicit Blas(CudaEmulator& emulator) : emulator_(emulator) {}
  void sgemmStridedBatched(bool transA, bool transB, int64_t m, int64_t n, int64_t k, CudaPointer a, int64_t lda,
                           int64_t strideA, CudaPointer b, int64_t ldb, int64_t strideB, CudaPointer c, int64_t ldc,
                           int64_t strideC, int64_t batch) override {
    auto call = [=] {
      emulatedBlas().sgemmStridedBatched(transA, transB, m, n, k, a, lda, strideA, b, ldb, strideB, c, ldc, strideC,
                                         batch);
    };
    if (!emulator_.record(call)) call();
  }

 private:
  CudaEmulator& emulator_;
};

class CudaEmulator::Graph final : public GpuGraph {
 public:
  void launch() override {
    for (const std::function<void()>& step : steps) step();
  }
  std::vector<std::function<void()>> steps;
};

CudaEmulator::CudaEmulator() : blas_(std::make_unique<Blas>(*this)) {}
CudaEmulator::~CudaEmulator() = default;

CudaEmulator& CudaEmulator::get() {
  static CudaEmulator* emulator = new CudaEmulator();
  return *emulator;
}

bool CudaEmulator::record(std::function<void()> step) {
  if (!capturing()) return false;
  recording_->steps.push_back(std::move(step));
  return true;
}

void CudaEmulator::startCapture() { recording_ = std::make_unique<Graph>(); }

std::unique_ptr<GpuGraph> CudaEmulator::finishCapture() { return std::move(recording_); }

CudaPointer CudaEmulator::allocateMemory(size_t bytes) {
  bytes = std::max<size_t>(bytes, 1);
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0xff, bytes);
  return reinterpret_cast<CudaPointer>(p);
}

void CudaEmulator::releaseMemory(CudaPointer p) { std::free(reinterpret_cast<void*>(p)); }

void CudaEmulator::copyToDevice(CudaPointer dst, const void* src, size_t bytes) {
  STITCH_ASSERT(!capturing(), "a host-to-device copy during a capture");
  if (bytes) std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
}

void CudaEmulator::copyToHost(void* dst, CudaPointer src, size_t bytes) {
  STITCH_ASSERT(!capturing(), "a device-to-host copy during a capture");
  if (bytes) std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
}

void CudaEmulator::copyOnDevice(CudaPointer dst, CudaPointer src, size_t bytes) {
  auto copy = [=] {
    if (bytes) std::memcpy(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
  };
  if (!record(copy)) copy();
}

std::unique_ptr<GpuModule> CudaEmulator::load(const std::string& cudaSource, CubinStats* stats) {
  CompileStats compiled;
  auto module = std::make_unique<EmulatedModule>(loadCompiled(cudaSource, &compiled));
  if (stats) {
    stats->compiler = compiled.compiler + " (CUDA emulator)";
    stats->fromCache = compiled.outcome != CacheOutcome::Compiled;
    stats->ms = compiled.ms;
  }
  return module;
}

void CudaEmulator::launch(void* function, const GpuLaunchShape& shape, const void* arg, size_t bytes) {
  STITCH_ASSERT(bytes == sizeof(CudaKernelArgs) && shape.blocks >= 1 && shape.threads >= 1 &&
                    shape.dynamicShared >= 0 && shape.dynamicShared <= kSharedMemoryPerBlock,
                "emulated launch of ", shape.blocks, " x ", shape.threads, " with a ", bytes, "-byte argument and ",
                shape.dynamicShared, " bytes of dynamic shared memory");
  // Shared memory exists only among fibers: a kernel that has any has barriers.
  STITCH_ASSERT(shape.dynamicShared == 0 || shape.barriers, "dynamic shared memory without barriers");
  const auto args = *static_cast<const CudaKernelArgs*>(arg);  // a graph keeps the argument it was given
  if (!record([=, this] { run(function, shape, &args); })) run(function, shape, &args);
}

void CudaEmulator::run(void* function, const GpuLaunchShape& shape, const void* arg) {
  std::lock_guard<std::mutex> lock(launching_);
  const auto* handle = static_cast<const EmulatedKernelHandle*>(function);
  const CudaKernelArgs& args = *static_cast<const CudaKernelArgs*>(arg);
  std::vector<unsigned> order((size_t)shape.threads);
  for (int64_t block = 0; block < shape.blocks; ++block) {
    if (shape.barriers) {
      runBlockAsFibers(handle, &args, (unsigned)block, shape);
      continue;
    }
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), order_);
    for (unsigned thread : order) {
      handle->setThread((unsigned)block, thread, (unsigned)shape.threads);
      handle->kernel(args);
    }
  }
}

GpuBlas* CudaEmulator::blas() { return blas_.get(); }

char* CudaEmulator::fiberStack(unsigned thread) {
  if (stacks_.size() <= thread) stacks_.resize(thread + 1, nullptr);
  if (!stacks_[thread]) {
    // Pages are only touched as the stack grows; the lowest is a guard.
    void* p = mmap(nullptr, kFiberStackBytes + kGuardBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    mprotect(p, kGuardBytes, PROT_NONE);
    stacks_[thread] = static_cast<char*>(p) + kGuardBytes;
  }
  return stacks_[thread];
}

void CudaEmulator::runBlockAsFibers(const void* handleArg, const void* args, unsigned block,
                                   const GpuLaunchShape& shape) {
  const auto* handle = static_cast<const EmulatedKernelHandle*>(handleArg);
  const auto threads = (unsigned)shape.threads;
  BlockFibers fibers;
  fibers.dynamicShared = shape.dynamicShared;
  fibers.kernel = handle->kernel;
  fibers.args = static_cast<const CudaKernelArgs*>(args);
  fibers.contexts.resize(threads);
  fibers.state.assign(threads, FiberState::Ready);
  for (unsigned t = 0; t < threads; ++t) {
    ucontext_t& c = fibers.contexts[t];
    STITCH_ASSERT(getcontext(&c) == 0, "getcontext failed");
    c.uc_stack.ss_sp = fiberStack(t);
    c.uc_stack.ss_size = kFiberStackBytes;
    c.uc_link = &fibers.scheduler;
    makecontext(&c, &fiberMain, 0);
  }
  running = &fibers;
  std::vector<unsigned> order(threads);
  std::iota(order.begin(), order.end(), 0u);
  for (;;) {
    // Up to the next barrier (or the end), each thread in turn, in an
    // order of its own for every stretch between barriers.
    std::shuffle(order.begin(), order.end(), order_);
    for (unsigned t : order) {
      fibers.current = t;
      fibers.state[t] = FiberState::Ready;
      handle->setThread(block, t, threads);
      swapcontext(&fibers.scheduler, &fibers.contexts[t]);
      if (!fibers.failure.empty()) {
        running = nullptr;
        STITCH_ASSERT(false, "emulated block ", block, ": ", fibers.failure);
      }
    }
    const auto done = (unsigned)std::count(fibers.state.begin(), fibers.state.end(), FiberState::Done);
    if (done == threads) break;
    if (done > 0) {
      running = nullptr;
      STITCH_ASSERT(false, "emulated block ", block, ": ", threads - done, " of ", threads,
                    " threads wait at a barrier that the others never reach");
    }
  }
  running = nullptr;
}

}  // namespace stitch
