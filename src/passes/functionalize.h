// functionalize (FuncTs / TensorSSA): turns an imperative graph (views,
// in-place ops, writes through views, inside loops and branches) into a pure
// one: only immut.* Access/Assign ops and pure ops remain, every write makes
// a new value. Runs, in order:
//
//   setitem-values     x[i] = v: v's leading size-1 dims dropped by squeeze
//                      views (setitem_values.h)
//   same-dtype-conversion  to(x, dtype) where x has that dtype -> x (an alias
//                      in PyTorch; same_dtype_conversion.h)
//   constant-folding   static sizes/lists -> constants (split sizes, view
//                      shapes built from x.shape must be constants)
//   remove-inplace     add_(x, y)             -> copy_(x, add(x, y))
//   (identity carries) loop/if slots that are the same tensor all along are
//                      replaced by that tensor (identity_carries.h)
//   aliasing made explicit, each only where it applies (types specialized
//   again afterwards when one changed the graph):
//     loop-built-lists   rows.append(x[i]) in a loop -> reads take x[k] again
//     constant-list-reads  [a, b][1] -> b; lists read whole rebuilt at reads
//     view-carries       views through loops/ifs -> base + carried scalars
//     branch-tails       if output alias-or-copy -> the code after it copied
//                        into each branch
//     peel-first-iteration  a carried tensor written via the block parameter
//                        while its initial value is visible elsewhere
//     expanded-selects   a row of an expanded view -> a view of the base
//   rewrite-mutation   select(x, 0, i)        -> immut.select(x, 0, i)
//                      copy_(view, src)       -> immut.*_rev up to the root,
//                                                re-derived aliases, tssa.update
//   block-propagation  updates inside loop/if -> loop-carried values / outputs
//   rename             uses after tssa.update(new, old) read `new`
//   remove-update      drops the markers and the dead Access ops
//
//   def f(x: Tensor, i: int):          graph(%x, %i):
//       x[i] = x[i] + 1          ->      %v = immut.select(%x, 0, %i)
//       return x * 2                     %a = add(%v, 1, 1)
//                                        %x1 = immut.select_rev(%x, %a, 0, %i)
//                                        %y = mul(%x1, 2)
//                                        return (%y, %x1)
//
// Mutated graph inputs. The imperative program may write into its inputs
// (directly, through views, or into tensors held by an input list). The
// functional graph cannot, so it returns their final values as extra outputs:
// the graph's outputs become (original outputs..., new value of input
// writtenBackInputs[0], new value of input writtenBackInputs[1], ...), in
// increasing input order. Each extra output has its input's type (a tensor,
// or a list whose elements are the inputs' tensors' new values). A runtime
// that must behave like the imperative program copies extra output k into
// input writtenBackInputs[k] (element-wise for a list) and hides the extra
// outputs from the caller.
//
// The graph should have static types (shape inference): chunk/split/unbind,
// flatten and reshapes of views need static sizes. Throws UserError (with the
// node's location) for aliasing it cannot express rather than produce a wrong
// program, and for programs PyTorch rejects at run time for their memory
// layout, which the imperative program reports; see rewrite_mutation.h,
// write_overlap.h and view_to_access.h for the cases. On a throw the graph is left
// half-rewritten: functionalize a clone when a fallback is wanted.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

#include "ir/graph.h"

namespace stitch {

struct FunctionalizeResult {
  size_t originalOutputs = 0;           // outputs before the extra ones
  std::vector<size_t> writtenBackInputs;  // input index of each extra output
};

// Runs one named sub-pass (`step`); a driver passes one that times it and
// logs the IR after it. The default just runs the step.
using SubPassRunner = std::function<void(const char* name, const std::function<void()>& step)>;

// The sub-passes in order, each through `runSubPass`.
FunctionalizeResult functionalize(Graph& graph, const SubPassRunner& runSubPass = {});

// The step between block-propagation and rename: appends the inputs written
// through tssa.update markers in the top block as extra outputs.
FunctionalizeResult returnMutatedInputs(Graph& graph);

}  // namespace stitch
