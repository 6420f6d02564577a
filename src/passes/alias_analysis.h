// Alias analysis for functionalization: which values are views of which
// buffer. After view ops are turned into immut.* Access nodes, every value
// that aliased a base in the imperative program is recorded here with the
// node that (re)computes it from its parents:
//
//   %v = immut.select(%x, 0, %i)      TensorView, parents {%x}
//   %e = list.get(%xs, %k)            ListElement, parents {%xs}
//   %l = prim.list_construct(%a, %b)  ListOfViews (chunk/split/unbind), parents {%a, %b}
//
// A value that is not recorded is a root: it owns its buffer (graph inputs,
// clones, results of pure ops, loop-carried values, lists). Tensor aliases
// also carry their static layout (sizes, strides, offset in the root) where
// the shapes and view arguments are known.
#pragma once
#include <map>
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace stitch {

enum class AliasKind { TensorView, ListElement, ListOfViews };

struct AliasInfo {
  AliasKind kind;
  std::vector<Value*> parents;
};

// Static strides of a value (element units), for deciding whether reshape,
// flatten, contiguous and view can view their input, as PyTorch does, and
// whether two views of one buffer overlap. The offset from the root's first
// element is `offset` plus an unknown multiple of `offsetStep` (0: known
// exactly); a run-time index i along a dim of stride s adds the step s.
struct StaticLayout {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset = 0;
  int64_t offsetStep = 0;
};

class AliasTree {
 public:
  void add(Value* v, AliasKind kind, std::vector<Value*> parents);
  const AliasInfo* info(const Value* v) const;
  bool isAlias(const Value* v) const { return info(v) != nullptr; }
  // The buffer v is a view of (v itself for a root).
  Value* rootOf(Value* v) const;
  // Every alias of root, in program order (parents before children).
  std::vector<Value*> aliasesOf(Value* root) const;
  // The tensor v views through TensorView links only (v itself if none).
  Value* tensorBaseOf(Value* v) const;

  void setLayout(const Value* v, StaticLayout layout) { layouts_[v] = std::move(layout); }
  // Recorded for a tensor alias; contiguous for a tensor root of static
  // shape; nullopt otherwise.
  std::optional<StaticLayout> layoutOf(const Value* v) const;

 private:
  std::map<const Value*, AliasInfo> infos_;
  std::map<const Value*, std::vector<Value*>> byRoot_;
  std::map<const Value*, StaticLayout> layouts_;
};

std::vector<int64_t> contiguousStridesOf(const std::vector<int64_t>& sizes);
bool isContiguousLayout(const StaticLayout& l);
// Some dim of size > 1 has stride 0 (an expanded tensor): PyTorch refuses
// to write into it (fill_ and zero_ excepted).
bool hasInternalOverlap(const StaticLayout& l);

// How two layouts over one buffer share memory, as PyTorch's checks for
// ops that write see it: the same view; disjoint (or empty); undecidable
// (a layout that is not dense: PyTorch lets it pass); overlapping (PyTorch
// raises "some elements of the input tensor and the written-to tensor refer
// to a single memory location"). With run-time offsets: Overlapping when
// some offsets the steps allow overlap (x[i] and x[i - 1] do not: same view
// or disjoint; x[i:i + 2] and x[i + 1:i + 3] do).
enum class LayoutOverlap { SameView, Disjoint, Undecidable, Overlapping };
LayoutOverlap layoutOverlap(const StaticLayout& a, const StaticLayout& b);

// The shape of a tensor value of fully known type and a floating dtype
// (what the product rewrites need), or nullopt.
std::optional<std::vector<int64_t>> staticFloatShape(const Value* v);

// Emits a node of `op` before anchor with the given output type.
Node* emitBefore(Graph& g, Node* anchor, const std::string& op, const std::vector<Value*>& inputs,
                 TypePtr type);

}  // namespace stitch
