// Predefined contraction kernels through the tensor-operation backend
// (JIT-generated GEMM kernels driven by tensorop TensorOperations), for the
// matmul family on f32 operands whose layout maps onto one product without
// broadcasting:
//
//   mm(A[m,k], B[k,n]), matmul(A[..,m,k], B[k,n])   leading dims of A folded into m
//   bmm(A[b,m,k], B[b,k,n]), matmul of two 3-d      batched
//   matmul(A[m,k], B[b,k,n])                        batched, one A for all
//   linear(X[..,k], W[n,k], bias)                   B(k, n) = W[n, k], + bias
//
// followed by an epilogue the planner merged into the kernel
// (ugraph/contraction_epilogue.h): a bias row added, then its steps
// (activations; a tensor of C's shape added or multiplied, through an
// activation or not), on each tile right after its product. The bias and a
// lone relu are the kernel's own code; other steps are a function of the
// program's compiled C (codegen/tile_epilogue.h), which the kernel is
// given after it loads.
//
// linear of at most kFewRows rows runs as dot products of x's and W's rows
// instead (host_products.h), which reads W in place.
//
// Each product runs in float32 over the whole k (ugraph/numerics.h: the
// reference interpreter accumulates in double, and results are compared
// with it under the tolerance rule of interp/tolerance.h). The work is
// split into tiles of rows of C, as many as the threads share evenly, or
// into runs of C's columns (sharesColumns, runsDots), or, for a few rows
// with B read in place, into one part of C's columns per thread for every
// tile (columnParts); each thread runs whole tiles, runs or parts, written
// straight into the output. Other shapes
// and dtypes get no kernel here; the runtime then runs the interpreter's
// routine.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "codegen/tile_epilogue.h"
#include "interp/tensor.h"
#include "ir/graph.h"
#include "stitch/tensorop.h"

namespace stitch {

class ContractionKernel {
 public:
  // At most this many rows of C per tile.
  static constexpr int64_t kMaxTileRows = 64;
  // B as given (row-major [k, n]) is packed only for a product of at least
  // this many rows of C: with fewer, the copy costs more than it saves, and
  // each pass over a k x 64 slice of B in place finds it in L2 (1 thread:
  // [16,256] @ [256,512] 0.069 -> 0.040 ms, [64,768] @ [768,768] 1.00 ->
  // 0.84; 256 rows and 128 on 2 threads the same within noise). At 512 rows
  // on 2 threads the packed chunks of columns were 3-4% ahead
  // (bench/RESULTS.md). linear's W, which must be copied to be read as B at
  // all, is always packed: the threads share the copy.
  static constexpr int64_t kMinPackedRows = 512;

  // nullptr when the backend cannot run these nodes (see above): the
  // product, then the nodes of its epilogue if it has one.
  static std::unique_ptr<ContractionKernel> create(const std::vector<const Node*>& nodes, int threads);

  // The values run() takes, in order: the product's tensor inputs, then
  // the epilogue's bias, its sibling's inputs and its steps' operands, each
  // once.
  const std::vector<const Value*>& operands() const { return operands_; }

  // operands: the tensors of operands(), dense, contiguous, f32, of their
  // static shapes; out: a contiguous f32 tensor of the output's shape.
  void run(const std::vector<const Tensor*>& operands, Tensor& out) const;

  struct Form {
    int64_t batch = 1, m = 1, n = 1, k = 1;
    bool transposedB = false;  // linear: B(k, n) at W[n * k_size + k]
    bool bias = false;         // linear with a bias operand (input 2)
    bool sharedA = false;      // matmul(A[m,k], B[b,k,n]): A broadcast over the batch
    int64_t epilogueBias = -1;  // the epilogue's bias: its index in operands()
    std::vector<EpilogueStep> steps;    // the epilogue's steps after its bias
    // The combining steps' tensors: their indices in operands(), or
    // kSiblingProduct.
    std::vector<int64_t> stepOperands;
    // The tensor inputs of the epilogue's sibling product (sibling()):
    // their indices in operands().
    std::vector<int64_t> siblingOperands;
  };
  static constexpr int64_t kSiblingProduct = -1;
  const Form& form() const { return form_; }
  // The epilogue's sibling product, a lone product of C's shape and A; or
  // null.
  const ContractionKernel* sibling() const { return sibling_.get(); }
  // Whether the epilogue's steps are compiled code (not none or a lone
  // relu), which run() needs set first.
  bool compiledEpilogue() const { return compiledSteps(form_.steps); }
  void setTileEpilogue(TileEpilogueFunction f) { tileEpilogue_ = f; }
  // Whether run() has all it needs: a compiled epilogue is set.
  bool runnable() const { return !compiledEpilogue() || tileEpilogue_; }
  // Whether B is copied into panels per call (see kMinPackedRows).
  bool packsB() const { return panel_ > 0; }
  // Whether the epilogue's sibling product is computed part by part with
  // the product (columnParts()), each part of it kept by its thread, rather
  // than whole first.
  bool siblingByParts() const;
  // Whether each output is a dot product along k (linear of at most
  // kFewRows rows: x and W rows are both contiguous along k, so W is read
  // in place), rather than a GEMM kernel's.
  bool runsDots() const { return dots_; }
  // Whether the threads share C's columns (each packs and multiplies the
  // runs of B's panels it takes) rather than its row tiles.
  bool sharesColumns() const { return chunks_ > 0; }
  // The parts of C's columns the threads take of every row tile where
  // there are no more tiles than threads and B is read in place; 0 when
  // the threads take whole row tiles.
  int64_t columnParts() const { return columnParts_; }

 private:
  ContractionKernel(Form form, int threads);
  // C tile (rows x columns, row stride n) = A rows (stride k) x B: the whole
  // of it, or (B packed) the whole panels, then the narrower last one.
  struct TileProducts {
    tensorop::TensorOperation main;
    tensorop::TensorOperation tail;
  };

  // The panels [first, first + count) of a chunk, which one thread packs
  // and multiplies every row tile by, when the threads share C's columns
  // (sharesColumns()).
  struct PanelRange {
    int64_t first = 0, count = 0;
  };
  PanelRange panelsOfChunk(int64_t chunk) const;
  // The columns of C a run of panels covers (the last panel may be narrower).
  int64_t columnsOf(PanelRange range) const;
  // What a call's tiles are finished with: linear's bias and the epilogue's
  // tensors, whole.
  struct Finishing {
    float* out = nullptr;  // C
    const float* linearBias = nullptr;
    const float* bias = nullptr;
    const float* operands[kMaxEpilogueSteps] = {};
  };
  void runByColumns(const float* a, const float* b, float* packed, const Finishing& with) const;
  // Few row tiles, B in place: each thread a part of C's columns of every
  // tile (columnParts()); with siblingB, the sibling's product of the part
  // first, into a buffer of the thread's laid out as C.
  void runByParts(const float* a, const float* b, const float* siblingB, const Finishing& with) const;
  // run() into `out`, dense of the output's shape.
  void runInto(const std::vector<const Tensor*>& operands, float* out) const;
  // The threads share C's columns in runs of kDotColumns.
  static constexpr int64_t kDotColumns = 64;
  void runDots(const float* a, const float* w, const Finishing& with) const;
  // The epilogue on a finished tile of C (rows x cols at row stride n,
  // starting at `tile`).
  void finish(const Finishing& with, float* tile, int64_t rows, int64_t cols) const;

  Form form_;
  std::vector<const Value*> operands_;
  int threads_ = 1;
  int64_t tileRows_ = 1;
  // > 0: B is packed per call into panels of this many columns of C.
  int64_t panel_ = 0;
  int64_t panels_ = 0;
  // > 0: the threads share C's columns, chunks_ chunks of chunkPanels_
  // panels taken in turn, instead of its row tiles (see create()).
  int64_t chunkPanels_ = 0, chunks_ = 0;
  bool dots_ = false;  // runDots
  // > 0: few row tiles of B in place, each thread a part of C's columns
  // (columnParts_ parts of columnPart_ columns, the last narrower).
  int64_t columnPart_ = 0, columnParts_ = 0;
  static constexpr int64_t kMinColumnPart = 128;
  // Keyed by the rows and columns of C a call covers: full tiles and the
  // shorter last one, all of C's columns or (sharing columns) a chunk's.
  std::map<std::pair<int64_t, int64_t>, TileProducts> products_;
  TileEpilogueFunction tileEpilogue_ = nullptr;
  // The epilogue's sibling product, a lone product of C's shape and A.
  std::unique_ptr<ContractionKernel> sibling_;
};

}  // namespace stitch
