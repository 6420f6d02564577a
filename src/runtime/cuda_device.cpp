#include "runtime/cuda_device.h"

#include <dlfcn.h>

#include <algorithm>

#include "common/dynamic_symbols.h"
#include "common/error.h"
#include "runtime/gpu_blas.h"

namespace stitch {

// The driver API's entry points used here (cuda.h; CUresult is an int enum,
// 0 is success; handles are pointers, device pointers 64-bit integers).
struct CudaDevice::Api {
  void* handle = nullptr;
  std::string failure;
  int (*init)(unsigned) = nullptr;
  int (*deviceGetCount)(int*) = nullptr;
  int (*deviceGet)(int*, int) = nullptr;
  int (*deviceGetName)(char*, int, int) = nullptr;
  int (*deviceGetAttribute)(int*, int, int) = nullptr;
  int (*primaryCtxRetain)(void**, int) = nullptr;
  int (*ctxSetCurrent)(void*) = nullptr;
  int (*memAlloc)(CudaPointer*, size_t) = nullptr;
  int (*memFree)(CudaPointer) = nullptr;
  int (*memcpyHtoD)(CudaPointer, const void*, size_t) = nullptr;
  int (*memcpyDtoH)(void*, CudaPointer, size_t) = nullptr;
  int (*memcpyDtoD)(CudaPointer, CudaPointer, size_t) = nullptr;
  int (*moduleLoadData)(void**, const void*) = nullptr;
  int (*moduleUnload)(void*) = nullptr;
  int (*moduleGetFunction)(void**, void*, const char*) = nullptr;
  int (*launchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                      void**) = nullptr;
  int (*getErrorString)(int, const char**) = nullptr;
  // Dynamic shared memory past 48 KiB (optional: without it a block gets 48 KiB).
  int (*funcSetAttribute)(void*, int, int) = nullptr;
  // Graphs (optional: without them no run is captured).
  int (*streamCreate)(void**, unsigned) = nullptr;
  int (*streamBeginCapture)(void*, int) = nullptr;
  int (*streamEndCapture)(void*, void**) = nullptr;
  int (*graphInstantiate)(void**, void*, unsigned long long) = nullptr;
  int (*graphLaunch)(void*, void*) = nullptr;
  int (*graphExecDestroy)(void*) = nullptr;
  int (*graphDestroy)(void*) = nullptr;
  int (*memcpyDtoDAsync)(CudaPointer, CudaPointer, size_t, void*) = nullptr;
  bool graphs = false;
};

namespace {

// CUfunction_attribute: CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
constexpr int kFuncMaxDynamicShared = 8;

// CUstreamCaptureMode: CU_STREAM_CAPTURE_MODE_RELAXED.
constexpr int kCaptureRelaxed = 2;
// cuBLAS's workspace during captures.
constexpr size_t kBlasWorkspaceBytes = size_t(32) << 20;

// CUdevice_attribute values.
constexpr int kAttrSharedMemoryPerBlock = 8;
constexpr int kAttrSharedMemoryPerBlockOptin = 97;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;

const CudaDevice::Api& driverApi() {
  static const CudaDevice::Api* loaded = [] {
    auto* a = new CudaDevice::Api();  // never unloaded: modules may outlive statics
    a->handle = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!a->handle) {
      a->failure = "no CUDA driver (libcuda.so.1 not found)";
      return a;
    }
    bool ok = bindSymbol(a->handle, "cuInit", a->init) &&
              bindSymbol(a->handle, "cuDeviceGetCount", a->deviceGetCount) &&
              bindSymbol(a->handle, "cuDeviceGet", a->deviceGet) &&
              bindSymbol(a->handle, "cuDeviceGetName", a->deviceGetName) &&
              bindSymbol(a->handle, "cuDeviceGetAttribute", a->deviceGetAttribute) &&
              bindSymbol(a->handle, "cuDevicePrimaryCtxRetain", a->primaryCtxRetain) &&
              bindSymbol(a->handle, "cuCtxSetCurrent", a->ctxSetCurrent) &&
              bindSymbol(a->handle, "cuMemAlloc_v2", a->memAlloc) &&
              bindSymbol(a->handle, "cuMemFree_v2", a->memFree) &&
              bindSymbol(a->handle, "cuMemcpyHtoD_v2", a->memcpyHtoD) &&
              bindSymbol(a->handle, "cuMemcpyDtoH_v2", a->memcpyDtoH) &&
              bindSymbol(a->handle, "cuMemcpyDtoD_v2", a->memcpyDtoD) &&
              bindSymbol(a->handle, "cuModuleLoadData", a->moduleLoadData) &&
              bindSymbol(a->handle, "cuModuleUnload", a->moduleUnload) &&
              bindSymbol(a->handle, "cuModuleGetFunction", a->moduleGetFunction) &&
              bindSymbol(a->handle, "cuLaunchKernel", a->launchKernel) &&
              bindSymbol(a->handle, "cuGetErrorString", a->getErrorString);
    if (!ok) a->failure = "the CUDA driver lacks driver API functions";
    if (ok && !bindSymbol(a->handle, "cuFuncSetAttribute", a->funcSetAttribute)) a->funcSetAttribute = nullptr;
    a->graphs = ok && bindSymbol(a->handle, "cuStreamCreate", a->streamCreate) &&
                bindSymbol(a->handle, "cuStreamBeginCapture_v2", a->streamBeginCapture) &&
                bindSymbol(a->handle, "cuStreamEndCapture", a->streamEndCapture) &&
                bindSymbol(a->handle, "cuGraphInstantiateWithFlags", a->graphInstantiate) &&
                bindSymbol(a->handle, "cuGraphLaunch", a->graphLaunch) &&
                bindSymbol(a->handle, "cuGraphExecDestroy", a->graphExecDestroy) &&
                bindSymbol(a->handle, "cuGraphDestroy", a->graphDestroy) &&
                bindSymbol(a->handle, "cuMemcpyDtoDAsync_v2", a->memcpyDtoDAsync);
    if (ok && a->init(0) != 0) {
      ok = false;
      a->failure = "the CUDA driver does not initialize (no GPU, or the driver does not match the kernel module)";
    }
    int count = 0;
    if (ok && (a->deviceGetCount(&count) != 0 || count == 0)) {
      ok = false;
      a->failure = "no CUDA GPU";
    }
    if (!ok) {
      ::dlclose(a->handle);
      a->handle = nullptr;
    }
    return a;
  }();
  return *loaded;
}

std::string errorText(const CudaDevice::Api& api, int result) {
  const char* text = nullptr;
  if (api.getErrorString && api.getErrorString(result, &text) == 0 && text) return text;
  return "CUDA error " + std::to_string(result);
}

// A loaded cubin.
class CudaModule final : public GpuModule {
 public:
  CudaModule(const CudaDevice::Api* api, void* module) : api_(api), module_(module) {}
  ~CudaModule() override { api_->moduleUnload(module_); }
  CudaModule(const CudaModule&) = delete;
  CudaModule& operator=(const CudaModule&) = delete;
  void* function(const std::string& name) const override {
    void* fn = nullptr;
    if (api_->moduleGetFunction(&fn, module_, name.c_str()) != 0 || !fn)
      throw InternalError("CUDA module has no kernel '" + name + "'");
    return fn;
  }

 private:
  const CudaDevice::Api* api_;
  void* module_;
};

// An instantiated graph, launched on the device's capture stream.
class CudaGraph final : public GpuGraph {
 public:
  CudaGraph(const CudaDevice::Api* api, void* graph, void* exec, void* stream)
      : api_(api), graph_(graph), exec_(exec), stream_(stream) {}
  ~CudaGraph() override {
    api_->graphExecDestroy(exec_);
    api_->graphDestroy(graph_);
  }
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;
  void launch() override {
    const int result = api_->graphLaunch(exec_, stream_);
    if (result != 0) throw RuntimeFailure("CUDA: cuGraphLaunch failed: " + errorText(*api_, result));
  }

 private:
  const CudaDevice::Api* api_;
  void* graph_;
  void* exec_;
  void* stream_;
};

}  // namespace

CudaDevice& CudaDevice::get() {
  static CudaDevice* device = [] {
    const Api& api = driverApi();
    if (!api.handle) throw RuntimeFailure("CUDA: " + api.failure + "; run with --device cpu");
    auto* d = new CudaDevice();  // never destroyed: kernels may run during static destruction
    d->api_ = &api;
    int dev = 0;
    d->check(api.deviceGet(&dev, 0), "cuDeviceGet");
    char name[256] = {};
    d->check(api.deviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName");
    d->name_ = name;
    int major = 0, minor = 0, shared = 0;
    d->check(api.deviceGetAttribute(&major, kAttrComputeCapabilityMajor, dev), "cuDeviceGetAttribute");
    d->check(api.deviceGetAttribute(&minor, kAttrComputeCapabilityMinor, dev), "cuDeviceGetAttribute");
    d->check(api.deviceGetAttribute(&shared, kAttrSharedMemoryPerBlock, dev), "cuDeviceGetAttribute");
    // Past the default 48 KiB a kernel must opt in (allowDynamicShared).
    int optin = 0;
    if (api.funcSetAttribute && api.deviceGetAttribute(&optin, kAttrSharedMemoryPerBlockOptin, dev) == 0)
      shared = std::max(shared, optin);
    d->arch_ = 10 * major + minor;
    d->sharedPerBlock_ = shared;
    d->check(api.primaryCtxRetain(&d->context_, dev), "cuDevicePrimaryCtxRetain");
    return d;
  }();
  device->check(device->api_->ctxSetCurrent(device->context_), "cuCtxSetCurrent");
  return *device;
}

void CudaDevice::check(int result, const char* what) const {
  if (result != 0) throw RuntimeFailure(std::string("CUDA: ") + what + " failed: " + errorText(*api_, result));
}

CudaPointer CudaDevice::allocateMemory(size_t bytes) {
  bytes = std::max<size_t>((bytes + 255) / 256 * 256, 256);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = free_.lower_bound(bytes); it != free_.end() && it->first <= 2 * bytes) {
    CudaPointer p = it->second;
    free_.erase(it);
    return p;
  }
  CudaPointer p = 0;
  int result = api_->memAlloc(&p, bytes);
  if (result != 0 && !free_.empty()) {  // out of memory with blocks cached: give them back, try again
    for (auto& [size, block] : free_) {
      api_->memFree(block);
      sizes_.erase(block);
    }
    free_.clear();
    result = api_->memAlloc(&p, bytes);
  }
  check(result, "cuMemAlloc");
  sizes_[p] = bytes;
  return p;
}

void CudaDevice::releaseMemory(CudaPointer p) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = sizes_.find(p);
  STITCH_ASSERT(it != sizes_.end(), "releasing device memory that was not allocated here");
  free_.emplace(it->second, p);
}

void CudaDevice::copyToDevice(CudaPointer dst, const void* src, size_t bytes) {
  STITCH_ASSERT(!capturing(), "a host-to-device copy during a capture");
  if (bytes) check(api_->memcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}

void CudaDevice::copyToHost(void* dst, CudaPointer src, size_t bytes) {
  STITCH_ASSERT(!capturing(), "a device-to-host copy during a capture");
  if (bytes) check(api_->memcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

void CudaDevice::copyOnDevice(CudaPointer dst, CudaPointer src, size_t bytes) {
  if (!bytes) return;
  if (capturing())
    check(api_->memcpyDtoDAsync(dst, src, bytes, stream_), "cuMemcpyDtoDAsync");
  else
    check(api_->memcpyDtoD(dst, src, bytes), "cuMemcpyDtoD");
}

bool CudaDevice::canCapture() const { return api_->graphs; }

void CudaDevice::startCapture() {
  if (!stream_) check(api_->streamCreate(&stream_, 0), "cuStreamCreate");
  if (GpuBlas* b = blas()) {
    if (!blasWorkspace_) blasWorkspace_ = allocateMemory(kBlasWorkspaceBytes);
    b->setStream(stream_, blasWorkspace_, kBlasWorkspaceBytes);
  }
  const int begun = api_->streamBeginCapture(stream_, kCaptureRelaxed);
  if (begun == 0) return;
  if (GpuBlas* b = blas()) b->setStream(nullptr, 0, 0);
  check(begun, "cuStreamBeginCapture");
}

std::unique_ptr<GpuGraph> CudaDevice::finishCapture() {
  void* graph = nullptr;
  const int ended = api_->streamEndCapture(stream_, &graph);
  if (GpuBlas* b = blas()) b->setStream(nullptr, 0, 0);
  if (ended != 0 || !graph) {
    if (graph) api_->graphDestroy(graph);  // an invalidated capture's
    return nullptr;
  }
  void* exec = nullptr;
  if (api_->graphInstantiate(&exec, graph, 0) != 0 || !exec) {
    api_->graphDestroy(graph);
    return nullptr;
  }
  return std::make_unique<CudaGraph>(api_, graph, exec, stream_);
}

GpuBlas* CudaDevice::blas() { return cublas(); }

std::string CudaDevice::name() const { return name_ + " (sm_" + std::to_string(arch_) + ")"; }

std::unique_ptr<GpuModule> CudaDevice::load(const std::string& cudaSource, CubinStats* stats) {
  const std::string cubin = compileCuda(cudaSource, arch_, stats);
  void* module = nullptr;
  check(api_->moduleLoadData(&module, cubin.data()), "cuModuleLoadData");
  return std::make_unique<CudaModule>(api_, module);
}

void CudaDevice::launch(void* function, const GpuLaunchShape& shape, const void* arg, size_t bytes) {
  STITCH_ASSERT(shape.blocks >= 1 && shape.blocks < (int64_t(1) << 31) && bytes > 0 && shape.dynamicShared >= 0 &&
                    shape.dynamicShared <= sharedPerBlock_,
                "launch of ", shape.blocks, " blocks with ", shape.dynamicShared, " bytes of dynamic shared memory");
  void* params[] = {const_cast<void*>(arg)};
  check(api_->launchKernel(function, (unsigned)shape.blocks, 1, 1, (unsigned)shape.threads, 1, 1,
                           (unsigned)shape.dynamicShared, capturing() ? stream_ : nullptr, params, nullptr),
        "cuLaunchKernel");
}

void CudaDevice::allowDynamicShared(void* function, int64_t bytes) {
  STITCH_ASSERT(bytes <= sharedPerBlock_, bytes, " bytes of dynamic shared memory on a device that allows ",
                sharedPerBlock_);
  // Without the attribute a block's static and dynamic shared memory stay
  // within 48 KiB, which sharedPerBlock_ then is.
  if (bytes == 0 || !api_->funcSetAttribute) return;
  check(api_->funcSetAttribute(function, kFuncMaxDynamicShared, (int)bytes), "cuFuncSetAttribute");
}


}  // namespace stitch
