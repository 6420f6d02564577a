// Containers (lists, tuples), Python scalar arithmetic with Python's
// semantics, and tensor -> Python scalar conversions.
#include <cmath>
#include <limits>

#include "interp/kernel_registry.h"
#include "interp/scalar_math.h"
#include "ir/graph.h"

namespace stitch {

namespace {

using Args = const IValueList&;

// Python's index wrapping; out of range is a run-time failure.
size_t wrapIndex(int64_t index, size_t size, const char* what) {
  int64_t n = (int64_t)size;
  int64_t i = index < 0 ? index + n : index;
  if (i < 0 || i >= n) throw RuntimeFailure(errorMessage(what, " index out of range"));
  return (size_t)i;
}

// Python's slice.indices(): clamps start/end for either step sign.
IValueList sliceList(const IValueList& elems, const IValue& startV, const IValue& endV,
                     int64_t step) {
  if (step == 0) throw RuntimeFailure("slice step cannot be zero");
  int64_t n = (int64_t)elems.size();
  auto adjust = [&](const IValue& v, int64_t dflt) {
    if (v.isNone()) return dflt;
    int64_t i = v.toInt();
    if (i < 0) i += n;
    if (step > 0) return std::clamp<int64_t>(i, 0, n);
    return std::clamp<int64_t>(i, -1, n - 1);
  };
  int64_t start = adjust(startV, step > 0 ? 0 : n - 1);
  int64_t end = adjust(endV, step > 0 ? n : -1);
  IValueList out;
  for (int64_t i = start; step > 0 ? i < end : i > end; i += step) out.push_back(elems[i]);
  return out;
}

IValueList unpack(const Node& node, const IValueList& elems) {
  size_t want = node.outputs().size();
  if (elems.size() > want)
    throw RuntimeFailure(errorMessage("too many values to unpack (expected ", want, ")"));
  if (elems.size() < want) {
    throw RuntimeFailure(errorMessage("not enough values to unpack (expected ", want, ", got ",
                                      elems.size(), ")"));
  }
  return elems;
}

void registerContainers(KernelRegistry& r) {
  r.add("prim.list_construct", [](const Node&, Args a) { return IValueList{IValue::list(a)}; });
  r.add("prim.list_unpack", [](const Node& n, Args a) { return unpack(n, a.at(0).toList()); });
  r.add("prim.tuple_construct", [](const Node&, Args a) { return IValueList{IValue::tuple(a)}; });
  r.add("prim.tuple_unpack", [](const Node& n, Args a) { return unpack(n, a.at(0).toList()); });
  r.add("prim.tuple_index", [](const Node&, Args a) {
    const IValueList& elems = a.at(0).toList();
    return IValueList{elems[wrapIndex(a.at(1).toInt(), elems.size(), "tuple")]};
  });
  // Read only on paths where a real value replaced it first.
  r.add("prim.uninitialized", [](const Node&, Args) { return IValueList{IValue()}; });
  r.add("prim.dtype", [](const Node&, Args a) { return IValueList{IValue(a.at(0).toTensor().dtype())}; });
  r.add("prim.raise", [](const Node&, Args a) -> IValueList {
    throw RuntimeFailure(a.at(0).isStr() ? a.at(0).toStr() : a.at(0).str());
  });
  r.add("list.get", [](const Node&, Args a) {
    const IValueList& elems = a.at(0).toList();
    return IValueList{elems[wrapIndex(a.at(1).toInt(), elems.size(), "list")]};
  });
  r.add("list.set", [](const Node&, Args a) {
    IValueList elems = a.at(0).toList();
    elems[wrapIndex(a.at(1).toInt(), elems.size(), "list assignment")] = a.at(2);
    return IValueList{IValue::list(std::move(elems))};
  });
  r.add("list.append", [](const Node&, Args a) {
    IValueList elems = a.at(0).toList();
    elems.push_back(a.at(1));
    return IValueList{IValue::list(std::move(elems))};
  });
  r.add("list.len", [](const Node&, Args a) {
    return IValueList{IValue((int64_t)a.at(0).toList().size())};
  });
  r.add("list.slice", [](const Node&, Args a) {
    return IValueList{IValue::list(sliceList(a.at(0).toList(), a.at(1), a.at(2), a.at(3).toInt()))};
  });
  r.add("list.add", [](const Node&, Args a) {
    IValueList elems = a.at(0).toList();
    for (const IValue& v : a.at(1).toList()) elems.push_back(v);
    return IValueList{IValue::list(std::move(elems))};
  });
}

// Python ints (bools count as ints) or floats.
bool anyFloat(const IValue& a, const IValue& b) { return a.isDouble() || b.isDouble(); }

[[noreturn]] void divisionByZero() { throw RuntimeFailure("division by zero"); }

IValue scalarBinary(const std::string& op, const IValue& a, const IValue& b) {
  bool isFloat = anyFloat(a, b);
  if (op == "truediv") {
    if (b.toDouble() == 0) divisionByZero();
    return a.toDouble() / b.toDouble();
  }
  if (isFloat) {
    double x = a.toDouble(), y = b.toDouble();
    if (op == "add") return x + y;
    if (op == "sub") return x - y;
    if (op == "mul") return x * y;
    if (op == "floordiv") {
      if (y == 0) divisionByZero();
      return floorDivFloat(x, y);
    }
    if (op == "mod") {
      if (y == 0) divisionByZero();
      return remainderFloat(x, y);
    }
    if (op == "pow") {
      if (x == 0 && y < 0) throw RuntimeFailure("0.0 cannot be raised to a negative power");
      return std::pow(x, y);
    }
    if (op == "min") return std::isnan(x) || std::isnan(y) ? std::nan("") : std::min(x, y);
    if (op == "max") return std::isnan(x) || std::isnan(y) ? std::nan("") : std::max(x, y);
  } else {
    int64_t x = a.toInt(), y = b.toInt();
    if (op == "add") return wrapAdd(x, y);
    if (op == "sub") return wrapSub(x, y);
    if (op == "mul") return wrapMul(x, y);
    if (op == "floordiv") {
      if (y == 0) divisionByZero();
      return floorDivInt(x, y);
    }
    if (op == "mod") {
      if (y == 0) divisionByZero();
      return remainderInt(x, y);
    }
    if (op == "pow") {
      if (y >= 0) return intPow(x, y);
      if (x == 0) throw RuntimeFailure("0.0 cannot be raised to a negative power");
      return std::pow((double)x, (double)y);
    }
    if (op == "min") return std::min(x, y);
    if (op == "max") return std::max(x, y);
  }
  STITCH_ASSERT(false, "unknown scalar op ", op);
  return IValue();
}

bool scalarCompare(const std::string& op, const IValue& a, const IValue& b) {
  if (anyFloat(a, b)) {
    double x = a.toDouble(), y = b.toDouble();
    if (op == "eq") return x == y;
    if (op == "ne") return x != y;
    if (op == "lt") return x < y;
    if (op == "le") return x <= y;
    if (op == "gt") return x > y;
    return x >= y;
  }
  int64_t x = a.toInt(), y = b.toInt();
  if (op == "eq") return x == y;
  if (op == "ne") return x != y;
  if (op == "lt") return x < y;
  if (op == "le") return x <= y;
  if (op == "gt") return x > y;
  return x >= y;
}

int64_t floatToInt(double d) {
  if (std::isnan(d)) throw RuntimeFailure("cannot convert float NaN to integer");
  if (std::isinf(d)) throw RuntimeFailure("cannot convert float infinity to integer");
  return (int64_t)std::trunc(d);
}

IValue toIntValue(const IValue& v) { return v.isDouble() ? floatToInt(v.toDouble()) : v.toInt(); }

double mathArg(const std::string& op, const IValue& v) {
  double x = v.toDouble();
  if ((op == "sqrt" && x < 0) || (op == "log" && x <= 0)) throw RuntimeFailure("math domain error");
  return x;
}

void registerScalars(KernelRegistry& r) {
  for (const char* op : {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "min", "max"}) {
    std::string name = op;
    r.add(std::string("scalar.") + op,
          [name](const Node&, Args a) { return IValueList{scalarBinary(name, a.at(0), a.at(1))}; });
  }
  for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    std::string name = op;
    r.add(std::string("scalar.") + op, [name](const Node&, Args a) {
      return IValueList{IValue(scalarCompare(name, a.at(0), a.at(1)))};
    });
  }
  r.add("scalar.neg", [](const Node&, Args a) {
    if (a.at(0).isDouble()) return IValueList{IValue(-a.at(0).toDouble())};
    return IValueList{IValue(wrapNeg(a.at(0).toInt()))};
  });
  r.add("scalar.abs", [](const Node&, Args a) {
    if (a.at(0).isDouble()) return IValueList{IValue(std::fabs(a.at(0).toDouble()))};
    int64_t x = a.at(0).toInt();
    return IValueList{IValue(x < 0 ? wrapNeg(x) : x)};
  });
  r.add("scalar.not", [](const Node&, Args a) { return IValueList{IValue(!a.at(0).toBool())}; });
  r.add("scalar.and", [](const Node&, Args a) {
    return IValueList{IValue(a.at(0).toBool() && a.at(1).toBool())};
  });
  r.add("scalar.or", [](const Node&, Args a) {
    return IValueList{IValue(a.at(0).toBool() || a.at(1).toBool())};
  });
  r.add("scalar.to_int", [](const Node&, Args a) { return IValueList{toIntValue(a.at(0))}; });
  r.add("scalar.to_float", [](const Node&, Args a) { return IValueList{IValue(a.at(0).toDouble())}; });
  r.add("scalar.to_bool", [](const Node&, Args a) { return IValueList{IValue(a.at(0).toBool())}; });
  r.add("scalar.is_none", [](const Node&, Args a) { return IValueList{IValue(a.at(0).isNone())}; });
  r.add("scalar.sqrt", [](const Node&, Args a) { return IValueList{IValue(std::sqrt(mathArg("sqrt", a.at(0))))}; });
  r.add("scalar.exp", [](const Node&, Args a) { return IValueList{IValue(std::exp(a.at(0).toDouble()))}; });
  r.add("scalar.log", [](const Node&, Args a) { return IValueList{IValue(std::log(mathArg("log", a.at(0))))}; });
  r.add("scalar.sin", [](const Node&, Args a) { return IValueList{IValue(std::sin(a.at(0).toDouble()))}; });
  r.add("scalar.cos", [](const Node&, Args a) { return IValueList{IValue(std::cos(a.at(0).toDouble()))}; });
  r.add("scalar.tanh", [](const Node&, Args a) { return IValueList{IValue(std::tanh(a.at(0).toDouble()))}; });
  r.add("scalar.floor", [](const Node&, Args a) {
    if (!a.at(0).isDouble()) return IValueList{IValue(a.at(0).toInt())};
    return IValueList{IValue(floatToInt(std::floor(a.at(0).toDouble())))};
  });
  r.add("scalar.ceil", [](const Node&, Args a) {
    if (!a.at(0).isDouble()) return IValueList{IValue(a.at(0).toInt())};
    return IValueList{IValue(floatToInt(std::ceil(a.at(0).toDouble())))};
  });
}

const Tensor& singleElement(const IValue& v) {
  const Tensor& t = v.toTensor();
  if (t.numel() != 1) {
    // A shape error (exit 2), even when the shape came from data.
    throw UserError(errorMessage("a Tensor with ", t.numel(), " elements cannot be converted to Scalar"));
  }
  return t;
}

void registerItems(KernelRegistry& r) {
  r.add("item.int", [](const Node&, Args a) {
    const Tensor& t = singleElement(a.at(0));
    if (isFloating(t.dtype())) return IValueList{IValue(floatToInt(t.getDouble(0)))};
    return IValueList{IValue(t.getInt(0))};
  });
  r.add("item.float", [](const Node&, Args a) {
    return IValueList{IValue(singleElement(a.at(0)).getDouble(0))};
  });
  r.add("item.bool", [](const Node&, Args a) {
    return IValueList{IValue(singleElement(a.at(0)).getDouble(0) != 0)};
  });
}

}  // namespace

void registerPrimKernels(KernelRegistry& r) {
  registerContainers(r);
  registerScalars(r);
  registerItems(r);
}

}  // namespace stitch
