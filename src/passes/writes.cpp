#include "passes/writes.h"

#include "ir/op_registry.h"

namespace stitch {

bool isWrite(const Node* n) { return n->is("copy_") || n->is("fill_") || n->is("zero_"); }

bool containsWrite(const Block* b) {
  for (const Node* n : *b) {
    if (isWrite(n)) return true;
    for (const Block* sub : n->blocks())
      if (containsWrite(sub)) return true;
  }
  return false;
}

const Value* writtenBase(const Node* write) {
  const Value* v = write->input(0);
  while (v->node() && v->node()->schema().isView() && !v->node()->inputs().empty()) v = v->node()->input(0);
  return v;
}

}  // namespace stitch
