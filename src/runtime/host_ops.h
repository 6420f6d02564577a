// Host ops: graph nodes the runtime runs itself with the reference
// interpreter's op implementations (interp/kernel_registry.h), with the
// interpreter's error handling (the failing node's location is added).
// Kept apart from the kernel graph because both name a type `Kernel`.
#pragma once
#include <functional>

#include "interp/ivalue.h"
#include "ir/graph.h"

namespace stitch {

// A host op's implementation, found once per node: a loop runs the same
// node every iteration, and finding it by name is string compares.
// The interpreter's kernel type (interp/kernel_registry.h's Kernel).
using HostKernel = std::function<IValueList(const Node& node, const IValueList& args)>;
struct HostOp {
  const HostKernel* op = nullptr;  // null: no implementation (an internal error if run)
  bool product = false;        // matmul / bmm / mm: the few-row product first
  bool aliases = false;        // a view of input 0 that reads no data (select, slice, transpose, ...)
  bool appends = false;        // list.append: reads neither the list's elements nor the new one's data
  bool copies = false;         // clone, contiguous, cat, stack: a copy kernel's op (runtime/copy_kernels.h)
  bool reshapes = false;       // immut.view: a view of input 0, reading no data, when that is contiguous
  bool readsShapes = false;    // reads no tensor's data, only lengths, sizes and dtypes (list.len, size, ...)
  bool extracts = false;       // takes elements out of a list or tuple (list.get, ...), reading no data
};
HostOp findHostOp(const Node& node);

// Runs `node` (any op but prim.loop / prim.if / prim.constant /
// tssa.update) on its input values; one IValue per output. `op` is
// findHostOp(node).
IValueList runHostOp(const HostOp& op, const Node& node, const IValueList& args);
inline IValueList runHostOp(const Node& node, const IValueList& args) {
  return runHostOp(findHostOp(node), node, args);
}

// Runs f, adding `node`'s location to a UserError or RuntimeFailure that has
// none (as the interpreter does).
template <typename F>
decltype(auto) withNodeLocation(const Node& node, F&& f) {
  try {
    return f();
  } catch (const UserError& e) {
    throw e.withLoc(node.loc());
  } catch (const RuntimeFailure& e) {
    if (e.loc().known()) throw;
    throw RuntimeFailure(e.message(), node.loc());
  }
}

}  // namespace stitch
