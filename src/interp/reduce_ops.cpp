#include "interp/reduce_ops.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "interp/dtype_dispatch.h"
#include "interp/reduce_loops.h"
#include "interp/scalar_math.h"
#include "interp/strided_loop.h"
#include "ir/reduction_dtypes.h"
#include "ir/shape_util.h"

namespace stitch {

namespace {

// Integers accumulate in int64 (wrapping like PyTorch), floats in double.
template <typename T>
using AccOf = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;

template <typename T>
struct SumReducer {
  using State = AccOf<T>;
  T* out;
  State init() const { return 0; }
  void add(State& s, T x, int64_t) const { s = wrapAdd(s, (State)x); }
  void finish(const State& s, int64_t o) const { out[o] = static_cast<T>(s); }
};

template <typename T>
struct MeanReducer {
  using State = double;
  T* out;
  int64_t count;
  State init() const { return 0; }
  void add(State& s, T x, int64_t) const { s += (double)x; }
  void finish(const State& s, int64_t o) const { out[o] = static_cast<T>(s / (double)count); }
};

template <typename T>
struct ProdReducer {
  using State = AccOf<T>;
  T* out;
  State init() const { return 1; }
  void add(State& s, T x, int64_t) const { s = wrapMul(s, (State)x); }
  void finish(const State& s, int64_t o) const { out[o] = static_cast<T>(s); }
};

// NaN counts as the extreme value (PyTorch propagates it); ties keep the
// first index because only a strictly better value replaces the current one.
template <typename T>
bool isBetter(T x, T best, Extremum which) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x)) return !std::isnan(best);
    if (std::isnan(best)) return false;
  }
  return which == Extremum::Max ? x > best : x < best;
}

template <typename T>
struct ExtremumReducer {
  struct State {
    T value{};
    int64_t index = -1;
  };
  Extremum which;
  T* values;         // may be null
  int64_t* indices;  // may be null
  State init() const { return State{}; }
  void add(State& s, T x, int64_t r) const {
    if (s.index >= 0 && !isBetter(x, s.value, which)) return;
    s.value = x;
    s.index = r;
  }
  void finish(const State& s, int64_t o) const {
    if (values) values[o] = s.value;
    if (indices) indices[o] = s.index;
  }
};

// Welford's running mean and sum of squared deviations, in double.
template <typename T>
struct VarianceReducer {
  struct State {
    int64_t n = 0;
    double mean = 0, m2 = 0;
  };
  T* out;
  bool unbiased;
  bool takeSqrt;
  State init() const { return State{}; }
  void add(State& s, T x, int64_t) const {
    s.n += 1;
    double d = (double)x - s.mean;
    s.mean += d / (double)s.n;
    s.m2 += d * ((double)x - s.mean);
  }
  void finish(const State& s, int64_t o) const {
    double divisor = (double)s.n - (unbiased ? 1.0 : 0.0);
    double var = divisor > 0 ? s.m2 / divisor : std::numeric_limits<double>::quiet_NaN();
    out[o] = static_cast<T>(takeSqrt ? std::sqrt(var) : var);
  }
};

// One pass: keeps the running max m and sum s of exp(x - m).
template <typename T>
struct LogSumExpReducer {
  struct State {
    double m = -std::numeric_limits<double>::infinity();
    double s = 0;
  };
  T* out;
  State init() const { return State{}; }
  void add(State& st, T xv, int64_t) const {
    double x = (double)xv;
    if (x == -std::numeric_limits<double>::infinity()) return;  // adds exp(-inf) = 0
    if (x == st.m) {
      st.s += 1;
    } else if (x > st.m) {
      st.s = st.s * std::exp(st.m - x) + 1;
      st.m = x;
    } else {
      st.s += std::exp(x - st.m);  // NaN x makes s NaN
    }
  }
  void finish(const State& st, int64_t o) const {
    double r = std::isinf(st.m) && !std::isnan(st.s) ? st.m : st.m + std::log(st.s);
    out[o] = static_cast<T>(r);
  }
};

template <typename T>
struct AllAnyReducer {
  using State = bool;
  bool isAll;
  bool* out;
  State init() const { return isAll; }
  void add(State& s, T x, int64_t) const {
    bool nz = x != T(0);
    s = isAll ? (s && nz) : (s || nz);
  }
  void finish(const State& s, int64_t o) const { out[o] = s; }
};

enum class NormKind { Two, One, Inf, NegInf, Zero, General };

NormKind normKind(double p) {
  if (p == 2) return NormKind::Two;
  if (p == 1) return NormKind::One;
  if (p == 0) return NormKind::Zero;
  if (std::isinf(p)) return p > 0 ? NormKind::Inf : NormKind::NegInf;
  return NormKind::General;
}

template <typename T>
struct NormReducer {
  using State = double;
  NormKind kind;
  double p;
  T* out;
  State init() const {
    return kind == NormKind::NegInf ? std::numeric_limits<double>::infinity() : 0.0;
  }
  void add(State& s, T xv, int64_t) const {
    double a = std::fabs((double)xv);
    switch (kind) {
      case NormKind::Two:
        s += a * a;
        return;
      case NormKind::One:
        s += a;
        return;
      case NormKind::Inf:
        s = (std::isnan(a) || a > s) ? a : s;
        return;
      case NormKind::NegInf:
        s = (std::isnan(a) || a < s) ? a : s;
        return;
      case NormKind::Zero:
        s += a != 0 ? 1 : 0;
        return;
      case NormKind::General:
        s += std::pow(a, p);
        return;
    }
  }
  void finish(const State& s, int64_t o) const {
    double r = s;
    if (kind == NormKind::Two) r = std::sqrt(s);
    if (kind == NormKind::General) r = std::pow(s, 1.0 / p);
    out[o] = static_cast<T>(r);
  }
};

// The normalized reduced dims and the output shape of one reduction.
struct ReducePlan {
  std::vector<int64_t> dims;
  Shape outShape;
};

ReducePlan planReduce(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  ReducePlan plan;
  plan.dims = normalizeReduceDims(dims, x.dim());
  plan.outShape = reduceShape(x.sizes(), dims, keepdim);
  return plan;
}

// Runs the reducer that make.operator()<T>(out) builds over x (already of
// the compute dtype) into a new tensor of outDType and the plan's shape.
template <template <typename> class Reducer, typename Make>
Tensor reduceInto(const Tensor& x, const ReducePlan& plan, DType outDType, Make make) {
  Tensor out = Tensor::empty(plan.outShape, outDType);
  ReduceGeometry g = makeReduceGeometry(x, plan.dims);
  dispatchDType(x.dtype(), [&]<typename T>() {
    Reducer<T> red = make.template operator()<T>(out);
    runReduction<T>(x, g, red);
  });
  return out;
}

std::vector<int64_t> singleDim(std::optional<int64_t> dim) {
  return dim ? std::vector<int64_t>{*dim} : std::vector<int64_t>{};
}

}  // namespace

Tensor asDType(const Tensor& x, DType dtype) { return x.dtype() == dtype ? x : x.to(dtype); }

Tensor reduceSum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim,
                 std::optional<DType> dtype) {
  ReducePlan plan = planReduce(x, dims, keepdim);
  Tensor in = asDType(x, sumLikeDType(x.dtype(), dtype));
  return reduceInto<SumReducer>(in, plan, in.dtype(), [&]<typename T>(const Tensor& out) {
    return SumReducer<T>{out.data<T>()};
  });
}

Tensor reduceMean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim,
                  std::optional<DType> dtype) {
  DType compute = meanDType(x.dtype(), dtype);
  ReducePlan plan = planReduce(x, dims, keepdim);
  Tensor in = asDType(x, compute);
  int64_t count = 1;
  for (int64_t d : plan.dims) count *= x.size(d);
  return reduceInto<MeanReducer>(in, plan, compute, [&]<typename T>(const Tensor& out) {
    return MeanReducer<T>{out.data<T>(), count};
  });
}

Tensor reduceProd(const Tensor& x, std::optional<int64_t> dim, bool keepdim,
                  std::optional<DType> dtype) {
  ReducePlan plan = planReduce(x, singleDim(dim), keepdim);
  Tensor in = asDType(x, sumLikeDType(x.dtype(), dtype));
  return reduceInto<ProdReducer>(in, plan, in.dtype(), [&]<typename T>(const Tensor& out) {
    return ProdReducer<T>{out.data<T>()};
  });
}

static const char* extremumName(Extremum which, const char* max, const char* min) {
  return which == Extremum::Max ? max : min;
}

Tensor reduceExtremum(const Tensor& x, Extremum which, const std::vector<int64_t>& dims,
                      bool keepdim) {
  ReducePlan plan = planReduce(x, dims, keepdim);
  checkReductionHasIdentityOrElements(extremumName(which, "amax", "amin"), x.sizes(), plan.dims,
                                      dims.empty());
  return reduceInto<ExtremumReducer>(x, plan, x.dtype(), [&]<typename T>(const Tensor& out) {
    return ExtremumReducer<T>{which, out.data<T>(), nullptr};
  });
}

Tensor reduceExtremumAll(const Tensor& x, Extremum which) {
  ReducePlan plan = planReduce(x, {}, false);
  checkReductionHasIdentityOrElements(extremumName(which, "max", "min"), x.sizes(), plan.dims,
                                      true);
  return reduceInto<ExtremumReducer>(x, plan, x.dtype(), [&]<typename T>(const Tensor& out) {
    return ExtremumReducer<T>{which, out.data<T>(), nullptr};
  });
}

std::pair<Tensor, Tensor> reduceExtremumDim(const Tensor& x, Extremum which, int64_t dim,
                                            bool keepdim) {
  ReducePlan plan = planReduce(x, {dim}, keepdim);
  checkReductionHasIdentityOrElements(extremumName(which, "max", "min"), x.sizes(), plan.dims,
                                      false);
  Tensor indices = Tensor::empty(plan.outShape, DType::i64);
  Tensor values =
      reduceInto<ExtremumReducer>(x, plan, x.dtype(), [&]<typename T>(const Tensor& out) {
        return ExtremumReducer<T>{which, out.data<T>(), indices.data<int64_t>()};
      });
  return {values, indices};
}

Tensor argExtremum(const Tensor& x, Extremum which, std::optional<int64_t> dim, bool keepdim) {
  const char* name = extremumName(which, "argmax", "argmin");
  checkArgReduceDType(x.dtype(), name);
  ReducePlan plan = planReduce(x, singleDim(dim), keepdim);
  checkReductionHasIdentityOrElements(name, x.sizes(), plan.dims, !dim.has_value());
  return reduceInto<ExtremumReducer>(x, plan, DType::i64, [&]<typename T>(const Tensor& out) {
    return ExtremumReducer<T>{which, nullptr, out.data<int64_t>()};
  });
}

Tensor reduceVariance(const Tensor& x, const std::optional<std::vector<int64_t>>& dims,
                      bool unbiased, bool keepdim, bool takeSqrt) {
  DType t = varianceDType(x.dtype());
  ReducePlan plan = planReduce(x, dims.value_or(std::vector<int64_t>{}), keepdim);
  return reduceInto<VarianceReducer>(x, plan, t, [&]<typename T>(const Tensor& out) {
    return VarianceReducer<T>{out.data<T>(), unbiased, takeSqrt};
  });
}

Tensor reduceLogSumExp(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  ReducePlan plan = planReduce(x, dims, keepdim);
  Tensor in = asDType(x, floatResultType(x.dtype()));
  return reduceInto<LogSumExpReducer>(in, plan, in.dtype(), [&]<typename T>(const Tensor& out) {
    return LogSumExpReducer<T>{out.data<T>()};
  });
}

static Tensor reduceAllAny(const Tensor& x, std::optional<int64_t> dim, bool keepdim, bool isAll) {
  ReducePlan plan = planReduce(x, singleDim(dim), keepdim);
  Tensor out = Tensor::empty(plan.outShape, DType::b8);
  ReduceGeometry g = makeReduceGeometry(x, plan.dims);
  dispatchDType(x.dtype(), [&]<typename T>() {
    runReduction<T>(x, g, AllAnyReducer<T>{isAll, out.data<bool>()});
  });
  return out;
}

Tensor reduceAll(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return reduceAllAny(x, dim, keepdim, true);
}

Tensor reduceAny(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return reduceAllAny(x, dim, keepdim, false);
}

Tensor reduceNorm(const Tensor& x, double p) {
  DType t = normDType(x.dtype());
  ReducePlan plan = planReduce(x, {}, false);
  NormKind kind = normKind(p);
  return reduceInto<NormReducer>(x, plan, t, [&]<typename T>(const Tensor& out) {
    return NormReducer<T>{kind, p, out.data<T>()};
  });
}

// A view of t broadcast to `shape` (stride 0 along broadcast dims).
static Tensor broadcastView(const Tensor& t, const Shape& shape) {
  Shape strides(shape.size(), 0);
  size_t lead = shape.size() - t.sizes().size();
  for (size_t d = 0; d < t.sizes().size(); ++d)
    strides[lead + d] = t.size((int64_t)d) == 1 ? 0 : t.stride((int64_t)d);
  return t.asStrided(shape, strides, t.offset());
}

Tensor binaryExtremum(const Tensor& a, const Tensor& b, Extremum which) {
  DType t = resultType({tensorArg(a.dtype(), a.dim()), tensorArg(b.dtype(), b.dim())});
  Shape shape = broadcastShapes(a.sizes(), b.sizes());
  Tensor av = broadcastView(asDType(a, t), shape);
  Tensor bv = broadcastView(asDType(b, t), shape);
  Tensor out = Tensor::empty(shape, t);
  dispatchDType(t, [&]<typename T>() {
    forEachRow<3>(
        shape, {&out.strides(), &av.strides(), &bv.strides()},
        {out.offset(), av.offset(), bv.offset()},
        [&](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& st) {
          T* o = elemPtr<T>(out, off[0]);
          const T* x = elemPtr<T>(av, off[1]);
          const T* y = elemPtr<T>(bv, off[2]);
          for (int64_t i = 0; i < n; ++i) {
            T u = x[i * st[1]], v = y[i * st[2]];
            o[i * st[0]] = isBetter(v, u, which) ? v : u;
          }
        });
  });
  return out;
}

}  // namespace stitch
