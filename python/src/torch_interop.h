// PyTorch tensors in and out without DLPack's Python-level cost: an
// argument is read through its C-level attributes (data_ptr, shape, stride,
// dtype) and kept alive by a reference; a result becomes a torch tensor
// through torch._C._from_dlpack on a DLPack capsule made here, whose
// deleter releases the result's owner. Nothing is copied either way.
#pragma once
#include <nanobind/nanobind.h>

#include <memory>

#include "stitch/stitch.h"

namespace tensorstitch {

namespace nb = nanobind;

// torch once something imported it (invalid handle before).
nb::handle torchModule();
bool isTorchTensor(nb::handle obj);

// CompileError (a bad argument) for GPU tensors and unsupported dtypes.
stitch::api::Tensor borrowTorchTensor(nb::handle tensor, std::shared_ptr<const void>& owner);
nb::object toTorch(const stitch::api::Tensor& tensor);

// Keeps a Python object alive from C++ code that may run without the GIL.
std::shared_ptr<const void> pythonOwner(nb::object obj);

[[noreturn]] void badArgument(const std::string& message);

}  // namespace tensorstitch
