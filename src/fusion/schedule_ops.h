// What schedules need to know about ops: which rule of the propagation
// table an op follows, a reduction's dims, static arguments, list operands.
// Shared by schedule propagation, tuning and shared-memory planning.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fusion/schedule.h"
#include "ir/graph.h"

namespace stitch {

// Every op class has one row in the propagation table.
enum class OpClass : uint8_t {
  Elementwise,  // add, exp, where, clamp, to, clone, ...: numpy broadcasting
  Creation,     // zeros, full, arange, *_like: no tensor data read
  Reduce,       // sum, mean, amax, var, argmax, ...
  AlongDim,     // softmax, log_softmax, cumsum: computed along one dim
  Access,       // immut.select / slice / view / permute / ... and the plain views
  Assign,       // immut.*_rev(base, src, args...)
  Product,      // mm, bmm, matmul, linear
  ListOp,       // cat, stack, einsum: tensors come in a list
  PerDim,       // flip, repeat, tril, triu
  Unknown,
};

OpClass scheduleOpClass(const Node& n);

// The table's per-input answers for the tensors of a ListOp's list (cat,
// stack, einsum) when its output is partitioned as `out`.
std::optional<std::vector<Partition>> listElementPartitions(const Node& n, const Partition& out);

namespace schedule_ops {

using Dims = std::vector<int64_t>;

bool knownTensor(const Value* v);  // a tensor with a known shape
const Dims& shapeOf(const Value* v);
int64_t numel(const Dims& shape);
std::optional<int64_t> constInt(const Value* v);
bool isNone(const Value* v);
std::optional<std::vector<int64_t>> constIntList(const Value* v);  // a plain int counts as [int]
// The tensors of a Tensor[] built by prim.list_construct, all with known shapes.
std::optional<std::vector<const Value*>> listTensors(const Value* list);

// Access / Assign ops: the view's name without "immut." and "_rev".
std::string accessName(const Node& n);
bool isReshape(const std::string& accessOp);  // view / reshape / flatten / *_as

struct ReduceInfo {
  std::vector<int64_t> dims;  // reduced input dims, sorted
  bool keepdim = false;
};
std::optional<ReduceInfo> reduceInfo(const Node& n);

// PerDim ops: whether output dim d only copies the input's dim.
bool keepsDim(const Node& n, int64_t d);

// Transcendental math and ops flagged expensive in their schema.
bool isExpensive(const Node& n);

bool isWhole(const Partition& p);
Partition normalized(const Partition& p);  // sword 1 -> whole
std::vector<int64_t> divisors(int64_t n);  // ascending

}  // namespace schedule_ops
}  // namespace stitch
