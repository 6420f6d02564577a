#include "ir/creation_dtypes.h"

#include <cmath>

#include "common/error.h"
#include "ir/elementwise_dtypes.h"

namespace stitch {

DType creationDType(std::optional<DType> requested) { return requested.value_or(DType::f32); }

DType fullDType(ScalarKind fill, std::optional<DType> requested) {
  if (requested) return *requested;
  switch (fill) {
    case ScalarKind::Bool: return DType::b8;
    case ScalarKind::Int: return DType::i64;
    case ScalarKind::Float: return DType::f32;
  }
  return DType::f32;
}

DType arangeDType(const std::vector<ScalarKind>& args, std::optional<DType> requested) {
  DType t = DType::i64;
  for (ScalarKind k : args)
    if (k == ScalarKind::Float) t = DType::f32;
  if (requested) t = *requested;
  if (t == DType::b8) throwNotImplemented("arange_cpu", t);
  return t;
}

int64_t arangeLength(double start, double end, double step, DType dtype) {
  if (!isFloating(dtype)) {
    start = std::trunc(start);
    end = std::trunc(end);
    step = std::trunc(step);
  }
  if (!std::isfinite(start) || !std::isfinite(end))
    throw UserError(errorMessage("unsupported range: ", start, " -> ", end));
  if (step == 0) throw UserError("step must be nonzero");
  if ((step > 0 && end < start) || (step < 0 && end > start))
    throw UserError("upper bound and larger bound inconsistent with step sign");
  return (int64_t)std::ceil((end - start) / step);
}

void checkRandDType(DType dtype) {
  if (!isFloating(dtype)) throwNotImplemented("check_uniform_bounds", dtype);
}

}  // namespace stitch
