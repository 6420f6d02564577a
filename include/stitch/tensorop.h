// Public API of the tensor operation backend: JIT-generated primitives
// (BRGEMM, unary, binary) driven by TensorOperation objects, the optimizer
// that picks loop structure, and einsum trees that chain operations.
//
// Layout convention: every primitive works on column-major matrices. An
// M x N matrix X has element (m, n) at X[m + n * ld]. In a TensorOperation the
// kernel's M dimension is the one with unit stride in in0 and out; the einsum
// lowering arranges dimensions so this holds.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace stitch::tensorop {

// A user mistake: bad setup, bad expression, unsupported combination. The
// message says what is wrong; bugs are asserts, never this type.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class dtype_t { fp32, fp64 };

enum class ptype_t {
  none,
  // unary
  zero,
  identity,
  relu,
  square,
  reciprocal,
  increment,
  exp,
  // binary
  add,
  sub,
  mul,
  div,
  min,
  max,
  // ternary
  gemm,
  brgemm,
};

enum class dim_t { c, m, n, k, undefined };
enum class exec_t { seq, shared, prim, undefined };

const char* toString(ptype_t p);
const char* toString(dim_t d);
const char* toString(exec_t e);
bool isUnary(ptype_t p);
bool isBinary(ptype_t p);
bool isContraction(ptype_t p);

// Which instruction set the JIT emits. `automatic` asks CPUID; the
// environment variable STITCH_TENSOROP_ISA=avx512|avx2|reference overrides it.
enum class Isa { automatic, avx512, avx2, reference };
Isa detectIsa();
const char* toString(Isa isa);

// Rows of C (the M dimension, on the vector lanes) that one register-blocked
// pass of the GEMM kernel computes: 64 with AVX-512, 16 with AVX2 (and for
// the portable code). A caller that packs A into contiguous panels of this
// many rows (ld = this) gives every pass a panel free of cache-set conflicts.
int64_t gemmPassRows(Isa isa = Isa::automatic);

// One loop of a tensor operation, as the optimizer sees it.
struct Dimension {
  dim_t type = dim_t::undefined;
  exec_t exec = exec_t::undefined;
  int64_t size = 1;
  int64_t stride_in0 = 0;
  int64_t stride_in1 = 0;
  int64_t stride_out = 0;
};

class TensorOperationImpl;

class TensorOperation {
 public:
  TensorOperation();
  ~TensorOperation();
  TensorOperation(TensorOperation&&) noexcept;
  TensorOperation& operator=(TensorOperation&&) noexcept;

  // Validates and generates the kernels. Dimensions are ordered outermost
  // first: shared dims, then seq dims, then prim dims. Strides are in
  // elements. Throws Error with a message naming the problem.
  void setup(dtype_t dtype, ptype_t prim_first_touch, ptype_t prim_main,
             ptype_t prim_last_touch, const std::vector<dim_t>& dim_types,
             const std::vector<exec_t>& exec_types,
             const std::vector<int64_t>& dim_sizes,
             const std::vector<int64_t>& strides_in0,
             const std::vector<int64_t>& strides_in1,
             const std::vector<int64_t>& strides_out, Isa isa = Isa::automatic);

  // Runs the loops: seq dims recursively, shared dims with OpenMP, the first
  // touch before the first and the last touch after the last k iteration of
  // each output block. in1 may be null for unary operations.
  void execute(const void* in0, const void* in1, void* out) const;

  bool isSetUp() const;
  // Human-readable loop structure, e.g. for `--json` output and debugging.
  std::string describe() const;

 private:
  std::unique_ptr<TensorOperationImpl> impl_;
};

struct OptimizerOptions {
  int64_t thread_target = 1;     // shared iterations to aim for
  int64_t min_kernel_size = 16;  // fuse dims smaller than this
  int64_t max_kernel_size = 512; // split dims larger than this (contractions:
                                 // batch dims; m/n/k use the caps below)
  // Contraction kernels: m beyond one register block (64 rows) buys nothing.
  // Long k and n blocks mean fewer calls, fewer C reloads and fewer A packs;
  // the packed A panel (64 x k floats) still fits L2. With whole blocks
  // instead of 512, 1024^3 ran 5% and 1600^3 19% faster.
  int64_t max_m_kernel = 64;
  int64_t max_k_kernel = 2048;
  int64_t max_n_kernel = 2048;
  // A batch-reduce dim is used while the A panel (M*K*BR*4 bytes) stays
  // below this, or below 16x this when the kernel packs A anyway.
  int64_t max_a_panel_bytes = 64 * 1024;
};

// Rewrites `dims` (exec types may be undefined) into an executable loop
// structure and returns the main primitive to use (gemm becomes brgemm when a
// batch-reduce dim is found). Passes: fusion, splitting, primitive
// identification, loop reordering, shared-loop parallelization.
ptype_t optimize(std::vector<Dimension>& dims, ptype_t prim_main,
                 const OptimizerOptions& options);

// Convenience: optimize then set up.
void setupOptimized(TensorOperation& op, ptype_t first_touch, ptype_t main,
                    ptype_t last_touch, std::vector<Dimension> dims,
                    const OptimizerOptions& options, Isa isa = Isa::automatic);

class EinsumTreeImpl;

// An einsum expression compiled to a tree of TensorOperations.
// Accepts the tree notation `[[8,4],[7,3,8]->[7,3,4]]` (ids are dimension
// names, innermost dimension last) and standard strings `ab,bc->ac` with two
// or more operands. `sizes` maps every dimension name to its extent.
class EinsumTree {
 public:
  EinsumTree(const std::string& expression,
             const std::map<std::string, int64_t>& sizes, int threads = 1,
             Isa isa = Isa::automatic);
  ~EinsumTree();
  EinsumTree(EinsumTree&&) noexcept;
  EinsumTree& operator=(EinsumTree&&) noexcept;

  size_t numInputs() const;
  // Shape of input i (outermost first) and of the output.
  std::vector<int64_t> inputShape(size_t i) const;
  std::vector<int64_t> outputShape() const;
  // Floating-point operations of one run (2 per multiply-add).
  double flops() const;
  // The tree after parsing and contraction ordering, in tree notation.
  std::string treeString() const;
  // Number of TensorOperations run per execution (contractions + permutes).
  size_t numOperations() const;
  // One line per TensorOperation: primitives, kernel sizes and loops.
  std::vector<std::string> plan() const;

  // Inputs are dense row-major (last dimension contiguous) fp32 tensors.
  void execute(const std::vector<const float*>& inputs, float* output) const;

 private:
  std::unique_ptr<EinsumTreeImpl> impl_;
};

}  // namespace stitch::tensorop
