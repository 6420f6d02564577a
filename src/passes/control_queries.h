// Small structural questions the functionalization passes ask about values
// and control-flow nodes.
#pragma once
#include <cstddef>
#include <vector>

#include "ir/graph.h"

namespace stitch {

// Whether v is defined inside one of `control`'s blocks (at any depth).
bool definedInside(const Value* v, const Node* control);

// Whether v is made in `block` itself by a node that returns new storage:
// not a view, not an element taken out of a list or tuple, not a value
// passed through a nested loop or branch, not a block parameter.
bool freshIn(const Value* v, const Block* block);

// The nodes of `block`, those of nested loop and branch bodies included.
size_t countNodes(const Block* block);

// The loop or branch whose value v is (a loop's output or body parameter,
// a branch's output), or null.
const Node* carrierOf(const Value* v);

// The values that loop or branch may pass on unchanged as v: for a loop
// slot, the loop's input and the body's returned value; for a branch
// output, each arm's returned value (empty for anything else, and for a
// loop's iteration index).
std::vector<const Value*> passedOnAs(const Value* v);

}  // namespace stitch
