// Interpreter kernels: one function per op name, computing a node's outputs
// from its inputs' run-time values. Kernels throw UserError (no location;
// the interpreter adds the node's) for ill-shaped input, RuntimeFailure for
// data-dependent failures, and never return aliased outputs unless the op is
// a view or in-place op (then they must alias exactly as PyTorch does).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "interp/ivalue.h"

namespace stitch {

class Node;

// args are the node's inputs in schema order (defaults already materialized
// by the frontend as constants). Returns one IValue per node output.
using Kernel = std::function<IValueList(const Node& node, const IValueList& args)>;

class KernelRegistry {
 public:
  static KernelRegistry& get();
  void add(const std::string& op, Kernel k);
  const Kernel* find(const std::string& op) const;
  std::vector<std::string> names() const;

 private:
  KernelRegistry();
  std::map<std::string, Kernel> kernels_;
};

// Family registration functions (one per kernels_*.cpp), called in order by
// KernelRegistry's constructor. Static registration objects would be dropped
// by the linker from a static library, so the list is explicit.
void registerPrimKernels(KernelRegistry& r);         // prim./list./scalar./item.
void registerCreationKernels(KernelRegistry& r);
void registerElementwiseKernels(KernelRegistry& r);
void registerInPlaceKernels(KernelRegistry& r);
void registerViewKernels(KernelRegistry& r);         // views, size, immut.*
void registerCopyKernels(KernelRegistry& r);         // clone, cat, stack, gather, to, ...
void registerSelectionKernels(KernelRegistry& r);    // sort, topk, nonzero, index.get, scatter, ...
void registerReductionKernels(KernelRegistry& r);
void registerContractionKernels(KernelRegistry& r);

}  // namespace stitch
