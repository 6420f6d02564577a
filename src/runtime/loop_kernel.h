// Runs a loop kernel (ugraph/loop_kernels.h): the whole loop, nested loops
// included, in one parallel region of one team of threads.
//
// When the Executable is built, the loop becomes a small program over
// registers: a pointer per tensor value, a scalar per int / float / bool
// value; each body kernel is a phase (every thread runs the same share of
// its blocks in every iteration, then the team meets at a barrier); the
// int arithmetic of the body is computed by every thread alike. Buffers are
// allocated once per run: one per kernel output of the body, two per
// carried tensor. A carried tensor that a body kernel produces is written
// into whichever of its two buffers the current value is not in
// (ping-pong), so nothing is copied; other carried tensors are copied into
// the free one at the end of the iteration. A list that the outermost body
// appends one tensor to per iteration fills the rows of one buffer
// allocated for the trip count. Views are register arithmetic (a pointer and
// a strided layout, runtime/strided_layout.h), and a carried tensor that the
// body writes rows of in place lives in one buffer (or the value it starts
// from, when no one else sees that).
#pragma once
#include <memory>
#include <vector>

#include "codegen/kernel_abi.h"
#include "codegen/parallel_blocks.h"
#include "interp/ivalue.h"
#include "runtime/buffer_pool.h"
#include "ugraph/kernel_graph.h"

namespace stitch {

// How a loop kernel calls one of the program's generated kernels.
struct PhaseCode {
  KernelFunction entry = nullptr;       // the whole kernel (run by one thread)
  BlockRangeFunction blocks = nullptr;  // its block range, when blockCount > 0
  int64_t blockCount = 0;               // the team shares the blocks
};

class LoopKernelProgram;

class LoopKernelRunner {
 public:
  // `code` is indexed like kernels.kernels.
  LoopKernelRunner(const LoopKernel& loop, const KernelGraph& kernels, const std::vector<PhaseCode>& code);
  ~LoopKernelRunner();

  // The values from outside the loop that it reads, in the order run takes
  // them.
  const std::vector<const Value*>& outerValues() const;

  // Per outer value: the loop input (its index in the loop node's inputs)
  // that a carried tensor written in place starts from, or -1.
  const std::vector<int>& inPlaceInputs() const;

  // Runs the loop on `threads` threads and returns the loop node's outputs;
  // false (nothing run) when an outer tensor does not have its static type:
  // the caller then runs the loop on the host. A carried tensor written in
  // place is written into its outer value where `writable` (per outer value;
  // may be empty) says no one else sees it (it is dense, dies at the loop
  // and shares no memory with another outer value); otherwise into a copy.
  // A view index out of range raises the interpreter's error.
  bool run(const std::vector<const IValue*>& outer, const std::vector<bool>& writable, BufferPool& pool,
           int threads, IValueList& outputs) const;

 private:
  std::unique_ptr<LoopKernelProgram> program_;
};

}  // namespace stitch
