// Interpreter kernels of the reduction family: argument unpacking per
// overload; the arithmetic lives in reduce_ops.h and along_dim_ops.h.
#include "interp/along_dim_ops.h"
#include "interp/kernel_registry.h"
#include "interp/reduce_ops.h"

namespace stitch {

namespace {

std::optional<DType> optDType(const IValue& v) {
  if (v.isNone()) return std::nullopt;
  return v.toDType();
}

std::optional<int64_t> optInt(const IValue& v) {
  if (v.isNone()) return std::nullopt;
  return v.toInt();
}

// int[]? dim: None (or []) reduces every dim.
std::vector<int64_t> dimList(const IValue& v) {
  if (v.isNone()) return {};
  return v.toIntList();
}

IValueList one(Tensor t) { return {IValue(std::move(t))}; }

void registerSumMean(KernelRegistry& r) {
  r.add("sum", [](const Node&, const IValueList& a) {
    const Tensor& x = a[0].toTensor();
    if (a.size() == 2) return one(reduceSum(x, {}, false, optDType(a[1])));
    return one(reduceSum(x, dimList(a[1]), a[2].toBool(), optDType(a[3])));
  });
  r.add("mean", [](const Node&, const IValueList& a) {
    const Tensor& x = a[0].toTensor();
    if (a.size() == 2) return one(reduceMean(x, {}, false, optDType(a[1])));
    return one(reduceMean(x, dimList(a[1]), a[2].toBool(), optDType(a[3])));
  });
  r.add("prod", [](const Node&, const IValueList& a) {
    const Tensor& x = a[0].toTensor();
    if (a.size() == 2) return one(reduceProd(x, std::nullopt, false, optDType(a[1])));
    return one(reduceProd(x, a[1].toInt(), a[2].toBool(), optDType(a[3])));
  });
}

void registerExtrema(KernelRegistry& r) {
  for (Extremum which : {Extremum::Max, Extremum::Min}) {
    bool isMax = which == Extremum::Max;
    r.add(isMax ? "amax" : "amin", [which](const Node&, const IValueList& a) {
      return one(reduceExtremum(a[0].toTensor(), which, dimList(a[1]), a[2].toBool()));
    });
    r.add(isMax ? "max" : "min", [which](const Node&, const IValueList& a) -> IValueList {
      const Tensor& x = a[0].toTensor();
      if (a.size() == 1) return one(reduceExtremumAll(x, which));
      if (a[1].isTensor()) return one(binaryExtremum(x, a[1].toTensor(), which));
      auto [values, indices] = reduceExtremumDim(x, which, a[1].toInt(), a[2].toBool());
      return {IValue(values), IValue(indices)};
    });
    r.add(isMax ? "argmax" : "argmin", [which](const Node&, const IValueList& a) {
      return one(argExtremum(a[0].toTensor(), which, optInt(a[1]), a[2].toBool()));
    });
  }
}

void registerStatistics(KernelRegistry& r) {
  for (bool isStd : {false, true}) {
    r.add(isStd ? "std" : "var", [isStd](const Node&, const IValueList& a) {
      const Tensor& x = a[0].toTensor();
      if (a.size() == 2) return one(reduceVariance(x, std::nullopt, a[1].toBool(), false, isStd));
      std::optional<std::vector<int64_t>> dims;
      if (!a[1].isNone()) dims = a[1].toIntList();
      return one(reduceVariance(x, dims, a[2].toBool(), a[3].toBool(), isStd));
    });
  }
  r.add("logsumexp", [](const Node&, const IValueList& a) {
    return one(reduceLogSumExp(a[0].toTensor(), a[1].toIntList(), a[2].toBool()));
  });
  r.add("norm", [](const Node&, const IValueList& a) {
    return one(reduceNorm(a[0].toTensor(), a[1].toDouble()));
  });
}

void registerLogical(KernelRegistry& r) {
  for (bool isAll : {true, false}) {
    r.add(isAll ? "all" : "any", [isAll](const Node&, const IValueList& a) {
      const Tensor& x = a[0].toTensor();
      std::optional<int64_t> dim;
      bool keepdim = false;
      if (a.size() == 3) {
        dim = a[1].toInt();
        keepdim = a[2].toBool();
      }
      return one(isAll ? reduceAll(x, dim, keepdim) : reduceAny(x, dim, keepdim));
    });
  }
}

void registerAlongDim(KernelRegistry& r) {
  for (bool isLog : {false, true}) {
    r.add(isLog ? "log_softmax" : "softmax", [isLog](const Node&, const IValueList& a) {
      return one(softmaxAlongDim(a[0].toTensor(), a[1].toInt(), optDType(a[2]), isLog));
    });
  }
  for (bool isProd : {false, true}) {
    r.add(isProd ? "cumprod" : "cumsum", [isProd](const Node&, const IValueList& a) {
      return one(cumulativeAlongDim(a[0].toTensor(), a[1].toInt(), optDType(a[2]), isProd));
    });
  }
}

}  // namespace

void registerReductionKernels(KernelRegistry& r) {
  registerSumMean(r);
  registerExtrema(r);
  registerStatistics(r);
  registerLogical(r);
  registerAlongDim(r);
}

}  // namespace stitch
