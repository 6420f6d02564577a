// Rewrites applied by UOpGraph::add before a uop is appended: canonical
// operand order of commutative ops (so CSE sees x+y and y+x as one uop),
// algebraic identities (x+0, x*1, x*0 on ints, where(const, a, b), ...) and
// index arithmetic on i64 driven by value bounds:
//   x % c -> x and x / c -> 0 when 0 <= x < c
//   (x*c) / c -> x, (x*c) % c -> 0, (x / a) / b -> x / (a*b)
//   (a*c + b) / c -> a + b / c and (a*c + b) % c -> b % c when b, the sum >= 0
//   (g*a + b) / c -> a / (c/g), (g*a + b) % c -> (a % (c/g))*g + b  when g | c, 0 <= b < g
//   k*(x/(c*n))*n + k*((x/c) % n) -> k*(x/c)   (so (x/c)*c + x%c -> x)
//   (x + c1) + c2 -> x + (c1+c2), x - y -> x + y*(-1), (x + y) * c -> x*c + y*c
// Division and remainder here are C's (AluOp::Div / Mod); the rules that
// need it check that the operands are non-negative.
#pragma once
#include "uops/uop.h"

namespace stitch {

// The id of an existing or newly added uop equal in value to `u`, or -1
// when no rule applies (u may have been put into canonical form).
int simplifyUOp(UOpGraph& g, UOp& u);

}  // namespace stitch
