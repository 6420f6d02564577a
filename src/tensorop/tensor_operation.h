// Implementation of stitch::tensorop::TensorOperation: validates a loop
// description, picks the kernels' M/N/K dimensions and leading dimensions,
// and runs the loop nest (seq loops recursively, shared loops with OpenMP).
#pragma once
#include <string>
#include <vector>

#include "stitch/tensorop.h"
#include "tensorop/kernels.h"

namespace stitch::tensorop {

class TensorOperationImpl {
 public:
  void setup(dtype_t dtype, ptype_t first_touch, ptype_t main,
             ptype_t last_touch, const std::vector<dim_t>& dim_types,
             const std::vector<exec_t>& exec_types,
             const std::vector<int64_t>& dim_sizes,
             const std::vector<int64_t>& strides_in0,
             const std::vector<int64_t>& strides_in1,
             const std::vector<int64_t>& strides_out, Isa isa);
  void execute(const float* in0, const float* in1, float* out) const;
  std::string describe() const;

 private:
  void validateShape(dtype_t dtype, ptype_t first_touch, ptype_t main,
                     ptype_t last_touch);
  void identifyContraction();
  void identifyElementwise();
  void generateKernels(Isa isa);
  void iterate(size_t dim, const float* in0, const float* in1, float* out,
               bool first, bool last) const;
  const float* packA(const float* a) const;
  void runKernels(const float* in0, const float* in1, float* out, bool first,
                  bool last) const;
  int64_t size(int id) const { return id < 0 ? 1 : sizes_[id]; }

  ptype_t first_ = ptype_t::none, main_ = ptype_t::none, last_ = ptype_t::none;
  std::vector<dim_t> types_;
  std::vector<exec_t> execs_;
  std::vector<int64_t> sizes_, s0_, s1_, so_;
  size_t numShared_ = 0;
  size_t firstPrim_ = 0;

  // Kernel dimensions (-1: absent, size 1).
  int primM_ = -1, primN_ = -1, primK_ = -1, primBr_ = -1;
  bool transA_ = false, transB_ = false, transOut_ = false;
  // A's columns are far apart (each in its own page, often in the same L1
  // sets): the kernel re-reads A once per column block of C, so each A block
  // is first copied to a contiguous buffer (cost ~1/N of the FMAs).
  bool packA_ = false;
  bool bcastM0_ = false, bcastM1_ = false;
  int64_t ld0_ = 0, ld1_ = 0, ldOut_ = 0, brA_ = 0, brB_ = 0;
  // The output block the touch primitives see: rows x cols, column-major.
  int64_t touchRows_ = 1, touchCols_ = 1;

  BrgemmKernel brgemm_, brgemmOverwrite_;
  UnaryKernel unary_, firstTouch_, lastTouch_;
  BinaryKernel binary_;
  bool ready_ = false;

  friend class TensorOperation;
};

}  // namespace stitch::tensorop
