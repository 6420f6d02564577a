#include "ugraph/kernel_graph.h"

#include "common/error.h"

namespace stitch {

const char* kernelKindName(KernelKind kind) {
  switch (kind) {
    case KernelKind::GraphDefined: return "block";
    case KernelKind::Copy: return "copy";
    case KernelKind::Contraction: return "contraction";
    case KernelKind::Attention: return "attention";
  }
  return "?";
}

DType kernelParamDType(const Value* param) {
  switch (param->type()->kind()) {
    case TypeKind::Int: return DType::i64;
    case TypeKind::Float: return DType::f64;
    case TypeKind::Bool: return DType::b8;
    default: break;
  }
  STITCH_ASSERT(false, "kernel parameter of type ", param->type()->str());
  return DType::i64;
}

}  // namespace stitch
