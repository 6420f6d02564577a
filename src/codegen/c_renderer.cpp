#include "codegen/c_renderer.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "codegen/c_expr.h"
#include "codegen/c_prelude.h"
#include "codegen/cuda_threads.h"
#include "codegen/kernel_abi.h"
#include "codegen/parallel_blocks.h"
#include "codegen/row_prefetch.h"
#include "codegen/text_cat.h"
#include "common/error.h"
#include "uops/lane_reduce.h"

namespace stitch {

// A reduction's lanes on a GPU are the threads of a block's shared loop.
static_assert(kThreadLanes == kCudaThreadsPerBlock);

namespace {

// Block-local buffers up to this size are stack arrays of the thread running
// the block; larger ones live in a per-thread scratch arena (kArenaC) at the
// offset the kernel planner gave them (DEFINE_LOCAL's arg).
constexpr int64_t kMaxStackLocalBytes = 64 * 1024;
// On CUDA a thread's local arrays are reserved for every thread the device
// can hold at once (about 270K on an H100), so larger ones live in one
// global scratch buffer, a slice per grid block.
constexpr int64_t kMaxCudaLocalBytes = 4 * 1024;

int64_t maxLocalBytes(RenderTarget target) {
  return target == RenderTarget::Cuda ? kMaxCudaLocalBytes : kMaxStackLocalBytes;
}

// The scratch arena of large block-local buffers. The host provides one per
// thread (`stitch_set_arena`, installed by the loader like the parallel
// loop; hostArena in parallel_blocks.h), so the library holds no
// thread-local storage of its own: unloading it leaves nothing behind in
// the threads that ran it. Without a host arena the blocks run on the one
// calling thread, which uses the library's own buffer, freed at unload.
constexpr const char* kArenaC = R"(#include <stdlib.h>
typedef char* (*stitch_arena_provider)(int64_t bytes);
static stitch_arena_provider stitch_arena_host = 0;
void stitch_set_arena(stitch_arena_provider fn) { stitch_arena_host = fn; }
static char* stitch_arena_own;
static int64_t stitch_arena_own_bytes;
__attribute__((destructor)) static void stitch_arena_release(void) { free(stitch_arena_own); }
static inline char* stitch_arena(int64_t bytes) {
  if (stitch_arena_host) return stitch_arena_host(bytes);
  if (bytes > stitch_arena_own_bytes) {
    free(stitch_arena_own);
    stitch_arena_own = (char*)malloc((size_t)bytes);
    if (!stitch_arena_own) abort();
    stitch_arena_own_bytes = bytes;
  }
  return stitch_arena_own;
}
)";

int64_t localBytes(const UOp& u) { return u.ival * (int64_t)dtypeSize(u.dtype); }

bool inArena(const UOp& u, RenderTarget target) {
  return u.kind == UOpKind::DefineLocal && localBytes(u) > maxLocalBytes(target);
}

std::string orDefault(const std::string& name, const std::string& fallback) {
  return name.empty() ? fallback : name;
}

class KernelWriter {
 public:
  KernelWriter(const KernelUOps& kernel, CPrelude& prelude, RenderTarget target, const CudaDeviceLimits& limits = {})
      : kernel_(kernel), prelude_(prelude), target_(target), limits_(limits) {}

  // Whether the kernel has a grid (and so needs the parallel-blocks glue).
  static bool hasGrid(const KernelUOps& kernel) {
    for (const UOp& u : kernel.uops.uops())
      if (u.kind == UOpKind::Special) return true;
    return false;
  }

  // Whether the grid closes before the kernel's end: a part after it runs
  // once, after every block (a Column kernel's combine).
  static bool hasAfterPart(const KernelUOps& kernel) {
    const std::vector<UOp>& uops = kernel.uops.uops();
    int grid = -1;
    for (int id = 0; id < (int)uops.size(); ++id) {
      if (uops[id].kind == UOpKind::Special && grid < 0) grid = id;
      if (uops[id].kind == UOpKind::EndLoop && grid >= 0 && uops[id].src.at(0) == grid) return true;
    }
    return false;
  }

  static int64_t gridBlocks(const KernelUOps& kernel) {
    for (const UOp& u : kernel.uops.uops())
      if (u.kind == UOpKind::Special) return u.ival;
    return 0;
  }

  // Whether the kernel keeps a buffer in the scratch arena.
  static bool usesArena(const KernelUOps& kernel, RenderTarget target) {
    return arenaBytes(kernel, target) > 0;
  }

  // The arena bytes one block of the kernel uses.
  static int64_t arenaBytes(const KernelUOps& kernel, RenderTarget target) {
    int64_t bytes = 0;
    for (const UOp& u : kernel.uops.uops())
      if (inArena(u, target)) bytes = std::max(bytes, u.arg + localBytes(u));
    return bytes;
  }

  // The bytes of each scratch buffer shared by the blocks, in slot order.
  static std::vector<int64_t> sharedScratch(const KernelUOps& kernel) {
    std::vector<int64_t> bytes;
    for (const UOp& u : kernel.uops.uops()) {
      if (u.kind == UOpKind::Special) return bytes;
      if (u.kind == UOpKind::DefineLocal) bytes.push_back(std::max<int64_t>(localBytes(u), 1));
    }
    return {};  // no grid: every local belongs to the one block
  }

  // Whether the kernel has scratch shared by all blocks (a DEFINE_LOCAL
  // before the grid) and so allocates it per call.
  static bool hasSharedScratch(const KernelUOps& kernel) {
    for (const UOp& u : kernel.uops.uops()) {
      if (u.kind == UOpKind::Special) return false;
      if (u.kind == UOpKind::DefineLocal) return true;
    }
    return false;
  }

  std::string render() {
    const std::vector<UOp>& uops = kernel_.uops.uops();
    for (const UOp& u : uops)
      if (u.kind == UOpKind::DefineGlobal) globals_ = std::max<int64_t>(globals_, u.arg + 1);
    arenaBytes_ = arenaBytes(kernel_, target_);
    refs_.assign(uops.size(), "");
    const bool grid = gridKernel_ = hasGrid(kernel_);
    if (target_ == RenderTarget::Cuda) {
      threads_ = cudaThreadPlan(kernel_, maxLocalBytes(target_), kCudaThreadsPerBlock, limits_.sharedMemoryPerBlock);
      return renderCuda();
    }
    const std::string signature = "(void* const* bufs, const stitch_scalar* params, ";
    // A block range that is the whole kernel is exported: a loop kernel
    // runs it as one phase (runtime/loop_kernel.h).
    const char* linkage = blockRangeCount(kernel_) > 0 ? "void " : "static void ";
    out_ = grid ? cat(linkage, kernel_.name, "_blocks", signature, "int64_t block_begin, int64_t block_end) {\n")
                : cat("void ", kernel_.name, signature, "int64_t threads) {\n");
    emitBody();
    if (grid && shared_.empty() && !after_) {
      out_ += cat("void ", kernel_.name, signature, "int64_t threads) {\n");
      out_ += cat("  stitch_run_blocks(", kernel_.name, "_blocks, bufs, params, ", std::to_string(gridCount_),
                  ", threads);\n}\n");
    } else if (grid) {
      // Scratch shared by the blocks after the caller's buffers; the part
      // after the grid runs once all blocks are done.
      const std::string n = std::to_string(globals_);
      out_ += cat("void ", kernel_.name, signature, "int64_t threads) {\n");
      out_ += cat("  void* all[", std::to_string(globals_ + (int64_t)shared_.size()), "];\n");
      out_ += cat("  for (int64_t i = 0; i < ", n, "; ++i) all[i] = bufs[i];\n");
      for (size_t j = 0; j < shared_.size(); ++j)
        out_ += cat("  if (!(all[", n, " + ", std::to_string(j), "] = malloc(", std::to_string(std::max<int64_t>(shared_[j], 1)),
                    "))) abort();\n");
      out_ += cat("  stitch_run_blocks(", kernel_.name, "_blocks, all, params, ", std::to_string(gridCount_),
                  ", threads);\n");
      if (after_) out_ += cat("  ", kernel_.name, "_after(all, params);\n");
      for (size_t j = 0; j < shared_.size(); ++j) out_ += cat("  free(all[", n, " + ", std::to_string(j), "]);\n");
      out_ += "}\n";
    }
    return out_;
  }

 private:
  // One __global__ function per part: NAME over the grid (a CUDA block per
  // grid block whose threads share its loops, or a CUDA thread per grid block),
  // and NAME_after, one thread, for what follows the grid. Their argument is
  // one stitch_args by value (kCudaHeader).
  std::string renderCuda() {
    out_ = cat("STITCH_KERNEL void ", kernel_.name, "(const stitch_args args) {\n");
    line("void* const* bufs = args.bufs;");
    line("const stitch_scalar* params = args.params;");
    emitBody();
    return out_;
  }

  // Every uop in order, then the closing brace of the function.
  void emitBody() {
    const std::vector<UOp>& uops = kernel_.uops.uops();
    defScope_.assign(uops.size(), -1);
    for (int id = 0; id < (int)uops.size(); ++id) {
      defScope_[id] = scopeIds_.empty() ? -1 : scopeIds_.back();
      emit(id, uops[id]);
    }
    // Only grid loops may still be open; they span the rest of the kernel.
    while (!scopes_.empty()) {
      STITCH_ASSERT(scopes_.back() == UOpKind::Special, "kernel ", kernel_.name, " leaves a ",
                    uopKindName(scopes_.back()), " open");
      close(UOpKind::Special);
    }
    out_ += "}\n";
  }

  void line(const std::string& text) {
    std::string l(2 * (scopes_.size() + 1), ' ');
    l += text + "\n";
    out_ += l;
    if (!sawGrid_) preamble_ += l;  // repeated at the start of the part after the grid
  }
  void open(int id, UOpKind kind, const std::string& text) {
    line(text);
    scopes_.push_back(kind);
    scopeIds_.push_back(id);
    defScope_[id] = id;  // a loop variable exists inside its loop only
  }
  void close(UOpKind kind) {
    STITCH_ASSERT(!scopes_.empty() && scopes_.back() == kind, "kernel ", kernel_.name, ": closing a ",
                  uopKindName(kind), " that is not the innermost open scope");
    scopes_.pop_back();
    scopeIds_.pop_back();
    line("}");
  }

  const UOp& at(int id) const { return kernel_.uops.at(id); }

  // Around a shared loop: the block's threads pass values through memory.
  // Two with nothing between them are one.
  void barrier() {
    static const std::string kBarrier = "__syncthreads();\n";
    if (!threads_.barriers) return;
    if (out_.size() >= kBarrier.size() && out_.compare(out_.size() - kBarrier.size(), kBarrier.size(), kBarrier) == 0)
      return;
    line("__syncthreads();");
  }
  // Whether no loop opens inside the loop that uop `id` opens.
  bool innermostLoop(int id) const {
    const std::vector<UOp>& uops = kernel_.uops.uops();
    for (size_t k = (size_t)id + 1; k < uops.size(); ++k) {
      if (uops[k].kind == UOpKind::Loop) return false;
      if (uops[k].kind == UOpKind::EndLoop && uops[k].src.at(0) == id) return true;
    }
    return true;
  }
  // Opens loop `id` as a loop over chunks, each first asking for its share
  // of the next row (codegen/row_prefetch.h), and returns the bounds of
  // the loop's iterations within a chunk; nullopt (nothing opened) when the
  // loop prefetches nothing.
  std::optional<std::pair<std::string, std::string>> openPrefetchChunks(int id) {
    int rowLoop = -1;
    for (size_t s = scopes_.size(); s-- > 0 && rowLoop < 0;)
      if (scopes_[s] == UOpKind::Loop) rowLoop = scopeIds_[s];
    const std::vector<RowPrefetch> prefetches = rowPrefetches(kernel_.uops, id, rowLoop);
    if (prefetches.empty()) return std::nullopt;
    const UOp& u = at(id);
    const std::string &lo = ref(u.src.at(0)), &hi = ref(u.src.at(1));
    const std::string chunk = cat("chunk", std::to_string(id)), size = std::to_string(kRowPrefetchChunk);
    open(id, UOpKind::Loop,
         cat("for (int64_t ", chunk, " = ", lo, "; ", chunk, " < ", hi, "; ", chunk, " += ", size, ") {"));
    chunked_.insert(id);
    for (const RowPrefetch& p : prefetches) {
      const std::string perLine = std::to_string(64 / dtypeSize(at(p.buffer).dtype));  // elements per cache line
      line(cat("for (int64_t pf = 0; pf < ", size, "; pf += ", perLine, ") __builtin_prefetch(&", ref(p.buffer),
               "[", ref(p.rowStart), " + ", std::to_string(p.rowStep), " + ", chunk, " + pf], 0, 2);"));
    }
    const bool whole = (at(u.src[1]).ival - at(u.src[0]).ival) % kRowPrefetchChunk == 0;
    const std::string next = cat(chunk, " + ", size);
    return std::make_pair(chunk, whole ? next : cat("(", next, " < ", hi, " ? ", next, " : ", hi, ")"));
  }

  // What the vectorizer pragmas below need to know of loop `id`.
  struct LoopShape {
    std::optional<int64_t> trips;  // a constant trip count
    bool chain = false;            // an f32 element goes through a long chain (longChain)
    bool accumulator = false;      // a Phi: a strict float reduction does not vectorize
    bool innerLoops = false;       // a loop inside that the compiler is not asked to write out
    bool innermost = true;         // no loop inside at all
  };
  LoopShape loopShape(int id) const {
    LoopShape shape;
    const UOp &lo = at(at(id).src.at(0)), &hi = at(at(id).src.at(1));
    if (lo.kind == UOpKind::Const && hi.kind == UOpKind::Const) shape.trips = hi.ival - lo.ival;
    const std::vector<UOp>& uops = kernel_.uops.uops();
    for (size_t k = (size_t)id + 1; k < uops.size(); ++k) {
      const UOp& u = uops[k];
      if (u.kind == UOpKind::EndLoop && u.src.at(0) == id) break;
      shape.accumulator |= u.kind == UOpKind::Phi;
      if (u.kind == UOpKind::Loop) shape.innermost = false, shape.innerLoops |= !writtenOut((int)k);
      shape.chain |= u.kind == UOpKind::Alu && u.dtype == DType::f32 && longChain(u.alu);
    }
    return shape;
  }
  // How many vector iterations of a loop the compiler should interleave.
  // An element of exp, tanh, erf or their compositions is a chain of 20-40
  // dependent vector operations; one vector iteration at a time leaves the
  // FMA pipes waiting on that chain (softmax's exp pass ran at a third of
  // its throughput). Independent iterations side by side fill them; the
  // values do not change. Only innermost loops without accumulators, with
  // a constant trip count long enough that the interleaved vector loop
  // runs at all.
  static int interleaveCount(const LoopShape& loop) {
    if (!loop.trips || *loop.trips < kMinTripsPerInterleave * 2 || !loop.innermost || loop.accumulator ||
        !loop.chain)
      return 1;
    return *loop.trips >= kMinTripsPerInterleave * 4 ? 4 : 2;
  }
  // Whether the compiler should run a loop's last, partial vector as a
  // masked vector iteration instead of element by element. Where each
  // element is a long chain (exp, sigmoid, ...), a remainder of up to 15
  // scalar elements costs several vectors' time: the YOLO head's fix-up of
  // 40 cells per row ran 32 of them in two vectors and 8 one by one
  // (fastest run 0.079 -> 0.076 ms, bench/RESULTS.md). A constant
  // trip count that is not a multiple of the vector, a body of straight
  // code and the short loops the compiler writes out, no accumulator. Not a
  // loop long enough to interleave: its remainder is a small share, and
  // masking every one of its iterations cost more (the YOLO head's row of
  // 3396 sigmoids: 0.079 -> 0.085 ms). The values do not change.
  static bool foldsTail(const LoopShape& loop) {
    return loop.trips && *loop.trips % kVectorLanes != 0 && *loop.trips < kMinTripsPerInterleave * 2 &&
           !loop.innerLoops && !loop.accumulator && loop.chain;
  }
  // Whether loop `id`, when inside another loop, is one the compiler is
  // asked to write out (`#pragma unroll`): a few constant iterations and
  // no loop inside.
  bool writtenOut(int id) const {
    const UOp &lo = at(at(id).src.at(0)), &hi = at(at(id).src.at(1));
    return lo.kind == UOpKind::Const && hi.kind == UOpKind::Const && hi.ival - lo.ival <= kShortLoopTrips &&
           innermostLoop(id);
  }
  // AVX-512's f32 lanes (a multiple of AVX2's 8).
  static constexpr int64_t kVectorLanes = 16;
  static bool longChain(AluOp op) {
    switch (op) {
      case AluOp::Exp: case AluOp::ExpNonPos: case AluOp::Exp2: case AluOp::Expm1: case AluOp::Tanh:
      case AluOp::Erf: case AluOp::Sigmoid: case AluOp::Silu: case AluOp::GeluErf: case AluOp::GeluTanh: return true;
      default: return false;
    }
  }
  static constexpr int64_t kMinTripsPerInterleave = 2 * kVectorLanes;

  // A C variable is visible only inside the block that declares it: a uop
  // used after its loop or if has closed is a linearizer bug, caught here
  // rather than by the C compiler.
  const std::string& ref(int id) const {
    STITCH_ASSERT(id >= 0 && id < (int)refs_.size() && !refs_[id].empty(), "kernel ", kernel_.name,
                  ": uop ", id, " used before it has a value");
    int scope = defScope_[id];
    bool visible = scope < 0;
    for (int open : scopeIds_) visible |= open == scope;
    STITCH_ASSERT(visible, "kernel ", kernel_.name, ": uop ", id, " used outside the scope that defines it");
    return refs_[id];
  }
  std::string type(DType t) const { return cTypeName(t); }
  // `const T vN = expr;`
  void value(int id, const UOp& u, const std::string& expr) {
    refs_[id] = cat("v", std::to_string(id));
    line(cat("const ", type(u.dtype), " ", refs_[id], " = ", expr, ";"));
  }

  // Code before the grid runs once per block range, on every thread: it may
  // only define values, never write or accumulate.
  void checkBeforeGrid(const UOp& u) const {
    if (sawGrid_) return;
    bool definition = u.kind == UOpKind::DefineGlobal || u.kind == UOpKind::DefineVar ||
                      u.kind == UOpKind::DefineLocal || u.kind == UOpKind::Const ||
                      u.kind == UOpKind::Alu || u.kind == UOpKind::Cast || u.kind == UOpKind::Load ||
                      u.kind == UOpKind::Special;
    STITCH_ASSERT(!gridKernel_ || definition, "kernel ", kernel_.name, ": ", uopKindName(u.kind),
                  " before the grid");
  }

  void emit(int id, const UOp& u) {
    checkBeforeGrid(u);
    switch (u.kind) {
      case UOpKind::DefineGlobal: {
        refs_[id] = orDefault(u.name, cat("data", std::to_string(u.arg)));
        std::string elem = cat(u.ival ? "" : "const ", type(u.dtype));
        line(cat(elem, "* restrict ", refs_[id], " = (", elem, "*)bufs[", std::to_string(u.arg), "];"));
        return;
      }
      case UOpKind::DefineVar: {
        refs_[id] = orDefault(u.name, cat("p", std::to_string(u.arg)));
        std::string slot = cat("params[", std::to_string(u.arg), "]");
        std::string init = isFloating(u.dtype) ? cat("(", type(u.dtype), ")", slot, ".f")
                           : u.dtype == DType::b8 ? cat(slot, ".i != 0")
                                                  : cat("(", type(u.dtype), ")", slot, ".i");
        line(cat("const ", type(u.dtype), " ", refs_[id], " = ", init, ";"));
        return;
      }
      case UOpKind::DefineLocal:
        STITCH_ASSERT(u.ival >= 0 && u.arg >= 0, "kernel ", kernel_.name, ": block-local buffer of ", u.ival,
                      " elements at ", u.arg);
        refs_[id] = orDefault(u.name, cat("local", std::to_string(id)));
        if (gridKernel_ && !sawGrid_) {  // shared by the blocks: allocated by the caller
          line(cat(type(u.dtype), "* restrict ", refs_[id], " = (", type(u.dtype), "*)bufs[",
                   std::to_string(globals_ + (int64_t)shared_.size()), "];"));
          shared_.push_back(localBytes(u));
          return;
        }
        if (inArena(u, target_) && threads_.dynamicSharedBytes > 0) {  // CUDA: the arena's layout
          line(cat("STITCH_DYNAMIC_SHARED(", type(u.dtype), ", ", refs_[id], ", ", std::to_string(u.arg), ", ",
                   std::to_string(threads_.dynamicSharedBytes), ");"));
          return;
        }
        if (inArena(u, target_) && target_ == RenderTarget::Cuda) {
          // The block's slice of the arena buffer, the slot after the shared scratch.
          const std::string block = gridIndex_.empty() ? "0" : gridIndex_;
          line(cat(type(u.dtype), "* restrict ", refs_[id], " = (", type(u.dtype), "*)((char*)bufs[",
                   std::to_string(globals_ + (int64_t)shared_.size()), "] + ", block, " * ",
                   std::to_string(arenaBytes_), " + ", std::to_string(u.arg), ");"));
          return;
        }
        if (inArena(u, target_)) {
          line(cat(type(u.dtype), "* restrict ", refs_[id], " = (", type(u.dtype), "*)(stitch_arena(",
                   std::to_string(arenaBytes_), ") + ", std::to_string(u.arg), ");"));
          return;
        }
        if (threads_.sharedLocal(id)) {  // CUDA: the block's threads pass values through it
          line(cat("STITCH_SHARED(", type(u.dtype), ", ", refs_[id], ", ", std::to_string(std::max<int64_t>(u.ival, 1)),
                   ", ", std::to_string(id), ");"));
          return;
        }
        // On the stack of the thread running the block; kept well under the
        // worker threads' stack size.
        line(cat(type(u.dtype), " ", refs_[id], "[", std::to_string(std::max<int64_t>(u.ival, 1)), "];"));
        return;
      case UOpKind::DefineAcc:
        refs_[id] = cat("acc", std::to_string(id));
        line(cat(type(u.dtype), " ", refs_[id], " = ", ref(u.src.at(0)), ";"));
        return;
      case UOpKind::Const:
        refs_[id] = renderConstC(u);
        return;
      case UOpKind::Special: {
        refs_[id] = orDefault(u.name, cat("gidx", std::to_string(id)));
        const std::string& g = refs_[id];
        // The outermost grid loop runs the blocks this call was given (all
        // of them, or one thread's share); inner ones are plain loops.
        if (!sawGrid_ && target_ == RenderTarget::Cuda) {
          sawGrid_ = true;
          gridCount_ = u.ival;
          gridIndex_ = g;
          line(!threads_.sharedLoops.empty() ? cat("const int64_t ", g, " = blockIdx.x;")
                                : cat("const int64_t ", g, " = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;"));
          open(id, UOpKind::Special, cat("if (", g, " < ", std::to_string(u.ival), ") {"));
          return;
        }
        if (!sawGrid_) {
          sawGrid_ = true;
          gridCount_ = u.ival;
          open(id, UOpKind::Special, cat("for (int64_t ", g, " = block_begin; ", g, " < block_end; ++", g, ") {"));
          return;
        }
        open(id, UOpKind::Special,
             cat("for (int64_t ", g, " = 0; ", g, " < ", std::to_string(u.ival), "; ++", g, ") {"));
        return;
      }
      case UOpKind::Loop: {
        refs_[id] = cat("loop", std::to_string(id));
        const std::string& i = refs_[id];
        // A loop of a few constant iterations (a two-element tile, a slice
        // of two columns) inside another loop is written out by the
        // compiler, so the loop around it can be the one that vectorizes
        // (-fno-unroll-loops leaves it a loop otherwise; clang's pragma,
        // which gcc ignores). Outside any loop (a lane fold's last
        // halvings, once per block) there is nothing to gain.
        if (threads_.shares(id)) {  // its iterations dealt out to the block's threads
          barrier();
          ++sharedDepth_;
          open(id, UOpKind::Loop, cat("for (int64_t ", i, " = ", ref(u.src.at(0)), " + threadIdx.x; ", i, " < ",
                                      ref(u.src.at(1)), "; ", i, " += blockDim.x) {"));
          return;
        }
        const bool inLoop = std::find(scopes_.begin(), scopes_.end(), UOpKind::Loop) != scopes_.end();
        std::pair<std::string, std::string> bounds{ref(u.src.at(0)), ref(u.src.at(1))};
        if (inLoop && writtenOut(id)) {
          line("#pragma unroll");
        } else if (target_ == RenderTarget::C) {
          if (auto chunk = openPrefetchChunks(id)) bounds = *chunk;
          const LoopShape shape = loopShape(id);
          if (int count = interleaveCount(shape); count > 1)
            line(cat("#pragma clang loop interleave_count(", std::to_string(count), ")"));
          if (foldsTail(shape)) line("#pragma clang loop vectorize_predicate(enable)");
        }
        open(id, UOpKind::Loop,
             cat("for (int64_t ", i, " = ", bounds.first, "; ", i, " < ", bounds.second, "; ++", i, ") {"));
        return;
      }
      case UOpKind::EndLoop:
        if (!scopes_.empty() && scopes_.back() == UOpKind::Special && scopeIds_.size() == 1) {
          // The end of the grid: what follows runs once, after every block.
          STITCH_ASSERT(!after_, "kernel ", kernel_.name, " closes its grid twice");
          close(UOpKind::Special);
          after_ = true;
          gridIndex_.clear();
          out_ += target_ == RenderTarget::Cuda
                      ? cat("}\nSTITCH_KERNEL void ", kernel_.name, "_after(const stitch_args args) {\n")
                      : cat("}\nstatic void ", kernel_.name, "_after(void* const* bufs, const stitch_scalar* params) {\n");
          out_ += preamble_;
          return;
        }
        close(UOpKind::Loop);
        if (chunked_.count(u.src.at(0))) close(UOpKind::Loop);  // the loop over its chunks
        if (threads_.shares(u.src.at(0))) {
          --sharedDepth_;
          barrier();
        }
        return;
      case UOpKind::If: open(id, UOpKind::If, cat("if (", ref(u.src.at(0)), ") {")); return;
      case UOpKind::EndIf: close(UOpKind::If); return;
      case UOpKind::Load:
        value(id, u, cat(ref(u.src.at(0)), "[", ref(u.src.at(1)), "]"));
        return;
      case UOpKind::Store: {
        const std::string store = cat(ref(u.src.at(0)), "[", ref(u.src.at(1)), "] = ", ref(u.src.at(2)), ";");
        // Outside the shared loops every thread holds the same value for
        // the same slot: one stores it (codegen/cuda_threads.h).
        const bool once = threads_.guardedStores && sharedDepth_ == 0 && at(u.src.at(0)).kind == UOpKind::DefineGlobal;
        line(once ? cat("if (threadIdx.x == 0) ", store) : store);
        return;
      }
      case UOpKind::Phi:
        STITCH_ASSERT(at(u.src.at(0)).kind == UOpKind::DefineAcc, "PHI of a non-accumulator");
        line(cat(ref(u.src.at(0)), " = ", ref(u.src.at(1)), ";"));
        // After the loop the PHI's value is the accumulator itself.
        refs_[id] = ref(u.src.at(0));
        defScope_[id] = defScope_[u.src.at(0)];
        return;
      case UOpKind::Alu: {
        std::vector<std::string> args;
        for (int s : u.src) args.push_back(ref(s));
        // The value operands' dtype: WHERE's condition is bool whatever it picks.
        DType operand = at(u.src.at(u.alu == AluOp::Where ? 1 : 0)).dtype;
        if (u.alu == AluOp::Div && at(u.src.at(1)).kind == UOpKind::Const) {
          if (std::optional<std::string> e = renderDivByConstant(operand, args[0], at(u.src[1]).fval, prelude_)) {
            value(id, u, *e);
            return;
          }
        }
        value(id, u, renderAluExpr(u.alu, operand, args, prelude_));
        return;
      }
      case UOpKind::Cast:
        value(id, u, renderCastExpr(at(u.src.at(0)).dtype, u.dtype, ref(u.src.at(0)), prelude_));
        return;
      case UOpKind::FoldLanes: {
        STITCH_ASSERT(at(u.src.at(0)).kind == UOpKind::DefineLocal && at(u.src.at(0)).ival == u.ival, "kernel ",
                      kernel_.name, ": FOLD_LANES of a ", uopKindName(at(u.src.at(0)).kind));
        if (target_ == RenderTarget::C) {
          STITCH_ASSERT(u.alu == AluOp::Add, "kernel ", kernel_.name, ": FOLD_LANES ", aluOpName(u.alu), " on C");
          value(id, u, cat(prelude_.useLaneSum(u.dtype, u.ival), "(", ref(u.src.at(0)), ")"));
          return;
        }
        // The combine of lane_reduce.h's halvings: max and min take the new
        // value (the upper lane) first.
        const bool newFirst = u.alu == AluOp::Max || u.alu == AluOp::Min;
        const std::vector<std::string> operands =
            newFirst ? std::vector<std::string>{"hi", "lo"} : std::vector<std::string>{"lo", "hi"};
        const std::string combine = renderAluExpr(u.alu, u.dtype, operands, prelude_);
        const bool block = threads_.sharedLocal(u.src.at(0));
        value(id, u, cat(prelude_.useGpuLaneFold(aluOpName(u.alu), u.dtype, u.ival, combine, block), "(",
                         ref(u.src.at(0)), ")"));
        return;
      }
    }
    STITCH_ASSERT(false, "unknown uop kind");
  }

  const KernelUOps& kernel_;
  CPrelude& prelude_;
  RenderTarget target_;
  CudaDeviceLimits limits_;
  std::vector<std::string> refs_;  // how later uops name each uop's value
  std::vector<UOpKind> scopes_;    // open SPECIAL / LOOP / IF
  std::vector<int> scopeIds_;      // their uop ids
  std::vector<int> defScope_;      // per uop: the innermost scope open at its definition (-1: none)
  std::set<int> chunked_;          // loops opened as chunks of a loop (openPrefetchChunks)
  bool gridKernel_ = false;        // the kernel has a SPECIAL
  bool sawGrid_ = false;           // the first SPECIAL has been emitted
  int64_t gridCount_ = 0;          // its extent
  std::string gridIndex_;          // CUDA: its index, while the grid is open
  CudaThreadPlan threads_;         // CUDA: the loops the threads of a block share
  int sharedDepth_ = 0;            // CUDA: shared loops open
  int64_t arenaBytes_ = 0;         // scratch arena the kernel's large buffers need
  int64_t globals_ = 0;            // buffer slots the caller passes
  std::vector<int64_t> shared_;    // bytes of each scratch shared by the blocks
  bool after_ = false;             // the grid was closed: code after it runs once
  std::string preamble_;           // definitions before the grid
  std::string out_;
};

}  // namespace

std::string renderC(const std::vector<KernelUOps>& kernels, const std::vector<TileEpilogue>& epilogues) {
  CPrelude prelude;
  std::string bodies;
  std::set<std::string> names;
  bool anyGrid = false, anyArena = false;
  for (const KernelUOps& kernel : kernels) {
    STITCH_ASSERT(names.insert(kernel.name).second, "two kernels named ", kernel.name);
    anyGrid |= KernelWriter::hasGrid(kernel);
    anyArena |= KernelWriter::usesArena(kernel, RenderTarget::C) || KernelWriter::hasSharedScratch(kernel);
    bodies += "\n";
    bodies += KernelWriter(kernel, prelude, RenderTarget::C).render();
  }
  for (const TileEpilogue& epilogue : epilogues) {
    STITCH_ASSERT(names.insert(epilogue.name).second, "two functions named ", epilogue.name);
    bodies += "\n";
    bodies += renderTileEpilogue(epilogue, prelude);
  }
  std::string helpers = prelude.text();
  return cat(kKernelAbiC, "#include <math.h>\n", anyGrid ? kParallelBlocksC : "", anyArena ? kArenaC : "",
             helpers.empty() ? "" : "\n", helpers, bodies);
}

namespace {

// What NVRTC lacks of the C library, for the prelude and the kernels: no
// headers exist there. The same text compiled by the host's C compiler
// (the CUDA emulator, runtime/cuda_emulator.h) takes them from the C
// library, runs a kernel once per emulated thread (stitch_emulate_thread
// sets the indices first) and has C's restrict. stitch_args carries a
// kernel's buffers and scalar parameters by value, as one launch argument.
constexpr const char* kCudaHeader = R"(#ifdef __CUDACC_RTC__
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#define INT32_MIN (-2147483647 - 1)
#define INT64_MIN (-9223372036854775807LL - 1)
#define INT64_C(c) c##LL
#define NAN __int_as_float(0x7fffffff)
#define INFINITY __int_as_float(0x7f800000)
#define restrict __restrict__
#define STITCH_KERNEL extern "C" __global__
#define STITCH_SHARED(T, name, n, id) __shared__ T name[n]
extern __shared__ __align__(16) unsigned char stitch_dynamic_shared[];
#define STITCH_DYNAMIC_SHARED(T, name, offset, bytes) T* const name = (T*)(stitch_dynamic_shared + (offset))
#define STITCH_SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, (v), (m))
#define STITCH_SHFL_DOWN(v, m) __shfl_down_sync(0xffffffffu, (v), (m))
#define STITCH_SHFL_IDX(v, l) __shfl_sync(0xffffffffu, (v), (l))
#else
#include <math.h>
#include <stdint.h>
#include <string.h>
#define STITCH_KERNEL
#define __device__
typedef struct { unsigned x, y, z; } stitch_dim3;
static stitch_dim3 blockIdx, threadIdx, blockDim;
void stitch_emulate_thread(unsigned block, unsigned thread, unsigned threads) {
  blockIdx.x = block;
  threadIdx.x = thread;
  blockDim.x = threads;
}
/* The emulator's barrier switches to the block's other threads, which set
 * the indices above before they resume; it is called through a pointer,
 * so the kernel reads the indices again after it. Shared buffers come
 * from the emulator, one per id for all threads of a block, filled with
 * 0xff bytes at the start of every block. */
static void (*stitch_emulate_barrier)(void);
static void* (*stitch_emulate_shared)(int64_t id, int64_t bytes);
void stitch_emulate_set_hooks(void (*barrier)(void), void* (*shared)(int64_t, int64_t)) {
  stitch_emulate_barrier = barrier;
  stitch_emulate_shared = shared;
}
#define __syncthreads() stitch_emulate_barrier()
#define STITCH_SHARED(T, name, n, id) T* const name = (T*)stitch_emulate_shared(id, (int64_t)sizeof(T) * (n))
/* The block's dynamic shared memory is the buffer of id STITCH_EMULATE_DYNAMIC
 * (below the exchange buffers' -bytes), its size the launch's: the
 * emulator checks that the two agree. */
#define STITCH_EMULATE_DYNAMIC (-((int64_t)1 << 40))
#define STITCH_DYNAMIC_SHARED(T, name, offset, bytes) \
  T* const name = (T*)((unsigned char*)stitch_emulate_shared(STITCH_EMULATE_DYNAMIC, (bytes)) + (offset))
/* A warp shuffle: thread `from`'s value through a block-wide exchange
 * buffer between two barriers, so every thread of the block must take
 * part, as every lane of a warp must in CUDA with a full mask. */
static inline void stitch_emulate_exchange(void* v, int64_t bytes, unsigned from) {
  unsigned char* const x = (unsigned char*)stitch_emulate_shared(-bytes, bytes * (int64_t)blockDim.x);
  memcpy(x + bytes * threadIdx.x, v, (size_t)bytes);
  stitch_emulate_barrier();
  memcpy(v, x + bytes * from, (size_t)bytes);
  stitch_emulate_barrier();
}
#define STITCH_EMULATE_SHFL(v, from) \
  ({ __typeof__(v) stitch_shfl_v = (v); \
     stitch_emulate_exchange(&stitch_shfl_v, (int64_t)sizeof stitch_shfl_v, (from)); \
     stitch_shfl_v; })
/* Butterfly (lane ^ m); down (lane + m, the lane's own value past the
 * warp's end); lane l of the warp. */
#define STITCH_SHFL_XOR(v, m) STITCH_EMULATE_SHFL(v, threadIdx.x ^ (m))
#define STITCH_SHFL_DOWN(v, m) \
  STITCH_EMULATE_SHFL(v, threadIdx.x % 32 + (m) < 32 ? threadIdx.x + (m) : threadIdx.x)
#define STITCH_SHFL_IDX(v, l) STITCH_EMULATE_SHFL(v, threadIdx.x / 32 * 32 + (l))
#endif
typedef union { int64_t i; double f; } stitch_scalar;
)";

// The prelude's C helpers as device functions; kernel_math.h's includes
// name headers NVRTC does not have (what they declare is built in there).
std::string deviceHelpers(std::string text) {
  std::string out;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    end = end == std::string::npos ? text.size() : end + 1;
    std::string l = text.substr(begin, end - begin);
    begin = end;
    if (l.rfind("#include", 0) == 0) continue;
    if (l.rfind("static inline ", 0) == 0) l = "static __device__ inline " + l.substr(14);
    out += l;
  }
  return out;
}

}  // namespace

std::string renderCuda(const std::vector<KernelUOps>& kernels, const CudaDeviceLimits& limits) {
  CPrelude prelude(RenderTarget::Cuda);
  std::string bodies;
  std::set<std::string> names;
  for (const KernelUOps& kernel : kernels) {
    STITCH_ASSERT(names.insert(kernel.name).second, "two kernels named ", kernel.name);
    bodies += "\n";
    bodies += KernelWriter(kernel, prelude, RenderTarget::Cuda, limits).render();
  }
  std::string helpers = deviceHelpers(prelude.text());
  return cat(kCudaHeader, cat("typedef struct { void* bufs[", std::to_string(kCudaMaxBuffers), "]; stitch_scalar params[",
                             std::to_string(kCudaMaxParams), "]; } stitch_args;\n"),
             helpers.empty() ? "" : "\n", helpers, bodies);
}

std::string cudaHelpers(const CPrelude& prelude) { return deviceHelpers(prelude.text()); }

CudaLaunch cudaLaunchOf(const KernelUOps& kernel, const CudaDeviceLimits& limits) {
  CudaLaunch launch;
  launch.gridBlocks = std::max<int64_t>(KernelWriter::gridBlocks(kernel), 1);
  const CudaThreadPlan plan =
      cudaThreadPlan(kernel, maxLocalBytes(RenderTarget::Cuda), kCudaThreadsPerBlock, limits.sharedMemoryPerBlock);
  if (!plan.sharedLoops.empty()) {
    launch.blocks = launch.gridBlocks;
    launch.threadsPerBlock = plan.threads;
    launch.barriers = plan.barriers;
  } else {
    launch.threadsPerBlock = (int)std::min<int64_t>(launch.gridBlocks, kCudaThreadsPerBlock);
    launch.blocks = (launch.gridBlocks + launch.threadsPerBlock - 1) / launch.threadsPerBlock;
  }
  launch.sharedScratchBytes = KernelWriter::sharedScratch(kernel);
  launch.dynamicSharedBytes = plan.dynamicSharedBytes;
  if (plan.dynamicSharedBytes == 0) launch.arenaBytesPerBlock = KernelWriter::arenaBytes(kernel, RenderTarget::Cuda);
  launch.after = KernelWriter::hasAfterPart(kernel);
  return launch;
}

int64_t blockRangeCount(const KernelUOps& kernel) {
  if (KernelWriter::hasSharedScratch(kernel) || KernelWriter::hasAfterPart(kernel)) return 0;
  return KernelWriter::gridBlocks(kernel);
}

}  // namespace stitch
