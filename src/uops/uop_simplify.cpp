#include "uops/uop_simplify.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <numeric>

namespace stitch {

namespace {

bool isConst(const UOpGraph& g, int id) { return g.at(id).kind == UOpKind::Const; }

// An integer / bool CONST equal to v.
bool constIs(const UOpGraph& g, int id, int64_t v) {
  const UOp& u = g.at(id);
  return u.kind == UOpKind::Const && !isFloating(u.dtype) && u.ival == v;
}

bool floatConstBits(const UOpGraph& g, int id, double v) {
  const UOp& u = g.at(id);
  if (u.kind != UOpKind::Const || !isFloating(u.dtype)) return false;
  return std::memcmp(&u.fval, &v, sizeof v) == 0;
}

// A positive i64 CONST.
bool posConst(const UOpGraph& g, int id, int64_t& c) {
  const UOp& u = g.at(id);
  if (u.kind != UOpKind::Const || u.dtype != DType::i64 || u.ival <= 0) return false;
  c = u.ival;
  return true;
}

bool isAlu(const UOp& u, AluOp op) { return u.kind == UOpKind::Alu && u.alu == op && u.dtype == DType::i64; }

bool commutative(AluOp op, DType operand) {
  switch (op) {
    case AluOp::Add:
    case AluOp::Mul:
    case AluOp::CmpEQ:
    case AluOp::CmpNE:
    case AluOp::LogicalAnd:
    case AluOp::LogicalOr:
    case AluOp::LogicalXor:
    case AluOp::BitAnd:
    case AluOp::BitOr:
    case AluOp::BitXor: return true;
    // max(+0, -0) and max(-0, +0) differ for floats.
    case AluOp::Max:
    case AluOp::Min: return !isFloating(operand);
    default: return false;
  }
}

int c64(UOpGraph& g, int64_t v) { return g.constInt(v, DType::i64); }
int bin(UOpGraph& g, AluOp op, int a, int b) { return g.alu(op, DType::i64, {a, b}); }

void flattenAdd(const UOpGraph& g, int id, std::vector<int>& terms) {
  const UOp& u = g.at(id);
  if (isAlu(u, AluOp::Add)) {
    flattenAdd(g, u.src[0], terms);
    flattenAdd(g, u.src[1], terms);
  } else {
    terms.push_back(id);
  }
}

// A term of an index sum as ((x / c) % n) * m; n == 0: no remainder.
struct Term {
  int x;
  int64_t c, n, m;
};

Term decompose(const UOpGraph& g, int id) {
  Term t{id, 1, 0, 1};
  const UOp* u = &g.at(id);
  int64_t k;
  if (isAlu(*u, AluOp::Mul) && isConst(g, u->src[1]) && g.at(u->src[1]).ival != 0) {
    t.m = g.at(u->src[1]).ival;
    t.x = u->src[0];
    u = &g.at(t.x);
  }
  if (isAlu(*u, AluOp::Mod) && posConst(g, u->src[1], k)) {
    t.n = k;
    t.x = u->src[0];
    u = &g.at(t.x);
  }
  if (isAlu(*u, AluOp::Div) && posConst(g, u->src[1], k)) {
    t.c = k;
    t.x = u->src[0];
  }
  return t;
}

int buildTerm(UOpGraph& g, const Term& t) {
  int r = t.x;
  if (t.c != 1) r = bin(g, AluOp::Div, r, c64(g, t.c));
  if (t.n != 0) r = bin(g, AluOp::Mod, r, c64(g, t.n));
  if (t.m != 1) r = bin(g, AluOp::Mul, r, c64(g, t.m));
  return r;
}

// ((x/(c*n)) % n1)*(m*n) + ((x/c) % n)*m == ((x/c) % (n1*n))*m for x >= 0
// (n1 == 0: no outer remainder). -1 when the pair does not combine.
int combineOrdered(UOpGraph& g, const Term& hi, const Term& lo) {
  if (hi.x != lo.x || lo.n == 0 || g.at(lo.x).vmin < 0) return -1;
  int64_t cn, mn, nn = 0;
  if (__builtin_mul_overflow(lo.c, lo.n, &cn) || cn != hi.c) return -1;
  if (__builtin_mul_overflow(lo.m, lo.n, &mn) || mn != hi.m) return -1;
  if (hi.n != 0 && __builtin_mul_overflow(hi.n, lo.n, &nn)) return -1;
  return buildTerm(g, Term{lo.x, lo.c, nn, lo.m});
}

int combinePair(UOpGraph& g, int a, int b) {
  Term ta = decompose(g, a), tb = decompose(g, b);
  // Like terms: t*m1 + t*m2 -> t*(m1+m2).
  if (ta.x == tb.x && ta.c == tb.c && ta.n == tb.n) {
    Term sum = ta;
    sum.m = (int64_t)((uint64_t)ta.m + (uint64_t)tb.m);
    return sum.m == 0 ? c64(g, 0) : buildTerm(g, sum);
  }
  int r = combineOrdered(g, ta, tb);
  if (r < 0) r = combineOrdered(g, tb, ta);
  return r;
}

int sumOf(UOpGraph& g, const std::vector<int>& terms, int64_t constant) {
  if (terms.empty()) return c64(g, constant);
  int acc = terms[0];
  for (size_t k = 1; k < terms.size(); ++k) acc = bin(g, AluOp::Add, acc, terms[k]);
  if (constant != 0) acc = bin(g, AluOp::Add, acc, c64(g, constant));
  return acc;
}

// x + y on i64: gathers the constants of the whole sum at its end and
// merges div/mod pairs back into the value they were split from.
int simplifyAdd(UOpGraph& g, const UOp& u) {
  std::vector<int> flat;
  flattenAdd(g, u.src[0], flat);
  flattenAdd(g, u.src[1], flat);
  int64_t constant = 0;
  int nconst = 0;
  std::vector<int> terms;
  auto push = [&](int id) {
    if (isConst(g, id)) {
      constant = (int64_t)((uint64_t)constant + (uint64_t)g.at(id).ival);
      ++nconst;
    } else {
      terms.push_back(id);
    }
  };
  for (int t : flat) push(t);
  bool changed = nconst > 1 || (nconst == 1 && !isConst(g, u.src[1]));
  for (bool again = true; again;) {
    again = false;
    for (size_t i = 0; i < terms.size() && !again; ++i) {
      for (size_t j = 0; j < terms.size() && !again; ++j) {
        if (i == j) continue;
        int r = combinePair(g, terms[i], terms[j]);
        if (r < 0) continue;
        int first = std::min(i, j), second = std::max(i, j);
        terms.erase(terms.begin() + second);
        terms.erase(terms.begin() + first);
        std::vector<int> more;
        flattenAdd(g, r, more);
        for (int t : more) push(t);
        again = changed = true;
      }
    }
  }
  if (!changed) return -1;
  return sumOf(g, terms, constant);
}

// Splits the terms of x (a sum) into multiples of c (their quotient) and the
// rest. Returns false when no term is a multiple, or when the rest may be
// negative (C division would round it the other way).
bool splitMultiples(UOpGraph& g, int x, int64_t c, std::vector<int>& quotients,
                    int64_t& constQuot, std::vector<int>& rest, int64_t& restConst) {
  std::vector<int> flat;
  flattenAdd(g, x, flat);
  if (flat.size() < 2) return false;
  bool any = false;
  int64_t restMin = 0;
  constQuot = restConst = 0;
  for (int t : flat) {
    const UOp tu = g.at(t);
    int64_t k;
    if (tu.kind == UOpKind::Const) {
      if (tu.ival % c == 0) {
        constQuot += tu.ival / c;
        any = true;
      } else {
        restConst += tu.ival;
        if (__builtin_add_overflow(restMin, tu.ival, &restMin)) return false;
      }
      continue;
    }
    if (isAlu(tu, AluOp::Mul) && posConst(g, tu.src[1], k) && k % c == 0) {
      quotients.push_back(k == c ? tu.src[0] : bin(g, AluOp::Mul, tu.src[0], c64(g, k / c)));
      any = true;
      continue;
    }
    rest.push_back(t);
    if (tu.vmin == INT64_MIN || __builtin_add_overflow(restMin, tu.vmin, &restMin)) return false;
  }
  return any && restMin >= 0;
}

// x (a sum, x >= 0) as g*A + B with g | c, 1 < g, and 0 <= B < g: then
// x / c == A / (c/g) and x % c == (A % (c/g))*g + B. Tries g = gcd(c, k)
// for each term's coefficient k. Returns g, or 0 when no factor fits.
int64_t splitByFactor(UOpGraph& g, int x, int64_t c, std::vector<int>& quotient, int64_t& quotConst,
                      std::vector<int>& rest, int64_t& restConst) {
  std::vector<int> flat;
  flattenAdd(g, x, flat);
  if (flat.size() < 2) return 0;
  auto coefficient = [&](int t, int& base) -> int64_t {
    const UOp& tu = g.at(t);
    int64_t k;
    base = t;
    if (isAlu(tu, AluOp::Mul) && posConst(g, tu.src[1], k)) {
      base = tu.src[0];
      return k;
    }
    return 1;
  };
  std::vector<int64_t> candidates;
  for (int t : flat) {
    int base;
    int64_t k = isConst(g, t) ? g.at(t).ival : coefficient(t, base);
    int64_t f = std::gcd(c, k);
    if (f > 1 && std::find(candidates.begin(), candidates.end(), f) == candidates.end()) candidates.push_back(f);
  }
  for (int64_t f : candidates) {
    int64_t lo = 0, hi = 0, qc = 0, rc = 0;
    bool ok = true, anyQuotient = false;
    std::vector<std::pair<int, int64_t>> multiples;  // base, coefficient / f
    std::vector<int> small;
    for (int t : flat) {
      if (isConst(g, t)) {
        int64_t v = g.at(t).ival;
        if (v % f == 0) {
          qc += v / f;
          anyQuotient = true;
        } else {
          rc += v;
          ok = ok && !__builtin_add_overflow(lo, v, &lo) && !__builtin_add_overflow(hi, v, &hi);
        }
        continue;
      }
      int base;
      int64_t k = coefficient(t, base);
      if (k % f == 0) {
        multiples.push_back({base, k / f});
        anyQuotient = true;
        continue;
      }
      const UOp& tu = g.at(t);
      small.push_back(t);
      ok = ok && tu.vmin != INT64_MIN && tu.vmax != INT64_MAX && !__builtin_add_overflow(lo, tu.vmin, &lo) &&
           !__builtin_add_overflow(hi, tu.vmax, &hi);
    }
    if (!ok || !anyQuotient || lo < 0 || hi >= f) continue;
    for (auto [base, k] : multiples) quotient.push_back(k == 1 ? base : bin(g, AluOp::Mul, base, c64(g, k)));
    quotConst = qc;
    rest = small;
    restConst = rc;
    return f;
  }
  return 0;
}

int simplifyDiv(UOpGraph& g, const UOp& u, int64_t c) {
  int x = u.src[0];
  const UOp xu = g.at(x);
  if (c == 1) return x;
  if (xu.vmin >= 0 && xu.vmax < c) return c64(g, 0);
  int64_t k;
  if (isAlu(xu, AluOp::Mul) && posConst(g, xu.src[1], k) && xu.vmin != INT64_MIN) {
    if (k % c == 0) return k == c ? xu.src[0] : bin(g, AluOp::Mul, xu.src[0], c64(g, k / c));
    if (c % k == 0 && g.at(xu.src[0]).vmin >= 0) return bin(g, AluOp::Div, xu.src[0], c64(g, c / k));
  }
  int64_t ck;
  if (isAlu(xu, AluOp::Div) && posConst(g, xu.src[1], k) && g.at(xu.src[0]).vmin >= 0 &&
      !__builtin_mul_overflow(c, k, &ck))
    return bin(g, AluOp::Div, xu.src[0], c64(g, ck));
  if (isAlu(xu, AluOp::Add) && xu.vmin >= 0) {
    std::vector<int> quot, rest;
    int64_t constQuot, restConst;
    if (splitMultiples(g, x, c, quot, constQuot, rest, restConst)) {
      if (!rest.empty() || restConst != 0) quot.push_back(bin(g, AluOp::Div, sumOf(g, rest, restConst), c64(g, c)));
      return sumOf(g, quot, constQuot);
    }
    quot.clear();
    rest.clear();
    if (int64_t f = splitByFactor(g, x, c, quot, constQuot, rest, restConst))
      return bin(g, AluOp::Div, sumOf(g, quot, constQuot), c64(g, c / f));
  }
  return -1;
}

int simplifyMod(UOpGraph& g, const UOp& u, int64_t c) {
  int x = u.src[0];
  const UOp xu = g.at(x);
  if (c == 1) return c64(g, 0);
  if (xu.vmin >= 0 && xu.vmax < c) return x;
  int64_t k;
  // (A product whose bounds are known does not wrap.)
  if (isAlu(xu, AluOp::Mul) && posConst(g, xu.src[1], k) && xu.vmin != INT64_MIN) {
    if (k % c == 0) return c64(g, 0);
    if (c % k == 0 && g.at(xu.src[0]).vmin >= 0)
      return bin(g, AluOp::Mul, bin(g, AluOp::Mod, xu.src[0], c64(g, c / k)), c64(g, k));
  }
  if (isAlu(xu, AluOp::Mod) && posConst(g, xu.src[1], k) && k % c == 0 && g.at(xu.src[0]).vmin >= 0)
    return bin(g, AluOp::Mod, xu.src[0], c64(g, c));
  if (isAlu(xu, AluOp::Add) && xu.vmin >= 0) {
    std::vector<int> quot, rest;
    int64_t constQuot, restConst;
    if (splitMultiples(g, x, c, quot, constQuot, rest, restConst)) {
      if (rest.empty() && restConst == 0) return c64(g, 0);
      return bin(g, AluOp::Mod, sumOf(g, rest, restConst), c64(g, c));
    }
    quot.clear();
    rest.clear();
    if (int64_t f = splitByFactor(g, x, c, quot, constQuot, rest, restConst)) {
      int high = bin(g, AluOp::Mul, bin(g, AluOp::Mod, sumOf(g, quot, constQuot), c64(g, c / f)), c64(g, f));
      return bin(g, AluOp::Add, high, sumOf(g, rest, restConst));
    }
  }
  return -1;
}

// Rules on i64 ALU ops that use value bounds.
int simplifyIndex(UOpGraph& g, UOp& u) {
  const UOp a = g.at(u.src[0]);
  int64_t c;
  switch (u.alu) {
    case AluOp::Add: return simplifyAdd(g, u);
    // x - c -> x + (-c), x - y -> x + y*(-1): index differences become sums
    // of scaled terms (a flipped dim: (n-1 - l/c)*c + (c-1 - l%c) -> -l + k).
    case AluOp::Sub:
      if (isConst(g, u.src[1]))
        return bin(g, AluOp::Add, u.src[0], c64(g, (int64_t)(0 - (uint64_t)g.at(u.src[1]).ival)));
      return bin(g, AluOp::Add, u.src[0], bin(g, AluOp::Mul, u.src[1], c64(g, -1)));
    case AluOp::Mul: {
      int64_t k;
      if (isAlu(a, AluOp::Mul) && isConst(g, a.src[1]) && isConst(g, u.src[1])) {
        k = (int64_t)((uint64_t)g.at(a.src[1]).ival * (uint64_t)g.at(u.src[1]).ival);
        return bin(g, AluOp::Mul, a.src[0], c64(g, k));
      }
      // (x + y + c) * k -> x*k + y*k + c*k: index sums stay sums of scaled
      // terms, the form the div/mod rules and recombination work on.
      if (isAlu(a, AluOp::Add) && isConst(g, u.src[1])) {
        k = g.at(u.src[1]).ival;
        std::vector<int> terms, scaled;
        flattenAdd(g, u.src[0], terms);
        int64_t constant = 0;
        for (int t : terms) {
          if (isConst(g, t)) constant = (int64_t)((uint64_t)constant + (uint64_t)g.at(t).ival * (uint64_t)k);
          else scaled.push_back(bin(g, AluOp::Mul, t, c64(g, k)));
        }
        return sumOf(g, scaled, constant);
      }
      return -1;
    }
    case AluOp::Div:
      if (posConst(g, u.src[1], c)) return simplifyDiv(g, u, c);
      return -1;
    case AluOp::Mod:
      if (posConst(g, u.src[1], c)) return simplifyMod(g, u, c);
      return -1;
    // Python rounding equals C's on non-negative operands.
    case AluOp::FloorDiv:
      if (posConst(g, u.src[1], c) && a.vmin >= 0) return bin(g, AluOp::Div, u.src[0], u.src[1]);
      return -1;
    case AluOp::Remainder:
      if (posConst(g, u.src[1], c) && a.vmin >= 0) return bin(g, AluOp::Mod, u.src[0], u.src[1]);
      return -1;
    case AluOp::Max: {
      const UOp b = g.at(u.src[1]);
      if (a.vmin >= b.vmax) return u.src[0];
      if (b.vmin >= a.vmax) return u.src[1];
      return -1;
    }
    case AluOp::Min: {
      const UOp b = g.at(u.src[1]);
      if (a.vmax <= b.vmin) return u.src[0];
      if (b.vmax <= a.vmin) return u.src[1];
      return -1;
    }
    default: return -1;
  }
}

// Comparisons of i64 values decided by their bounds.
int simplifyCompare(UOpGraph& g, const UOp& u) {
  const UOp a = g.at(u.src[0]);
  const UOp b = g.at(u.src[1]);
  if (a.dtype != DType::i64 || b.dtype != DType::i64) return -1;
  auto yes = [&] { return g.constInt(1, DType::b8); };
  auto no = [&] { return g.constInt(0, DType::b8); };
  if (u.src[0] == u.src[1]) {  // a value against itself
    if (u.alu == AluOp::CmpEQ || u.alu == AluOp::CmpLE) return yes();
    if (u.alu == AluOp::CmpNE || u.alu == AluOp::CmpLT) return no();
  }
  switch (u.alu) {
    case AluOp::CmpLT:
      if (a.vmax < b.vmin) return yes();
      if (a.vmin >= b.vmax) return no();
      return -1;
    case AluOp::CmpLE:
      if (a.vmax <= b.vmin) return yes();
      if (a.vmin > b.vmax) return no();
      return -1;
    case AluOp::CmpEQ:
      if (a.vmax < b.vmin || b.vmax < a.vmin) return no();
      if (a.vmin == a.vmax && b.vmin == b.vmax) return yes();  // one value each, the same
      return -1;
    case AluOp::CmpNE:
      if (a.vmax < b.vmin || b.vmax < a.vmin) return yes();
      if (a.vmin == a.vmax && b.vmin == b.vmax) return no();
      return -1;
    default: return -1;
  }
}

int simplifyAlu(UOpGraph& g, UOp& u) {
  AluOp op = u.alu;
  if (op == AluOp::Where) {
    if (isConst(g, u.src[0])) {
      int pick = g.at(u.src[0]).ival ? u.src[1] : u.src[2];
      return g.at(pick).dtype == u.dtype ? pick : -1;
    }
    if (u.src[1] == u.src[2] && g.at(u.src[1]).dtype == u.dtype) return u.src[1];
    return -1;
  }
  if (op == AluOp::MulAdd) return -1;
  DType od = g.at(u.src[0]).dtype;
  if (aluOpArity(op) == 2 && commutative(op, od)) {
    auto rank = [&](int id) { return std::pair<int, int>(isConst(g, id) ? 1 : 0, id); };
    if (rank(u.src[1]) < rank(u.src[0])) std::swap(u.src[0], u.src[1]);
  }
  int x = u.src[0];
  int y = aluOpArity(op) >= 2 ? u.src[1] : -1;
  bool sameType = aluOpReturnsBool(op) || u.dtype == od;
  if (!sameType) return -1;
  if (od == DType::i32 || od == DType::i64) {
    switch (op) {
      case AluOp::Add:
        if (constIs(g, y, 0)) return x;
        break;
      case AluOp::Sub:
        if (constIs(g, y, 0)) return x;
        if (x == y) return g.constInt(0, od);
        break;
      case AluOp::Mul:
        if (constIs(g, y, 1)) return x;
        if (constIs(g, y, 0)) return y;
        break;
      case AluOp::Div:
      case AluOp::FloorDiv:
        if (constIs(g, y, 1)) return x;
        break;
      case AluOp::Mod:
      case AluOp::Remainder:
        if (constIs(g, y, 1)) return g.constInt(0, od);
        break;
      case AluOp::Max:
      case AluOp::Min:
      case AluOp::BitAnd:
      case AluOp::BitOr:
        if (x == y) return x;
        break;
      default: break;
    }
    if (od == DType::i64) {
      int r = aluOpReturnsBool(op) ? (y >= 0 ? simplifyCompare(g, u) : -1) : simplifyIndex(g, u);
      if (r >= 0) return r;
    }
    return -1;
  }
  if (isFloating(od)) {
    // Exact identities only: x*1, x/1, x-(+0), x+(-0) are x for every x.
    switch (op) {
      case AluOp::Mul:
      case AluOp::Div:
        if (floatConstBits(g, y, 1.0)) return x;
        break;
      case AluOp::Sub:
        if (floatConstBits(g, y, 0.0)) return x;
        break;
      case AluOp::Add:
        if (floatConstBits(g, y, -0.0)) return x;
        break;
      default: break;
    }
    return -1;
  }
  // bool
  switch (op) {
    case AluOp::LogicalAnd:
    case AluOp::BitAnd:
      if (constIs(g, y, 1)) return x;
      if (constIs(g, y, 0)) return y;
      if (x == y) return x;
      break;
    case AluOp::LogicalOr:
    case AluOp::BitOr:
      if (constIs(g, y, 0)) return x;
      if (constIs(g, y, 1)) return y;
      if (x == y) return x;
      break;
    case AluOp::LogicalNot:
    case AluOp::BitNot: {
      const UOp xu = g.at(x);
      if (xu.kind == UOpKind::Alu && (xu.alu == AluOp::LogicalNot || xu.alu == AluOp::BitNot) &&
          xu.dtype == DType::b8 && g.at(xu.src[0]).dtype == DType::b8)
        return xu.src[0];
      break;
    }
    default: break;
  }
  return -1;
}

}  // namespace

int simplifyUOp(UOpGraph& g, UOp& u) {
  if (u.kind == UOpKind::Cast) {
    if (g.at(u.src[0]).dtype == u.dtype) return u.src[0];
    return -1;
  }
  if (u.kind != UOpKind::Alu) return -1;
  return simplifyAlu(g, u);
}

}  // namespace stitch
