// The kernel IR (Mirage's uGraph on CPU): a KernelGraph of kernels over the
// pure Graph IR. Each kernel is a group of graph nodes that runs as one call;
// every node not in a kernel is a host op that the runtime executes itself
// (control flow, scalars, lists, ops without a generated form, and tensors
// whose shapes depend on data).
//
// A graph-defined kernel owns a BlockGraph: the loop nest over its iteration
// space (the outputs' shape), the first loop split across `grid` blocks (one
// block = one OpenMP task), and a ThreadGraph computing one output element.
// Predefined kernels (copies, contractions) name what they do; the runtime
// runs them with a library routine.
//
// The runtime runs a kernel at the position of its last node (nodes.back());
// kernels are formed so that every value a kernel reads is defined before
// that position and every value it produces is used only after it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fusion/schedule.h"
#include "ir/graph.h"
#include "ugraph/thread_graph.h"

namespace stitch {

// One loop of a block graph's nest: consecutive iteration dims merged into
// one counted loop (allowed when every access is affine in them with
// matching strides, so the merged loop needs no division).
struct LoopDim {
  std::vector<int> iterDims;  // ascending, consecutive
  int64_t extent = 1;         // product of their sizes
};

// Mirage's maps: for each grid (or for-loop) dim, the tensor dim it splits,
// or kReplica when every block sees the whole tensor along it.
constexpr int kReplica = -1;

struct BlockInput {
  int slot = 0;                 // kernel input slot (ThreadGraph Load index)
  std::vector<int> imap;        // per grid dim
  std::vector<int> fmap;        // per for-loop dim
};

struct BlockOutput {
  int slot = 0;                 // kernel output slot
  std::vector<int> omap;        // per grid dim (never kReplica)
  std::vector<int> fmap;        // per for-loop dim: data dim = concatenate, kReplica = accumulate
};

// A block-local scratch buffer ("shared memory": stays in L1/L2).
struct LocalBuffer {
  std::string name;
  DType dtype = DType::f32;
  int64_t elements = 0;
  int64_t offset = 0;             // bytes into the block's scratch arena (large buffers)
  const Value* value = nullptr;   // the buffered value (ThreadGraph Fill `index`)
  std::string holds;              // else what a lowering rule keeps there
};

// A Column schedule's kernel: each grid block folds one part of the split
// dim of the root's reduction into a partial result per output element
// (Mirage's output accumulator with fmap -> replica); after all blocks,
// the partials are combined in block order (deterministic, whatever the
// thread count) and the rest of the element's expression is applied.
struct ColumnSplit {
  int reduce = -1;    // the ThreadGraph Reduce the stores use
  int partial = -1;   // the same fold over this block's part (reads BlockIndex)
  int64_t parts = 0;  // blocks, and partial results per output element
};

struct BlockGraph {
  std::vector<int64_t> grid;     // blocks per grid dim; grid x splits loops[splitLoop]
  int64_t blockExtent = 1;       // iterations of loops[splitLoop] per block (the last block may get fewer)
  int splitLoop = 0;             // the loop the grid splits
  // The group's schedule, when the kernel comes from a fused group; the grid
  // follows it (fromSchedule) unless it is the one-block schedule, which
  // keeps the size heuristic (scheduleGrid).
  std::optional<Schedule> schedule;
  bool fromSchedule = false;
  std::optional<ColumnSplit> column;  // a Column schedule's partial results
  std::vector<LoopDim> loops;    // outer to inner; together they cover the iteration space
  std::vector<int64_t> forloop;  // Mirage for-loop dims (empty when the block graph runs once)
  std::vector<BlockInput> inputs;
  std::vector<BlockOutput> outputs;
  std::vector<LocalBuffer> locals;
  ThreadGraph thread;
};

enum class KernelKind : uint8_t {
  GraphDefined,  // a BlockGraph, compiled to code
  Copy,          // predefined: clone / contiguous / cat / stack as strided memory copies
  Contraction,   // predefined: matmul-like ops through a library routine
  Attention,     // predefined: fused.attention in one pass over the keys (runtime/attention_kernel.h)
};

struct Kernel {
  std::string name;                    // "k0", "k1", ...: the generated function's name
  KernelKind kind = KernelKind::GraphDefined;
  std::vector<const Node*> nodes;      // the group, in program order
  std::vector<const Value*> outputs;   // buffer slots 0 .. outputs.size()-1
  std::vector<const Value*> inputs;    // tensor inputs: buffer slot outputs.size() + k
  std::vector<const Value*> params;    // scalar inputs (int / float / bool values)
  BlockGraph block;                    // GraphDefined only
};

// A loop that runs as one kernel (ugraph/loop_kernels.h): the loop node
// with everything nested in it; the kernels of its body are its phases.
struct LoopKernel {
  std::string name;            // "loop0", "loop1", ...
  const Node* loop = nullptr;  // the prim.loop
  // Per body kernel (by index in KernelGraph::kernels): whether the team
  // meets at a barrier after its phase, and the thread its blocks start on
  // (modulo the team). Phases that touch none of each other's outputs run
  // back to back, the later ones starting on the next threads.
  struct Phase {
    bool barrierAfter = true;
    int64_t firstThread = 0;
  };
  std::unordered_map<int, Phase> phases;
};

struct KernelGraph {
  std::vector<Kernel> kernels;
  std::vector<LoopKernel> loops;
  // A loop kernel's prim.loop -> its index in `loops`.
  std::unordered_map<const Node*, int> loopAt;
  // The last node of each kernel -> its index in `kernels`.
  std::unordered_map<const Node*, int> kernelAt;
  // Every node that belongs to some kernel (the runtime skips all of them
  // except at kernelAt, where it calls the kernel).
  std::unordered_set<const Node*> inKernel;
};

const char* kernelKindName(KernelKind kind);  // "block", "copy", "contraction"

// How a scalar kernel parameter is passed (kernel_abi.h): int -> i64,
// float -> f64, bool -> b8.
DType kernelParamDType(const Value* param);

}  // namespace stitch
