// A contraction kernel (runtime/contraction_kernel.h) on the GPU: its
// operands and result stay in device memory, the product is one strided
// batched GEMM of the device's BLAS (runtime/gpu_blas.h), and the
// epilogue -- linear's bias, the merged bias row, the steps, in the host
// kernel's order -- one small elementwise kernel over the result.
//
// Row-major C[m, n] = A[m, k] B[k, n] is, read column-major, C^T = B^T
// A^T: the BLAS gets B as its first operand (transposed for linear's
// W[n, k]), A as its second, n as its rows and m as its columns, so
// nothing is copied or transposed in memory.
#pragma once
#include <string>
#include <vector>

#include "runtime/contraction_kernel.h"
#include "runtime/gpu_device.h"

namespace stitch {

// False when the device has no BLAS or a size exceeds its 32-bit
// arguments: the contraction then runs on the host. (A sibling product
// has the same sizes.)
bool deviceRunsContraction(GpuDevice& device, const ContractionKernel::Form& form);

// The epilogue kernel's CUDA text, as loaded.
std::string contractionEpilogueSource();

// Queues the contraction (deviceRunsContraction holds) and returns its
// launches (its sibling's product, the product, and the epilogue when
// there is one). `operands` as kernel.operands() lists them, dense f32 on
// the device; `out` holds batch x m x n floats.
int runContractionOnDevice(GpuDevice& device, const ContractionKernel& kernel,
                            const std::vector<CudaPointer>& operands, CudaPointer out);

}  // namespace stitch
