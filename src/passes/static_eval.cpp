#include "passes/static_eval.h"

#include <cmath>

namespace stitch {

// ---- PropagatedValues -----------------------------------------------------------

const Value* PropagatedValues::resolve(const Value* v) const {
  for (auto it = aliases_.find(v); it != aliases_.end(); it = aliases_.find(v)) v = it->second;
  return v;
}

const Constant* PropagatedValues::constant(const Value* v) const {
  v = resolve(v);
  if (const Constant* c = constantOf(v)) return c;
  auto it = constants_.find(v);
  return it == constants_.end() ? nullptr : &it->second;
}

std::optional<PartialIntList> PropagatedValues::intList(const Value* v) const {
  v = resolve(v);
  auto it = lists_.find(v);
  if (it != lists_.end()) return it->second;
  return StaticValues::intList(v);
}

std::optional<std::vector<TypePtr>> PropagatedValues::listElementTypes(const Value* v) const {
  return StaticValues::listElementTypes(resolve(v));
}

void PropagatedValues::set(const Value* v, StaticValue s) {
  constants_.erase(v);
  lists_.erase(v);
  aliases_.erase(v);
  if (auto* source = std::get_if<const Value*>(&s)) {
    if (resolve(*source) != v) aliases_[v] = *source;
    return;
  }
  if (auto* c = std::get_if<Constant>(&s)) {
    constants_[v] = *c;
    return;
  }
  auto* l = std::get_if<PartialIntList>(&s);
  if (!l) return;
  bool complete = true;
  for (const auto& e : *l) complete = complete && e.has_value();
  if (!complete) {
    lists_[v] = *l;
    return;
  }
  std::vector<int64_t> items;
  for (const auto& e : *l) items.push_back(*e);
  constants_[v] = Constant(items);
}

// ---- evaluation -------------------------------------------------------------------

namespace {

using Result = std::vector<StaticValue>;
const StaticValue kUnknown = std::monostate{};

bool isNumeric(const Constant* c) { return c && (c->isInt() || c->isBool() || c->isFloat()); }

int64_t asInt(const Constant& c) { return c.isBool() ? (int64_t)c.toBool() : c.toInt(); }

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t floorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

std::optional<int64_t> intPow(int64_t base, int64_t exp) {
  if (exp < 0) return std::nullopt;
  int64_t r = 1;
  for (int64_t i = 0; i < exp && i < 64; ++i) r *= base;
  return r;
}

// Python's semantics of binary arithmetic on int/float/bool scalars.
StaticValue arith(const std::string& op, const Constant& a, const Constant& b) {
  bool useFloat = a.isFloat() || b.isFloat();
  if (op == "truediv") {
    if (b.toDouble() == 0) return kUnknown;
    return Constant(a.toDouble() / b.toDouble());
  }
  if (!useFloat) {
    int64_t x = asInt(a), y = asInt(b);
    if (op == "add") return Constant(x + y);
    if (op == "sub") return Constant(x - y);
    if (op == "mul") return Constant(x * y);
    if (op == "min") return Constant(std::min(x, y));
    if (op == "max") return Constant(std::max(x, y));
    if (y == 0 && (op == "floordiv" || op == "mod")) return kUnknown;
    if (op == "floordiv") return Constant(floorDiv(x, y));
    if (op == "mod") return Constant(floorMod(x, y));
    if (op == "pow") {
      if (auto p = intPow(x, y)) return Constant(*p);
      if (x == 0) return kUnknown;
      return Constant(std::pow((double)x, (double)y));
    }
    return kUnknown;
  }
  double x = a.toDouble(), y = b.toDouble();
  if (op == "add") return Constant(x + y);
  if (op == "sub") return Constant(x - y);
  if (op == "mul") return Constant(x * y);
  if (op == "min") return Constant(std::min(x, y));
  if (op == "max") return Constant(std::max(x, y));
  if (y == 0 && (op == "floordiv" || op == "mod")) return kUnknown;
  if (op == "floordiv") return Constant(std::floor(x / y));
  if (op == "mod") {
    double r = std::fmod(x, y);
    return Constant(r != 0 && ((r < 0) != (y < 0)) ? r + y : r);
  }
  if (op == "pow") {
    if (x < 0 && y != std::floor(y)) return kUnknown;  // complex in Python
    if (x == 0 && y < 0) return kUnknown;
    return Constant(std::pow(x, y));
  }
  return kUnknown;
}

StaticValue compare(const std::string& op, const Constant& a, const Constant& b) {
  double x = a.toDouble(), y = b.toDouble();
  if (!a.isFloat() && !b.isFloat()) {
    int64_t i = asInt(a), j = asInt(b);
    x = (double)((i > j) - (i < j)), y = 0;  // exact for large ints
  }
  if (op == "eq") return Constant(x == y);
  if (op == "ne") return Constant(x != y);
  if (op == "lt") return Constant(x < y);
  if (op == "le") return Constant(x <= y);
  if (op == "gt") return Constant(x > y);
  return Constant(x >= y);
}

StaticValue unaryScalar(const std::string& op, const Constant& a) {
  if (op == "neg") return a.isFloat() ? Constant(-a.toDouble()) : Constant(-asInt(a));
  if (op == "abs") return a.isFloat() ? Constant(std::fabs(a.toDouble())) : Constant((int64_t)std::llabs(asInt(a)));
  if (op == "to_int") {
    if (!a.isFloat()) return Constant(asInt(a));
    double d = a.toDouble();
    return std::isfinite(d) ? StaticValue(Constant((int64_t)std::trunc(d))) : kUnknown;
  }
  if (op == "to_float") return Constant(a.toDouble());
  if (op == "to_bool") return Constant(a.toDouble() != 0);
  if (op == "not") return a.isBool() ? StaticValue(Constant(!a.toBool())) : kUnknown;
  if (op == "floor" || op == "ceil") {
    double d = op == "floor" ? std::floor(a.toDouble()) : std::ceil(a.toDouble());
    return std::isfinite(d) ? StaticValue(Constant((int64_t)d)) : kUnknown;
  }
  double d = a.toDouble();
  if (op == "sqrt") return d < 0 ? kUnknown : Constant(std::sqrt(d));
  if (op == "log") return d <= 0 ? kUnknown : Constant(std::log(d));
  if (op == "exp") return Constant(std::exp(d));
  if (op == "sin") return Constant(std::sin(d));
  if (op == "cos") return Constant(std::cos(d));
  if (op == "tanh") return Constant(std::tanh(d));
  return kUnknown;
}

StaticValue scalarOp(const Node& n, const PropagatedValues& known) {
  std::string op = n.kind().substr(std::string("scalar.").size());
  if (op == "is_none") {
    const TypePtr& t = n.input(0)->type();
    if (known.isNone(n.input(0))) return Constant(true);
    return t ? StaticValue(Constant(false)) : kUnknown;
  }
  std::vector<const Constant*> ins;
  for (const Value* v : n.inputs()) {
    const Constant* c = known.constant(v);
    if (!isNumeric(c)) return kUnknown;
    ins.push_back(c);
  }
  if (op == "and") return ins[0]->isBool() && ins[1]->isBool() ? StaticValue(Constant(ins[0]->toBool() && ins[1]->toBool())) : kUnknown;
  if (op == "or") return ins[0]->isBool() && ins[1]->isBool() ? StaticValue(Constant(ins[0]->toBool() || ins[1]->toBool())) : kUnknown;
  if (ins.size() == 1) return unaryScalar(op, *ins[0]);
  if (op == "eq" || op == "ne" || op == "lt" || op == "le" || op == "gt" || op == "ge")
    return compare(op, *ins[0], *ins[1]);
  return arith(op, *ins[0], *ins[1]);
}

const std::optional<std::vector<int64_t>>& shapeOf(const Value* v) {
  static const std::optional<std::vector<int64_t>> none;
  return v->type() && v->type()->isTensor() ? v->type()->shape() : none;
}

std::optional<int64_t> normalizedIndex(int64_t i, size_t size) {
  int64_t n = (int64_t)size;
  if (i < -n || i >= n) return std::nullopt;
  return i < 0 ? i + n : i;
}

StaticValue tensorQuery(const Node& n, const PropagatedValues& known) {
  const auto& shape = shapeOf(n.input(0));
  if (!shape) return kUnknown;
  if (n.is("dim")) return Constant((int64_t)shape->size());
  if (n.is("numel")) {
    int64_t total = 1;
    for (int64_t d : *shape) {
      if (d < 0) return kUnknown;
      total *= d;
    }
    return Constant(total);
  }
  if (n.inputs().size() == 1) {  // size(x): the whole shape
    PartialIntList dims;
    for (int64_t d : *shape) dims.push_back(d < 0 ? std::nullopt : std::optional<int64_t>(d));
    return dims;
  }
  auto dim = known.intValue(n.input(1));
  if (!dim) return kUnknown;
  auto idx = normalizedIndex(*dim, shape->size());
  if (!idx || (*shape)[*idx] < 0) return kUnknown;
  return Constant((*shape)[*idx]);
}

StaticValue fromElement(const std::optional<int64_t>& e) {
  return e ? StaticValue(Constant(*e)) : kUnknown;
}

StaticValue listSlice(const PartialIntList& l, const Node& n, const PropagatedValues& known) {
  auto bound = [&](size_t i) -> std::optional<std::optional<int64_t>> {
    if (known.isNone(n.input(i))) return std::optional<int64_t>();
    if (auto v = known.intValue(n.input(i))) return std::optional<int64_t>(*v);
    return std::nullopt;  // not known statically
  };
  auto start = bound(1), end = bound(2);
  auto step = known.intValue(n.input(3));
  if (!start || !end || !step || *step <= 0) return kUnknown;
  int64_t size = (int64_t)l.size();
  auto clamp = [&](std::optional<int64_t> b, int64_t dflt) {
    if (!b) return dflt;
    int64_t v = *b < 0 ? *b + size : *b;
    return std::max<int64_t>(0, std::min(v, size));
  };
  PartialIntList out;
  for (int64_t i = clamp(*start, 0); i < clamp(*end, size); i += *step) out.push_back(l[i]);
  return out;
}

StaticValue listOp(const Node& n, const PropagatedValues& known) {
  if (n.is("list.len")) {
    if (auto types = known.listElementTypes(n.input(0))) return Constant((int64_t)types->size());
    if (auto l = known.intList(n.input(0))) return Constant((int64_t)l->size());
    return kUnknown;
  }
  auto l = known.intList(n.input(0));
  bool intElems = n.input(0)->type() && n.input(0)->type()->kind() == TypeKind::List &&
                  n.input(0)->type()->elem()->kind() == TypeKind::Int;
  if (!l || !intElems) return kUnknown;
  if (n.is("list.get")) {
    auto i = known.intValue(n.input(1));
    auto idx = i ? normalizedIndex(*i, l->size()) : std::nullopt;
    return idx ? fromElement((*l)[*idx]) : kUnknown;
  }
  if (n.is("list.append")) {
    l->push_back(known.intValue(n.input(1)));
    return *l;
  }
  if (n.is("list.set")) {
    auto i = known.intValue(n.input(1));
    auto idx = i ? normalizedIndex(*i, l->size()) : std::nullopt;
    if (!idx) return kUnknown;
    (*l)[*idx] = known.intValue(n.input(2));
    return *l;
  }
  if (n.is("list.add")) {
    auto other = known.intList(n.input(1));
    if (!other) return kUnknown;
    l->insert(l->end(), other->begin(), other->end());
    return *l;
  }
  if (n.is("list.slice")) return listSlice(*l, n, known);
  return kUnknown;
}

Result unpackList(const Node& n, const PropagatedValues& known) {
  Result out(n.outputs().size(), kUnknown);
  auto l = known.intList(n.input(0));
  if (!l || l->size() != out.size()) return out;
  for (size_t i = 0; i < out.size(); ++i) out[i] = fromElement((*l)[i]);
  return out;
}

// Tuples are transparent: what is known about an element travels through.
Result tupleOp(const Node& n, const PropagatedValues& known) {
  Result out(n.outputs().size(), kUnknown);
  const Node* producer = n.input(0)->node();
  if (!producer || !producer->is("prim.tuple_construct")) return out;
  if (n.is("prim.tuple_unpack")) {
    for (size_t i = 0; i < out.size() && i < producer->inputs().size(); ++i)
      out[i] = producer->input(i);
    return out;
  }
  auto i = known.intValue(n.input(1));
  auto idx = i ? normalizedIndex(*i, producer->inputs().size()) : std::nullopt;
  if (idx) out[0] = producer->input(*idx);
  return out;
}

}  // namespace

std::vector<StaticValue> evaluateStatically(const Node& n, const PropagatedValues& known) {
  const std::string& k = n.kind();
  if (k == "prim.list_unpack") return unpackList(n, known);
  if (k == "prim.tuple_unpack" || k == "prim.tuple_index") return tupleOp(n, known);
  if (n.outputs().size() != 1) return Result(n.outputs().size(), kUnknown);
  if (k.rfind("scalar.", 0) == 0) return {scalarOp(n, known)};
  if (k.rfind("list.", 0) == 0) return {listOp(n, known)};
  if (k == "size" || k == "dim" || k == "numel") return {tensorQuery(n, known)};
  if (k == "prim.dtype") {
    const TypePtr& t = n.input(0)->type();
    if (t && t->isTensor() && t->dtype()) return {Constant(*t->dtype())};
  }
  return {kUnknown};
}

}  // namespace stitch
