// Names and classification of the enums in the public header.
#include "stitch/tensorop.h"

namespace stitch::tensorop {

const char* toString(ptype_t p) {
  switch (p) {
    case ptype_t::none: return "none";
    case ptype_t::zero: return "zero";
    case ptype_t::identity: return "identity";
    case ptype_t::relu: return "relu";
    case ptype_t::square: return "square";
    case ptype_t::reciprocal: return "reciprocal";
    case ptype_t::increment: return "increment";
    case ptype_t::exp: return "exp";
    case ptype_t::add: return "add";
    case ptype_t::sub: return "sub";
    case ptype_t::mul: return "mul";
    case ptype_t::div: return "div";
    case ptype_t::min: return "min";
    case ptype_t::max: return "max";
    case ptype_t::gemm: return "gemm";
    case ptype_t::brgemm: return "brgemm";
  }
  return "?";
}

const char* toString(dim_t d) {
  switch (d) {
    case dim_t::c: return "c";
    case dim_t::m: return "m";
    case dim_t::n: return "n";
    case dim_t::k: return "k";
    case dim_t::undefined: return "undefined";
  }
  return "?";
}

const char* toString(exec_t e) {
  switch (e) {
    case exec_t::seq: return "seq";
    case exec_t::shared: return "shared";
    case exec_t::prim: return "prim";
    case exec_t::undefined: return "undefined";
  }
  return "?";
}

bool isUnary(ptype_t p) {
  return p == ptype_t::zero || p == ptype_t::identity || p == ptype_t::relu ||
         p == ptype_t::square || p == ptype_t::reciprocal ||
         p == ptype_t::increment || p == ptype_t::exp;
}

bool isBinary(ptype_t p) {
  return p == ptype_t::add || p == ptype_t::sub || p == ptype_t::mul ||
         p == ptype_t::div || p == ptype_t::min || p == ptype_t::max;
}

bool isContraction(ptype_t p) {
  return p == ptype_t::gemm || p == ptype_t::brgemm;
}

}  // namespace stitch::tensorop
