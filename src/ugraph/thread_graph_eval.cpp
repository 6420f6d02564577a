#include "ugraph/thread_graph_eval.h"

#include <cmath>
#include <algorithm>
#include <cstring>
#include <typeinfo>
#include <type_traits>

#include "common/error.h"
#include "interp/dtype_dispatch.h"  // header-only, like scalar_math.h
#include "interp/scalar_math.h"  // header-only: the interpreter's element semantics
#include "interp/unary_math.h"   // header-only: the interpreter's exp / tanh / sigmoid

namespace stitch {

namespace {

struct Val {
  double f = 0;
  int64_t i = 0;
};

template <typename T>
T as(Val v, DType src) {
  if (isFloating(src)) {
    if constexpr (std::is_same_v<T, bool>) return v.f != 0;
    else return static_cast<T>(v.f);
  }
  return static_cast<T>(v.i);
}

template <typename T>
Val make(T x) {
  Val v;
  if constexpr (std::is_floating_point_v<T>) v.f = (double)x;
  else v.i = (int64_t)x;
  return v;
}

template <typename T>
T unaryOp(AluOp op, T x) {
  constexpr bool fl = std::is_floating_point_v<T>;
  switch (op) {
    case AluOp::Neg:
      if constexpr (std::is_same_v<T, bool>) return x;
      else return wrapNeg(x);
    case AluOp::LogicalNot: return !x;
    case AluOp::BitNot:
      if constexpr (std::is_same_v<T, bool>) return !x;
      else if constexpr (fl) break;
      else return ~x;
    case AluOp::Abs:
      if constexpr (kWrapping<T>) return x < 0 ? wrapNeg(x) : x;
      else if constexpr (fl) return std::abs(x);
      else return x;
    case AluOp::Sign:
      if constexpr (std::is_same_v<T, bool>) return x;
      else return T((T(0) < x) - (x < T(0)));
    case AluOp::Relu: return x < T(0) ? T(0) : x;
    case AluOp::IsNan: return x != x;
    default: break;
  }
  if constexpr (fl) {
    switch (op) {
      case AluOp::Floor: return std::floor(x);
      case AluOp::Ceil: return std::ceil(x);
      case AluOp::Round: return std::nearbyint(x);
      case AluOp::Trunc: return std::trunc(x);
      // The interpreter's functions (interp/unary_math.h), bit for bit.
      case AluOp::Exp: case AluOp::ExpNonPos: return expOf(x);
      case AluOp::Exp2: return exp2Of(x);
      case AluOp::Expm1: return expm1Of(x);
      case AluOp::Log: return std::log(x);
      case AluOp::Log2: return std::log2(x);
      case AluOp::Log1p: return std::log1p(x);
      case AluOp::Sqrt: return std::sqrt(x);
      case AluOp::Rsqrt: return T(1) / std::sqrt(x);
      case AluOp::Reciprocal: return T(1) / x;
      case AluOp::Sin: return std::sin(x);
      case AluOp::Cos: return std::cos(x);
      case AluOp::Tan: return std::tan(x);
      case AluOp::Asin: return std::asin(x);
      case AluOp::Acos: return std::acos(x);
      case AluOp::Atan: return std::atan(x);
      case AluOp::Sinh: return std::sinh(x);
      case AluOp::Cosh: return std::cosh(x);
      case AluOp::Tanh: return tanhOf(x);
      case AluOp::Sigmoid: return sigmoidOf(x);
      case AluOp::Silu: return siluOf(x);
      case AluOp::Erf: return std::erf(x);
      case AluOp::GeluErf: return x * T(0.5) * (T(1) + std::erf(x * T(M_SQRT1_2)));
      case AluOp::GeluTanh: return geluTanhOf(x);
      default: break;
    }
  } else {
    if (op == AluOp::Floor || op == AluOp::Ceil || op == AluOp::Round || op == AluOp::Trunc) return x;
  }
  STITCH_ASSERT(false, "evaluator: ", aluOpName(op), " on ", typeid(T).name());
  return x;
}

template <typename T>
T binaryOp(AluOp op, T a, T b) {
  constexpr bool fl = std::is_floating_point_v<T>;
  constexpr bool boolean = std::is_same_v<T, bool>;
  switch (op) {
    case AluOp::Add:
      if constexpr (boolean) return a || b;
      else return wrapAdd(a, b);
    case AluOp::Sub:
      if constexpr (boolean) return a != b;
      else return wrapSub(a, b);
    case AluOp::Mul: return wrapMul(a, b);
    case AluOp::Div:
      if constexpr (fl) return a / b;
      else if constexpr (boolean) return a;
      else return b == 0 ? T(0) : (b == -1 ? wrapNeg(a) : T(a / b));
    case AluOp::Mod:
      if constexpr (fl) return std::fmod(a, b);
      else if constexpr (boolean) return false;
      else return (b == 0 || b == -1) ? T(0) : T(a % b);
    case AluOp::FloorDiv:
      if constexpr (fl) return floorDivFloat(a, b);
      else if constexpr (boolean) return a;
      else return b == 0 ? T(0) : floorDivInt(a, b);
    case AluOp::Remainder:
      if constexpr (fl) return remainderFloat(a, b);
      else if constexpr (boolean) return false;
      else return b == 0 ? T(0) : remainderInt(a, b);
    case AluOp::Pow:
      if constexpr (fl) return std::pow(a, b);
      else return intPow(a, b);
    case AluOp::Atan2:
      if constexpr (fl) return std::atan2(a, b);
      else break;
    case AluOp::Max: return maxPropagateNan(a, b);
    case AluOp::Min: return minPropagateNan(a, b);
    case AluOp::LogicalAnd: return (a != T(0)) && (b != T(0));
    case AluOp::LogicalOr: return (a != T(0)) || (b != T(0));
    case AluOp::LogicalXor: return (a != T(0)) != (b != T(0));
    case AluOp::BitAnd:
      if constexpr (fl) break;
      else return a & b;
    case AluOp::BitOr:
      if constexpr (fl) break;
      else return a | b;
    case AluOp::BitXor:
      if constexpr (fl) break;
      else return a ^ b;
    default: break;
  }
  STITCH_ASSERT(false, "evaluator: ", aluOpName(op), " on ", typeid(T).name());
  return a;
}

template <typename T>
bool compareOp(AluOp op, T a, T b) {
  switch (op) {
    case AluOp::CmpLT: return a < b;
    case AluOp::CmpLE: return a <= b;
    case AluOp::CmpEQ: return a == b;
    case AluOp::CmpNE: return a != b;
    default: break;
  }
  STITCH_ASSERT(false, "not a comparison");
  return false;
}

bool isCompare(AluOp op) {
  return op == AluOp::CmpLT || op == AluOp::CmpLE || op == AluOp::CmpEQ || op == AluOp::CmpNE;
}

class Evaluator {
 public:
  Evaluator(const ThreadGraph& tg, const std::vector<HostBuffer>& inputs,
            const std::vector<HostScalar>& params)
      : tg_(tg), inputs_(inputs), params_(params) {
    const auto& nodes = tg.nodes();
    free_.resize(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      const TNode& n = nodes[i];
      if (n.op == TOp::ReduceVar) free_[i].push_back((int)n.index);
      for (int a : n.args)
        for (int r : free_[a])
          if (std::find(free_[i].begin(), free_[i].end(), r) == free_[i].end()) free_[i].push_back(r);
      if (n.op == TOp::Reduce || n.op == TOp::Fill)
        for (int r : n.reduceVars) free_[i].erase(std::remove(free_[i].begin(), free_[i].end(), r), free_[i].end());
    }
    iter_.assign(tg.iterShape().size(), 0);
    reduceVals_.assign(tg.reduceExtents().size(), 0);
  }

  void setElement(int64_t flat) {
    const auto& shape = tg_.iterShape();
    for (size_t d = shape.size(); d-- > 0;) {
      iter_[d] = flat % shape[d];
      flat /= shape[d];
    }
    cache_.assign(tg_.nodes().size(), Val{});
    cached_.assign(tg_.nodes().size(), false);
  }

  Val eval(int id) {
    bool cacheable = free_[id].empty();
    if (cacheable && cached_[id]) return cache_[id];
    Val v = compute(tg_.node(id));
    if (cacheable) {
      cache_[id] = v;
      cached_[id] = true;
    }
    return v;
  }

 private:
  Val compute(const TNode& n) {
    switch (n.op) {
      case TOp::IterVar: return make<int64_t>(iter_.at(n.index));
      case TOp::ReduceVar: return make<int64_t>(reduceVals_.at(n.index));
      case TOp::Const: return isFloating(n.dtype) ? Val{n.fval, 0} : Val{0, n.ival};
      case TOp::Param: {
        const HostScalar& p = params_.at(n.index);
        return isFloating(n.dtype) ? Val{p.f, 0} : Val{0, n.dtype == DType::b8 ? (p.i != 0) : p.i};
      }
      case TOp::Load: return load(n);
      case TOp::Cast: {
        DType src = tg_.node(n.args[0]).dtype;
        Val x = eval(n.args[0]);
        return dispatchDType(n.dtype, [&]<typename T>() { return make<T>(as<T>(x, src)); });
      }
      case TOp::Alu: return alu(n);
      case TOp::Reduce: return reduce(n);
      case TOp::Fill: return Val{};  // its elements are computed where they are read
      case TOp::LocalLoad: return localLoad(n);
      case TOp::BlockIndex: STITCH_ASSERT(false, "evaluator: a block index outside a column kernel's partials"); break;
    }
    return Val{};
  }

  // The buffer's element: the fill's body at the tile point the index names.
  Val localLoad(const TNode& n) {
    const TNode& fill = tg_.node(n.args[0]);
    int64_t rest = eval(n.args[1]).i, total = 1;
    for (int r : fill.reduceVars) total *= tg_.reduceExtent(r);
    STITCH_ASSERT(rest >= 0 && rest < total, "evaluator: local load at ", rest, " outside its ", total, " elements");
    for (size_t v = fill.reduceVars.size(); v-- > 0;) {
      int64_t extent = tg_.reduceExtent(fill.reduceVars[v]);
      reduceVals_[fill.reduceVars[v]] = rest % extent;
      rest /= extent;
    }
    return eval(fill.args[0]);
  }

  Val load(const TNode& n) {
    const HostBuffer& b = inputs_.at(n.index);
    int64_t at = eval(n.args[0]).i;
    STITCH_ASSERT(at >= 0 && at < b.numel, "evaluator: load of input ", n.index, " at ", at,
                  " outside its ", b.numel, " elements");
    STITCH_ASSERT(b.dtype == n.dtype, "evaluator: load dtype differs from the buffer's");
    return dispatchDType(b.dtype, [&]<typename T>() { return make<T>(static_cast<const T*>(b.data)[at]); });
  }

  Val alu(const TNode& n) {
    std::vector<Val> a;
    for (int x : n.args) a.push_back(eval(x));
    if (n.alu == AluOp::Where) {
      DType t = n.dtype;
      bool c = as<bool>(a[0], tg_.node(n.args[0]).dtype);
      (void)t;
      return c ? a[1] : a[2];
    }
    DType in = tg_.node(n.args[0]).dtype;
    if (aluOpArity(n.alu) == 1) {
      return dispatchDType(in, [&]<typename T>() {
        T r = unaryOp<T>(n.alu, as<T>(a[0], in));
        return dispatchDType(n.dtype, [&]<typename U>() { return make<U>(static_cast<U>(r)); });
      });
    }
    DType in2 = tg_.node(n.args[1]).dtype;
    return dispatchDType(in, [&]<typename T>() {
      T x = as<T>(a[0], in), y = as<T>(a[1], in2);
      if (isCompare(n.alu)) return make<bool>(compareOp<T>(n.alu, x, y));
      T r = binaryOp<T>(n.alu, x, y);
      return dispatchDType(n.dtype, [&]<typename U>() { return make<U>(static_cast<U>(r)); });
    });
  }

  Val reduce(const TNode& n) {
    std::vector<int64_t> extents;
    int64_t total = 1;
    for (int r : n.reduceVars) {
      extents.push_back(tg_.reduceExtent(r));
      total *= extents.back();
    }
    DType acc = n.dtype, bodyType = tg_.node(n.args[0]).dtype;
    return dispatchDType(acc, [&]<typename T>() {
      T s = n.reduce == ReduceOp::Prod ? T(1) : T(0);
      for (int64_t k = 0; k < total; ++k) {
        int64_t rest = k;
        for (size_t v = extents.size(); v-- > 0;) {
          reduceVals_[n.reduceVars[v]] = rest % extents[v];
          rest /= extents[v];
        }
        T x = as<T>(eval(n.args[0]), bodyType);
        switch (n.reduce) {
          case ReduceOp::Sum: s = binaryOp<T>(AluOp::Add, s, x); break;
          case ReduceOp::Prod: s = binaryOp<T>(AluOp::Mul, s, x); break;
          case ReduceOp::Max: s = k == 0 ? x : maxPropagateNan(s, x); break;
          case ReduceOp::Min: s = k == 0 ? x : minPropagateNan(s, x); break;
        }
      }
      return make<T>(s);
    });
  }

  const ThreadGraph& tg_;
  const std::vector<HostBuffer>& inputs_;
  const std::vector<HostScalar>& params_;
  std::vector<std::vector<int>> free_;  // reduce variables a node depends on, unbound
  std::vector<int64_t> iter_, reduceVals_;
  std::vector<Val> cache_;
  std::vector<bool> cached_;
};

}  // namespace

void evaluateThreadGraph(const Kernel& kernel, const std::vector<HostBuffer>& outputs,
                         const std::vector<HostBuffer>& inputs, const std::vector<HostScalar>& params) {
  STITCH_ASSERT(kernel.kind == KernelKind::GraphDefined, "evaluateThreadGraph of a predefined kernel");
  const ThreadGraph& tg = kernel.block.thread;
  STITCH_ASSERT(inputs.size() == kernel.inputs.size(), "evaluator: ", inputs.size(), " input buffers for ",
                kernel.inputs.size(), " inputs");
  STITCH_ASSERT(params.size() == kernel.params.size(), "evaluator: param count");
  Evaluator ev(tg, inputs, params);
  int64_t count = 1;
  for (int64_t s : tg.iterShape()) count *= s;
  for (int64_t e = 0; e < count; ++e) {
    ev.setElement(e);
    for (const ThreadGraph::Store& s : tg.stores()) {
      const HostBuffer& out = outputs.at(s.output);
      STITCH_ASSERT(out.numel == count, "evaluator: output buffer size");
      DType src = tg.node(s.value).dtype;
      Val v = ev.eval(s.value);
      dispatchDType(out.dtype, [&]<typename T>() {
        static_cast<T*>(out.data)[e] = as<T>(v, src);
        return 0;
      });
    }
  }
}

}  // namespace stitch
