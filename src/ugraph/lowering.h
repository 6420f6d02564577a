// Op lowering: how one graph node's output element is expressed in a
// ThreadGraph. A rule maps an output index vector (one i64 node per output
// dim) to the element's expression, built from its operands' elements at
// derived index vectors (index substitution). Operands from outside the
// kernel's group become Loads from input slots; scalars become Consts
// (constants) or Params (run-time scalars).
//
//   add(%x : f32[4,3], %y : f32[3], 1)  at [i, j]  ->  ADD(x[i, j], y[j])
//
// Rules live in one file per op family (lower_*.cpp) and are registered in a
// table by op name. A rule's `accepts` says whether this node can be lowered
// with a result equal to the interpreter's (dtype support, constant
// arguments, no run-time errors the interpreter would raise).
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "ir/shape_util.h"
#include "ugraph/kernel_graph.h"

namespace stitch {

// Builds one kernel's ThreadGraph: hands out input and param slots and
// expands in-group producers at the index vectors their consumers ask for.
class LowerContext {
 public:
  LowerContext(ThreadGraph& tg, const std::unordered_set<const Node*>& group, Kernel& kernel)
      : tg_(tg), group_(group), kernel_(kernel) {}

  ThreadGraph& tg() { return tg_; }

  // The element of tensor value v at idx (one i64 node per dim of v), in v's dtype.
  int element(const Value* v, const std::vector<int>& idx);
  // The element of v at the row-major flat index `flat` of its shape.
  int elementAtFlat(const Value* v, int flat);
  // A scalar operand (int / float / bool value) in its own dtype (i64, f64,
  // b8): a Const when constant, else a kernel Param.
  int scalar(const Value* v);
  // The same converted to `dtype` (constants are converted when built).
  int scalarAs(const Value* v, DType dtype);

  // Index helpers over i64 nodes.
  int c(int64_t v) { return tg_.constInt(v); }
  int add(int a, int b) { return tg_.alu(AluOp::Add, DType::i64, {a, b}); }
  int sub(int a, int b) { return tg_.alu(AluOp::Sub, DType::i64, {a, b}); }
  int mul(int a, int b) { return tg_.alu(AluOp::Mul, DType::i64, {a, b}); }
  // Clamps an index into [lo, hi] (so a load whose value a Where discards
  // still reads inside its buffer).
  int clampIndex(int x, int64_t lo, int64_t hi);
  // Row-major index vector of `flat` over `shape` (division / modulo).
  std::vector<int> unflatten(int flat, const Dims& shape);
  // The index into `to` of the element at idx in `from` (same numel, same
  // row-major position: a reshape). Dims are matched in groups whose sizes
  // multiply to the same product, so each index is computed from its own
  // group only ([4800, 85] -> [3, 40, 40, 85]: the last index stays idx[1]),
  // which lets loop-invariance analyses see what an index does not depend on.
  std::vector<int> reshapeIndex(const std::vector<int>& idx, const Dims& from, const Dims& to);
  // The element of v at idx, an index into `shape` (v's numel): v reshaped.
  int elementReshaped(const Value* v, const std::vector<int>& idx, const Dims& shape);

  // Block-local buffering (local_buffers.h). A buffered value's dims are
  // either fixed (every request indexes them with the same node, which
  // depends on no reduce variable: the loops around the fill fix it) or
  // tile dims (the buffer holds their whole extent). element(v, idx) then
  // reads the buffer; the first request fills it, and a request whose fixed
  // indices differ from the fill's falls back to expanding v.
  void bufferValue(const Value* v, std::vector<char> fixedDims, int localSlot);
  // A block-local buffer a lowering rule fills itself with values inside
  // its op (softmax's exponentials); its slot in BlockGraph::locals.
  int newLocal(DType dtype, int64_t elements, const std::string& holds);
  // Records the distinct index vectors v is requested at (not buffered).
  void recordRequests(const Value* v) {
    recorded_[v];
    recordedResults_[v];
  }
  const std::vector<std::vector<int>>& requests(const Value* v) const { return recorded_.at(v); }
  // The element node of each recorded request, in the same order.
  const std::vector<int>& requestResults(const Value* v) const { return recordedResults_.at(v); }

 private:
  int inputSlot(const Value* v);
  int expand(const Value* v, const std::vector<int>& idx);
  int bufferedElement(const Value* v, const std::vector<int>& idx);

  struct Buffered {
    std::vector<char> fixed;  // per dim of v
    int slot = 0;             // BlockGraph::locals index
    int fill = -1;            // the Fill node, once made
    std::vector<int> fixedIdx;
  };
  std::unordered_map<const Value*, Buffered> buffered_;
  std::unordered_map<const Value*, std::vector<std::vector<int>>> recorded_;
  std::unordered_map<const Value*, std::vector<int>> recordedResults_;

  ThreadGraph& tg_;
  const std::unordered_set<const Node*>& group_;
  Kernel& kernel_;
  std::map<std::pair<const Value*, std::vector<int>>, int> memo_;
};

using LowerFn = std::function<int(LowerContext& ctx, const Node& node, const std::vector<int>& idx)>;
using AcceptFn = std::function<bool(const Node& node)>;

struct LoweringRule {
  // Elementwise rules may fuse into chains (see kernel_planner.h).
  bool elementwise = false;
  AcceptFn accepts;
  LowerFn lower;
};

// The rule for this node if its op has one and the rule accepts the node.
const LoweringRule* findLowering(const Node& node);

using LoweringTable = std::map<std::string, LoweringRule>;
// One registration function per op family (lower_*.cpp).
void registerElementwiseLowerings(LoweringTable& table);
void registerReductionLowerings(LoweringTable& table);
void registerAccessLowerings(LoweringTable& table);
void registerContractionLowerings(LoweringTable& table);
void registerCreationLowerings(LoweringTable& table);
void registerCopyLowerings(LoweringTable& table);

// Small static queries shared by the rules.
namespace lowering {
const Dims& shapeOf(const Value* v);  // fully known tensor type
DType dtypeOf(const Value* v);
bool isTensor(const Value* v);
bool isScalarValue(const Value* v);  // int / float / bool typed
std::optional<int64_t> constInt(const Value* v);
std::optional<double> constDouble(const Value* v);
std::optional<bool> constBool(const Value* v);
std::optional<std::vector<int64_t>> constIntList(const Value* v);  // a plain int counts as [int]
bool isNoneValue(const Value* v);
// A FuncTs Assign (immut.X_rev): writes a region of its base.
bool isAssign(const Node& n);
std::optional<DType> constDType(const Value* v);  // a dtype constant
// Element index of an operand broadcast to an output of rank idx.size():
// leading dims dropped, size-1 dims index 0.
std::vector<int> broadcastIndex(LowerContext& ctx, const std::vector<int>& idx, const Dims& operandShape);
int64_t numel(const Dims& shape);
// Static bounds [lo, hi] of an int value: a constant, the iteration counter
// of a prim.loop with a constant trip count (0 .. count - 1), or such a
// value plus or minus a constant.
std::optional<std::pair<int64_t, int64_t>> intRange(const Value* v);
// The tensors of a Tensor[] built by prim.list_construct (all with known
// types), or nullopt. They become the kernel's inputs, read at the kernel's
// position (the planner accepts only a list built in its user's block).
std::optional<std::vector<const Value*>> listElements(const Value* list);
// The value as a participant of type promotion (tensor or Python scalar).
PromoteArg promoteArgOf(const Value* v);
}  // namespace lowering

}  // namespace stitch
