#include "passes/write_overlap.h"

#include <string>
#include <vector>

namespace stitch {

namespace {

// " of 'x'" for a named tensor, else nothing.
std::string of(const Value* v) { return v->debugName().empty() ? "" : " of '" + v->debugName() + "'"; }

[[noreturn]] void refuse(const Node* write, const std::string& why) {
  throw UserError("functionalization: " + why + "; not supported", write->loc());
}

bool viewsThroughExpand(const AliasTree& tree, Value* v) {
  for (const AliasInfo* i = tree.info(v); i != nullptr && i->kind == AliasKind::TensorView; i = tree.info(v)) {
    if (v->node()->is("immut.expand")) return true;
    v = i->parents.front();
  }
  return false;
}

// What the write reads besides its destination: copy_'s source, and where
// the source is the out-of-place op remove-inplace put right before the
// copy_ (copy_(x, op(x, y, ...)), maybe through a cast), that op's other
// tensor operands.
std::vector<Value*> operandsOf(Node* write) {
  Value* dst = write->input(0);
  Value* src = write->input(1);
  std::vector<Value*> out{src};
  if (src->isBlockParam()) return out;
  Node* op = src->node();
  if (op->next() != write) return out;
  if (op->is("to") && !op->input(0)->isBlockParam() && op->input(0)->node()->next() == op) op = op->input(0)->node();
  if (op->inputs().empty() || op->input(0) != dst) return out;
  for (size_t i = 1; i < op->inputs().size(); ++i)
    if (op->input(i)->type()->isTensor()) out.push_back(op->input(i));
  return out;
}

// Without static layouts, any other view counts.
bool overlaps(const AliasTree& tree, Value* dst, Value* read) {
  auto a = tree.layoutOf(dst), b = tree.layoutOf(read);
  if (!a || !b) return true;
  return layoutOverlap(*a, *b) == LayoutOverlap::Overlapping;
}

}  // namespace

void checkWriteOverlap(const AliasTree& tree, Node* write) {
  if (!write->is("copy_")) return;  // fill_ and zero_ may write expanded tensors
  Value* dst = write->input(0);
  Value* base = tree.tensorBaseOf(dst);
  if (viewsThroughExpand(tree, dst)) {
    auto l = tree.layoutOf(dst);
    if (!l || hasInternalOverlap(*l))
      refuse(write, "an in-place write into an expanded view" + of(base) +
                        " whose elements share memory locations");
  }
  for (Value* read : operandsOf(write)) {
    if (read == dst || !read->type()->isTensor() || tree.tensorBaseOf(read) != base) continue;
    if (!overlaps(tree, dst, read)) continue;
    refuse(write, "an in-place write reads a view" + of(base) +
                      " that overlaps the written elements without being the same view");
  }
}

}  // namespace stitch
