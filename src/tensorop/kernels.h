// Callable primitives. Each object holds a descriptor and either JIT code
// (from the kernel cache) or, for Isa::reference, the portable C++ version.
#pragma once
#include "tensorop/kernel_desc.h"

namespace stitch::tensorop {

// Resolves Isa::automatic (CPUID and STITCH_TENSOROP_ISA).
Isa resolveIsa(Isa isa);

class BrgemmKernel {
 public:
  BrgemmKernel() = default;
  BrgemmKernel(const BrgemmDesc& d, Isa isa = Isa::automatic);
  void operator()(const float* a, const float* b, float* c, int64_t lda,
                  int64_t ldb, int64_t ldc, int64_t br_stride_a,
                  int64_t br_stride_b) const;
  const BrgemmDesc& desc() const { return desc_; }
  Isa isa() const { return isa_; }
  // The generated entry point (null for the reference ISA). With trans_a it
  // expects packed A; operator() does the packing.
  BrgemmFn code() const { return fn_; }

 private:
  BrgemmDesc desc_;
  Isa isa_ = Isa::reference;
  BrgemmFn fn_ = nullptr;
};

class UnaryKernel {
 public:
  UnaryKernel() = default;
  UnaryKernel(const UnaryDesc& d, Isa isa = Isa::automatic);
  void operator()(const float* in, float* out, int64_t ld_in,
                  int64_t ld_out) const;
  const UnaryDesc& desc() const { return desc_; }
  explicit operator bool() const { return valid_; }

 private:
  UnaryDesc desc_;
  Isa isa_ = Isa::reference;
  UnaryFn fn_ = nullptr;
  bool valid_ = false;
};

class BinaryKernel {
 public:
  BinaryKernel() = default;
  BinaryKernel(const BinaryDesc& d, Isa isa = Isa::automatic);
  void operator()(const float* in0, const float* in1, float* out,
                  int64_t ld_in0, int64_t ld_in1, int64_t ld_out) const;
  const BinaryDesc& desc() const { return desc_; }

 private:
  BinaryDesc desc_;
  Isa isa_ = Isa::reference;
  BinaryFn fn_ = nullptr;
};

}  // namespace stitch::tensorop
