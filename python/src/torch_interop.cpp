#include "torch_interop.h"

#include <nanobind/stl/string.h>

#include <string>
#include <vector>

namespace tensorstitch {

namespace api = stitch::api;

namespace {

// DLPack's ABI (v0.x, what torch._C._from_dlpack takes), spelled out here.
struct DlDevice {
  int32_t type;
  int32_t id;
};
struct DlDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DlTensor {
  void* data;
  DlDevice device;
  int32_t ndim;
  DlDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byteOffset;
};
struct DlManagedTensor {
  DlTensor tensor;
  void* context;
  void (*deleter)(DlManagedTensor*);
};

constexpr int32_t kDlCpu = 1;
constexpr uint8_t kDlInt = 0, kDlUInt = 1, kDlFloat = 2;

// One exported result: the DLPack view of it and what keeps it alive.
struct Exported {
  DlManagedTensor managed;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  std::shared_ptr<const void> owner;
};

DlDataType dlpackType(api::DType dtype) {
  switch (dtype) {
    case api::DType::f32: return {kDlFloat, 32, 1};
    case api::DType::f64: return {kDlFloat, 64, 1};
    case api::DType::i32: return {kDlInt, 32, 1};
    case api::DType::i64: return {kDlInt, 64, 1};
    case api::DType::b8: return {kDlUInt, 8, 1};  // viewed as bool after import
  }
  return {kDlFloat, 32, 1};
}

// The attribute names and torch objects the fast paths use, made once.
struct Torch {
  nb::object requiresGrad = nb::str("requires_grad"), detach = nb::str("detach"), getDevice = nb::str("get_device"),
             dtype = nb::str("dtype"), dataPtr = nb::str("data_ptr"), shape = nb::str("shape"),
             stride = nb::str("stride"), view = nb::str("view");
  nb::object f32, f64, i32, i64, b8, u8, fromDlpack;

  explicit Torch(nb::handle torch) {
    f32 = torch.attr("float32");
    f64 = torch.attr("float64");
    i32 = torch.attr("int32");
    i64 = torch.attr("int64");
    b8 = torch.attr("bool");
    u8 = torch.attr("uint8");
    fromDlpack = torch.attr("_C").attr("_from_dlpack");
  }

  std::optional<api::DType> dtypeOf(nb::handle d) const {
    if (d.is(f32)) return api::DType::f32;
    if (d.is(f64)) return api::DType::f64;
    if (d.is(i32)) return api::DType::i32;
    if (d.is(i64)) return api::DType::i64;
    if (d.is(b8)) return api::DType::b8;
    return std::nullopt;
  }
};

const Torch& torch() {
  // Leaked on purpose: Python objects must not be released at exit after
  // the interpreter is gone.
  static const Torch* t = new Torch(torchModule());
  return *t;
}

std::vector<int64_t> ints(nb::handle sequence) {
  std::vector<int64_t> out;
  PyObject* seq = sequence.ptr();
  Py_ssize_t n = PyTuple_GET_SIZE(seq);
  out.reserve((size_t)n);
  for (Py_ssize_t i = 0; i < n; ++i) out.push_back(PyLong_AsLongLong(PyTuple_GET_ITEM(seq, i)));
  return out;
}

void deleteExported(DlManagedTensor* managed) { delete static_cast<Exported*>(managed->context); }

}  // namespace

void badArgument(const std::string& message) { throw api::CompileError("stitch: error: " + message); }

nb::handle torchModule() {
  static nb::handle module;
  if (!module.is_valid()) {
    nb::dict modules = nb::borrow<nb::dict>(nb::module_::import_("sys").attr("modules"));
    if (modules.contains("torch")) module = nb::handle(modules["torch"]).inc_ref();
  }
  return module;
}

bool isTorchTensor(nb::handle obj) {
  static nb::handle type;
  if (!type.is_valid()) {
    if (!torchModule().is_valid()) return false;
    type = nb::handle(torchModule().attr("Tensor")).inc_ref();
  }
  return PyObject_IsInstance(obj.ptr(), type.ptr()) == 1;
}

std::shared_ptr<const void> pythonOwner(nb::object obj) {
  auto* held = new nb::object(std::move(obj));
  return std::shared_ptr<const void>(held, [](const void* p) {
    if (PyGILState_Check()) {
      delete static_cast<const nb::object*>(p);
      return;
    }
    nb::gil_scoped_acquire gil;
    delete static_cast<const nb::object*>(p);
  });
}

api::Tensor borrowTorchTensor(nb::handle tensor, std::shared_ptr<const void>& owner) {
  const Torch& t = torch();
  nb::object source = nb::borrow(tensor);
  // The program reads the data; autograd does not follow it.
  if (source.attr(t.requiresGrad).ptr() == Py_True) source = source.attr(t.detach)();
  if (nb::cast<int64_t>(source.attr(t.getDevice)()) != -1)
    badArgument("tensors on a GPU need the CUDA backend, which this build does not have; pass CPU tensors");
  std::optional<api::DType> dtype = t.dtypeOf(source.attr(t.dtype));
  if (!dtype) badArgument("unsupported tensor dtype (supported: float32, float64, int32, int64, bool)");
  api::Tensor out;
  out.dtype = *dtype;
  out.data = reinterpret_cast<void*>(nb::cast<uintptr_t>(source.attr(t.dataPtr)()));
  out.sizes = ints(source.attr(t.shape));
  out.strides = ints(source.attr(t.stride)());
  owner = pythonOwner(std::move(source));
  out.owner = owner;
  return out;
}

nb::object toTorch(const api::Tensor& tensor) {
  const Torch& t = torch();
  auto* e = new Exported{{}, tensor.sizes, tensor.strides, tensor.owner};
  e->managed.tensor.data = tensor.data;
  e->managed.tensor.device = {kDlCpu, 0};
  e->managed.tensor.ndim = (int32_t)tensor.sizes.size();
  e->managed.tensor.dtype = dlpackType(tensor.dtype);
  e->managed.tensor.shape = e->shape.data();
  e->managed.tensor.strides = e->strides.data();
  e->managed.tensor.byteOffset = 0;
  e->managed.context = e;
  e->managed.deleter = deleteExported;
  // An unconsumed capsule still owns its tensor; a consumed one was
  // renamed and belongs to torch.
  PyObject* capsule = PyCapsule_New(&e->managed, "dltensor", [](PyObject* cap) {
    if (!PyCapsule_IsValid(cap, "dltensor")) return;
    auto* managed = static_cast<DlManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    managed->deleter(managed);
  });
  if (!capsule) {
    delete e;
    throw nb::python_error();
  }
  nb::object result = t.fromDlpack(nb::steal(capsule));
  if (tensor.dtype == api::DType::b8) result = result.attr(t.view)(t.b8);
  return result;
}

}  // namespace tensorstitch
