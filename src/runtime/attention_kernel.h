// The predefined kernel of fused.attention (passes/attention_chains.h):
// out = softmax(q @ k^T * scale, -1) @ v over float32 tensors of one rank
// with the same batch sizes, in one pass over the keys, as flash-decoding
// does on GPUs:
//
//   the keys are cut into chunks of kAttentionChunk (fixed, not by the
//   thread count); a work item is (batch entry, block of up to
//   kAttentionRows query rows, chunk). It computes the chunk's scores in
//   16-lane dot products (every k row loaded once for the block's rows),
//   their max m, p = exp(s - m), the sum of p and p @ v, all in float32 in
//   a fixed order; the items run in parallel;
//   the chunks' partials of a row are combined in chunk order: with M the
//   largest m, out = sum_c e^(m_c - M) (p @ v)_c / sum_c e^(m_c - M) sum_c.
//
// So the scores never reach memory, k and v are read once per block of
// rows (GQA decode's group of queries shares one pass over its head's
// cache), and results do not depend on the thread count. Compared with the
// interpreter's op-by-op chain under the tolerance rule (ugraph/numerics.h).
#pragma once
#include <cstdint>

#include "interp/tensor.h"

namespace stitch {

constexpr int64_t kAttentionChunk = 256;
constexpr int64_t kAttentionRows = 4;

// Whether the operands are an attention the kernels compute: f32, one
// rank >= 2, the same batch sizes, q's and k's last dims equal, k's and
// v's key counts equal.
bool attentionShapesFit(const Tensor& q, const Tensor& k, const Tensor& v);
// Whether attentionF32 runs these operands: they fit and each operand's
// last dim is contiguous. Otherwise the interpreter's op runs (and raises
// PyTorch's errors for shapes that do not fit).
bool attentionApplies(const Tensor& q, const Tensor& k, const Tensor& v);

// q's sizes with the last replaced by v's.
Shape attentionOutputShape(const Tensor& q, const Tensor& v);

// One call on raw operands: q [batch..., rows, dim], k [batch..., keys,
// dim], v [batch..., keys, dimV], each with its own strides (the last dim
// contiguous), into a dense out [batch..., rows, dimV]. The batch dims'
// sizes are q's; each operand has its strides along them.
struct AttentionCall {
  const float *q, *k, *v;
  float* out;
  int64_t batchRank;
  const int64_t* batchSizes;
  const int64_t *qBatchStrides, *kBatchStrides, *vBatchStrides;
  int64_t rows, keys, dim, dimV;
  int64_t qs, ks, vs;  // row strides (along rows / keys)
  float scale;
};

// The call's work items (batch entry, block of rows, chunk of keys) and
// whether they are worth a team.
struct AttentionWork {
  int64_t batches = 1, rowBlocks = 0, chunks = 0, items = 0;
  bool parallel = false;
};
AttentionWork attentionWork(const AttentionCall& c);

// The floats of scratch the items' partials take.
int64_t attentionPartialFloats(const AttentionCall& c, const AttentionWork& w);

// Items [begin, end) into their partials; then, once every item is done,
// output rows [begin, end) of the batches x rows combined. The two may run
// on several threads, each item and row on one. With one chunk of keys
// (w.chunks == 1) the items write their rows themselves and
// attentionCombine has nothing to do.
void attentionItems(const AttentionCall& c, const AttentionWork& w, float* partials, int64_t begin, int64_t end);
void attentionCombine(const AttentionCall& c, const AttentionWork& w, const float* partials, int64_t begin,
                      int64_t end);

// Writes the attention into `out` (contiguous, attentionOutputShape) on up
// to `threads` threads (one where the work is small).
void attentionF32(const Tensor& q, const Tensor& k, const Tensor& v, float scale, const Tensor& out,
                  int threads);

}  // namespace stitch
