// A block-local tile that an output takes element for element is filled in
// that output's memory (the C target).
//
// Softmax's row is a tile: exp(x - max) filled once, summed, then each
// element scaled into the output, `out[b + j] = T[j] * (1 / sum)`. With the
// tile apart, the input row, the tile and the output row all pass through
// L1 at once (48 KiB for a 4096-float row, a whole Sapphire Rapids L1d);
// filled in `out[b + j]` itself, the last pass scales the output in place
// and two rows' worth stays in L1, as in PyTorch's softmax kernel.
//
// T (a DEFINE_LOCAL of n elements of the output's dtype) becomes the
// global buffer G at offset b when:
//  - one STORE puts G[b + j] in a loop L over j in [0, n), L the innermost
//    loop around it and opened in the scope that declares T; b is defined
//    before T (so it is known where T is filled);
//  - inside L, T is read, at j alone, in L itself, and not written; no uop
//    after L touches T; T is never folded as lanes;
//  - no other tile went to G;
//  - G is never loaded by the kernel, and nothing else stores into it from
//    T's declaration to L's end;
//  - with a grid, blocks write apart: b = r * m (+ c, 0 <= c <= m - n),
//    r the grid index or a loop over a block's own chunk of rows
//    ([gidx * k, at most gidx * k + k)), m >= n.
// Within a block the tile's element is filled before L reads and then
// overwrites it; no other block touches those elements.
#pragma once
#include "uops/uop.h"

namespace stitch {

// `g` with every tile that qualifies filled in its output (unchanged when
// none does).
UOpGraph fillTilesInOutputs(const UOpGraph& g);

}  // namespace stitch
