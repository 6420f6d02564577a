#include "runtime/cuda_kernels.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"

namespace stitch {

CudaKernels::CudaKernels(const std::vector<KernelUOps>& uops, const std::string& source,
                         const CudaDeviceLimits& limits)
    : device_(gpuDevice()) {
  // Text rendered for more shared memory than this device has would not launch.
  STITCH_ASSERT(limits.sharedMemoryPerBlock <= device_.sharedMemoryPerBlock(), "kernels rendered for ",
                limits.sharedMemoryPerBlock, " bytes of shared memory per block on ", device_.name(), ", which has ",
                device_.sharedMemoryPerBlock());
  module_ = device_.load(source, &stats_);
  for (const KernelUOps& k : uops) {
    Entry e;
    e.launch = cudaLaunchOf(k, limits);
    e.main = module_->function(k.name);
    device_.allowDynamicShared(e.main, e.launch.dynamicSharedBytes);
    if (e.launch.after) e.after = module_->function(k.name + "_after");
    kernels_.emplace(k.name, e);
  }
}

int CudaKernels::launch(const std::string& name, const CudaPointer* bufs, size_t count, const StitchScalar* params,
                         size_t paramCount) {
  auto it = kernels_.find(name);
  STITCH_ASSERT(it != kernels_.end(), "no CUDA kernel ", name);
  const Entry& e = it->second;
  const size_t scratch = e.launch.sharedScratchBytes.size() + (e.launch.arenaBytesPerBlock > 0 ? 1 : 0);
  STITCH_ASSERT(count + scratch <= (size_t)kCudaMaxBuffers && paramCount <= (size_t)kCudaMaxParams, "kernel ", name,
                " has ", count + scratch, " buffers and ", paramCount, " parameters");
  CudaKernelArgs args;
  std::memset(&args, 0, sizeof args);
  std::copy(bufs, bufs + count, args.bufs);
  std::copy(params, params + paramCount, args.params);
  // The scratch goes back right after the launch: the allocator hands a
  // block out again only to later work on the same stream, which runs
  // after this kernel.
  std::vector<CudaPointer> held;
  size_t slot = count;
  for (int64_t b : e.launch.sharedScratchBytes) held.push_back(args.bufs[slot++] = device_.allocate((size_t)b));
  if (e.launch.arenaBytesPerBlock > 0)
    held.push_back(args.bufs[slot++] = device_.allocate(size_t(e.launch.arenaBytesPerBlock * e.launch.gridBlocks)));
  try {
    device_.launch(e.main, {e.launch.blocks, e.launch.threadsPerBlock, e.launch.barriers, e.launch.dynamicSharedBytes},
                   &args, sizeof args);
    ++launches_;
    if (e.after) {
      device_.launch(e.after, {}, &args, sizeof args);
      ++launches_;
    }
  } catch (...) {
    for (CudaPointer p : held) device_.release(p);
    throw;
  }
  for (CudaPointer p : held) device_.release(p);
  return e.after ? 2 : 1;
}

}  // namespace stitch
