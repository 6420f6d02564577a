// ThreadGraph: what one output element of a kernel is, as a DAG of
// element-level nodes (Mirage's thread graph; tinygrad's kernel AST). The
// kernel's iteration space is its outputs' shape (`iterShape`): IterVar(d) is
// the element's index along dimension d. Index arithmetic is ordinary Alu
// nodes on i64, so the linearizer turns every node into UOps the same way.
//
//   out[i, j] = exp(x[i, j] - m[i, 0])            (x: [64, 1000], m: [64, 1])
//   %0 = IterVar 0   %1 = IterVar 1   %2 = Const 1000
//   %3 = Alu MUL %0 %2   %4 = Alu ADD %3 %1   %5 = Load in0 [%4] : f32
//   %6 = Load in1 [%0] : f32   %7 = Alu SUB %5 %6   %8 = Alu EXP %7
//   store out0 <- %8
//
// A Reduce node folds its body over fresh reduce variables (ReduceVar) in
// row-major order of their extents, accumulating in the node's dtype.
// A Fill computes its body at every point of its own variables into a
// block-local buffer; LocalLoads read it back (a value computed once and
// read many times instead of recomputed at each use).
// Nodes are hash-consed: adding a node equal to an existing one returns it,
// and a reduction equal to an existing one but for its fresh variables is
// that one.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/dtype.h"
#include "ugraph/alu_op.h"

namespace stitch {

enum class TOp : uint8_t {
  IterVar,    // i64: index along iteration dim `index`
  ReduceVar,  // i64: reduce variable `index` (extent reduceExtent(index))
  Const,      // dtype-typed literal: ival for bool / ints, fval for floats
  Param,      // scalar kernel argument `index` (dtype i64, f64 or bool)
  Load,       // element args[0] (an i64 flat index) of kernel input `index`
  Alu,        // alu(args...)
  Cast,       // args[0] converted to dtype (C conversion; float -> bool is != 0)
  Reduce,     // reduce(args[0]) over reduceVars; dtype is the accumulator's
  Fill,       // block-local buffer `index` (BlockGraph::locals) := args[0] at every point of
              // reduceVars (row-major); computed once where the loops its body needs are open
  LocalLoad,  // element args[1] (an i64 flat index) of the buffer Fill args[0] filled
  BlockIndex, // i64: the index of the grid block running (column kernels: which part of the
              // split reduction this block folds)
};

struct TNode {
  TOp op = TOp::Const;
  DType dtype = DType::i64;
  AluOp alu = AluOp::Add;        // Alu
  ReduceOp reduce = ReduceOp::Sum;  // Reduce
  int64_t index = 0;             // IterVar / ReduceVar / Param / Load: which one
  int64_t ival = 0;              // Const (bool, ints)
  double fval = 0;               // Const (floats)
  std::vector<int> args;         // operand node ids (Load: {index}; Reduce: {body})
  std::vector<int> reduceVars;   // Reduce: the reduce variable ids it folds over

  bool operator==(const TNode& o) const;
};

class ThreadGraph {
 public:
  ThreadGraph() = default;
  explicit ThreadGraph(std::vector<int64_t> iterShape) : iterShape_(std::move(iterShape)) {}

  const std::vector<int64_t>& iterShape() const { return iterShape_; }
  const std::vector<TNode>& nodes() const { return nodes_; }
  const TNode& node(int id) const { return nodes_.at(id); }

  int iterVar(int dim);
  int newReduceVar(int64_t extent);  // returns the variable's node id
  int64_t reduceExtent(int64_t reduceVarIndex) const { return reduceExtents_.at(reduceVarIndex); }
  const std::vector<int64_t>& reduceExtents() const { return reduceExtents_; }
  int constInt(int64_t v, DType dtype = DType::i64);
  int constFloat(double v, DType dtype);
  int param(int slot, DType dtype);
  int load(int inputSlot, DType dtype, int flatIndex);
  int alu(AluOp op, DType dtype, std::vector<int> args);
  int cast(int x, DType dtype);  // x itself when it already has dtype
  // reduceVarNodes: node ids returned by newReduceVar.
  int reduce(ReduceOp op, DType accDType, int body, const std::vector<int>& reduceVarNodes);
  // Buffer `local` holds body at every point of fillVarNodes (newReduceVar
  // nodes, row-major); localLoad reads its element `flatIndex`.
  int fill(int local, int body, const std::vector<int>& fillVarNodes);
  int localLoad(int fillNode, int flatIndex);
  int blockIndex();
  // A copy of `node` with reduce variable `var` replaced by node `with`
  // (the nodes that depend on it are re-added; others are shared).
  int substituteReduceVar(int node, int var, int with);

  // Output `outputSlot` at the flat row-major index of the iteration
  // variables gets `value` (converted to the output's dtype by the caller).
  void store(int outputSlot, int value) { stores_.push_back({outputSlot, value}); }
  struct Store {
    int output;
    int value;
  };
  const std::vector<Store>& stores() const { return stores_; }

  // The row-major flat index of an element given per-dimension index nodes
  // over `shape` (strides from the shape): sum(idx[d] * stride[d]).
  int flatIndex(const std::vector<int>& idx, const std::vector<int64_t>& shape);
  // The same with explicit element strides and offset.
  int stridedIndex(const std::vector<int>& idx, const std::vector<int64_t>& strides, int64_t offset);

  // One line per node and store, as in the header comment.
  std::string str() const;

 private:
  int add(TNode n);
  // Whether nodes a and b compute the same value with each reduce variable
  // of `vars` (by index) standing for its image; `same`: pairs found so.
  bool sameUpToVars(int a, int b, std::unordered_map<int64_t, int64_t>& vars,
                    std::set<std::pair<int, int>>& same) const;

  std::vector<int64_t> iterShape_;
  std::vector<int64_t> reduceExtents_;
  std::vector<TNode> nodes_;
  std::vector<Store> stores_;
  std::unordered_map<std::string, int> interned_;
};

const char* tOpName(TOp op);

}  // namespace stitch
