#include "runtime/in_place_assign.h"

#include "interp/kernel_registry.h"

namespace stitch {

namespace {

const char kPrefix[] = "immut.";
const char kSuffix[] = "_rev";

// "immut.select_rev" -> "select"; "" when the node is no such op.
std::string forwardView(const std::string& kind) {
  const size_t prefix = sizeof(kPrefix) - 1, suffix = sizeof(kSuffix) - 1;
  if (kind.size() <= prefix + suffix || kind.compare(0, prefix, kPrefix) != 0 ||
      kind.compare(kind.size() - suffix, suffix, kSuffix) != 0)
    return "";
  return kind.substr(prefix, kind.size() - prefix - suffix);
}

}  // namespace

bool isInPlaceAssignOp(const Node& node) {
  if (node.is("immut.assign")) return true;
  std::string view = forwardView(node.kind());
  return !view.empty() && view != "expand" && KernelRegistry::get().find(view) != nullptr;
}

const ViewKernel* inPlaceView(const Node& node) {
  if (node.is("immut.assign")) return nullptr;
  const ViewKernel* view = KernelRegistry::get().find(forwardView(node.kind()));
  STITCH_ASSERT(view, "no view kernel for ", node.kind());
  return view;
}

Tensor assignInPlace(const Node& node, const ViewKernel* view, const IValueList& args) {
  const Tensor& base = args.at(0).toTensor();
  const Tensor& src = args.at(1).toTensor();
  if (!view) {
    base.copyFrom(src);
    return base;
  }
  // The forward view takes the base and the Assign op's arguments after src.
  IValueList viewArgs{args[0]};
  viewArgs.insert(viewArgs.end(), args.begin() + 2, args.end());
  IValueList region = (*view)(node, viewArgs);
  STITCH_ASSERT(region.size() == 1 && region[0].isTensor(), node.kind(), "'s view gave no tensor");
  region[0].toTensor().copyFrom(src);
  return base;
}

}  // namespace stitch
