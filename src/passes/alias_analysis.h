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
// clones, results of pure ops, loop-carried values, lists).
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

class AliasTree {
 public:
  void add(Value* v, AliasKind kind, std::vector<Value*> parents);
  const AliasInfo* info(const Value* v) const;
  bool isAlias(const Value* v) const { return info(v) != nullptr; }
  // The buffer v is a view of (v itself for a root).
  Value* rootOf(Value* v) const;
  // Every alias of root, in program order (parents before children).
  std::vector<Value*> aliasesOf(Value* root) const;

 private:
  std::map<const Value*, AliasInfo> infos_;
  std::map<const Value*, std::vector<Value*>> byRoot_;
};

// Static strides of a value (element units), for deciding whether reshape,
// flatten and contiguous view their input or copy it, as PyTorch does.
struct StaticLayout {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
};

std::vector<int64_t> contiguousStridesOf(const std::vector<int64_t>& sizes);
bool isContiguousLayout(const StaticLayout& l);

// Emits a node of `op` before anchor with the given output type.
Node* emitBefore(Graph& g, Node* anchor, const std::string& op, const std::vector<Value*>& inputs,
                 TypePtr type);

}  // namespace stitch
