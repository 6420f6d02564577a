#include "ugraph/kernel_graph.h"

namespace stitch {

const char* kernelKindName(KernelKind kind) {
  switch (kind) {
    case KernelKind::GraphDefined: return "block";
    case KernelKind::Copy: return "copy";
    case KernelKind::Contraction: return "contraction";
  }
  return "?";
}

}  // namespace stitch
