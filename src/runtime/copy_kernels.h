// The predefined copy kernels: clone / contiguous (one strided copy, a
// memcpy when the source is dense), cat and stack (each piece copied into
// its slice of the output). The output is a dense buffer of the node's
// static type, allocated by the caller; every element gets written.
#pragma once
#include <optional>
#include <vector>

#include "interp/ivalue.h"
#include "ir/graph.h"

namespace stitch {

// Whether the runtime has a copy routine for this op.
bool isCopyKernelOp(const std::string& op);

// A piece of a copy kernel: `from` goes into `to`, a view of the output.
struct CopyPiece {
  Tensor to, from;
};

// node's pieces for args (the node's input values, lists resolved) into
// `out`; empty pieces left out. Nullopt when the values do not have the
// shapes the static type promises (the caller then runs the op on the
// host, which reports the error exactly as the interpreter does).
std::optional<std::vector<CopyPiece>> copyKernelPieces(const Node& node, const IValueList& args, const Tensor& out);

// The shape and dtype of node's result for args where the graph does not
// know them (a stack of a list built by a loop): the pieces' one dtype,
// their sizes stacked or concatenated. Nullopt for pieces that do not fit
// together (the host op then reports PyTorch's error).
std::optional<std::pair<Shape, DType>> copyKernelResult(const Node& node, const IValueList& args);

// Fills `out` with node's result for args: copyKernelPieces copied on the
// host. False, writing nothing, where that has none.
bool runCopyKernel(const Node& node, const IValueList& args, const Tensor& out);

}  // namespace stitch
