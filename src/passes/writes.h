// The writes left after remove-inplace (copy_, fill_, zero_; each writes its
// first operand), as the passes before rewrite-mutation look for them:
//
//   %r = select(%x, 0, %i)
//   fill_(%r, 2.0)          isWrite: true; writtenBase: %x (through views)
#pragma once
#include "ir/graph.h"

namespace stitch {

bool isWrite(const Node* n);
// Whether b or a block nested in it holds a write.
bool containsWrite(const Block* b);
// The tensor a write lands in, followed through view ops to their input.
const Value* writtenBase(const Node* write);

}  // namespace stitch
