// attention-chains: the attention of one query block against all keys,
// softmax(q @ k^T * c, -1) @ v, becomes one fused.attention node, which
// runs as one predefined kernel (runtime/attention_kernel.h): the scores
// never leave the cache, and k and v are read once for all queries of a
// batch entry instead of once per product and query row.
//
//   %kt = immut.transpose(%k, -1, -2)      q: f32[8,4,64], k, v: f32[8,N,64]
//                                          (or a permute swapping the last two)
//   %s  = matmul(%q, %kt)
//   %t  = div(%s, 8.0)                     (or mul by a constant, or neither)
//   %p  = softmax(%t, -1, None)
//   %o  = matmul(%p, %v)
//     ->  %o = fused.attention(%q, %k, %v, 0.125)
//
// Only where the chain's intermediates have no other use, every tensor is
// float32 of one rank (>= 2) with the same static batch sizes (no
// broadcasting), and the scale is a constant. The keys' length may be
// unknown (a decode step's keys written so far). Returns whether anything
// was rewritten (the chain is then dead).
#pragma once
#include "ir/graph.h"

namespace stitch {

bool formAttentionChains(Graph& graph);

}  // namespace stitch
