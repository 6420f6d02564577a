// A small reference executor for uop lists, for tests: runs every block of
// the SPECIAL grid in turn, LOOP / ENDLOOP as counted loops, DEFINE_ACC /
// PHI as an accumulator, DEFINE_LOCAL as an array. Values are held as
// double (floats) or int64 (the rest); only the ALU ops the tests use are
// implemented.
#pragma once
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "uops/uop.h"

namespace stitch::testing {

struct EvalValue {
  int64_t i = 0;
  double f = 0;
};

struct EvalBuffers {
  std::vector<std::vector<double>> data;  // per buffer slot, as double
  std::vector<EvalValue> params;
};

inline EvalValue evalAlu(const UOp& u, const std::vector<UOp>& uops, const std::vector<EvalValue>& v) {
  auto I = [&](int k) { return v[u.src[k]].i; };
  auto F = [&](int k) { return v[u.src[k]].f; };
  bool fl = isFloating(uops[u.src[0]].dtype);
  EvalValue r;
  auto setF = [&](double x) { r.f = u.dtype == DType::f32 ? (double)(float)x : x; };
  switch (u.alu) {
    case AluOp::Add: fl ? setF(F(0) + F(1)) : (void)(r.i = (int64_t)((uint64_t)I(0) + (uint64_t)I(1))); break;
    case AluOp::Sub: fl ? setF(F(0) - F(1)) : (void)(r.i = (int64_t)((uint64_t)I(0) - (uint64_t)I(1))); break;
    case AluOp::Mul: fl ? setF(F(0) * F(1)) : (void)(r.i = (int64_t)((uint64_t)I(0) * (uint64_t)I(1))); break;
    case AluOp::Div: fl ? setF(F(0) / F(1)) : (void)(r.i = I(0) / I(1)); break;
    case AluOp::Mod: r.i = I(0) % I(1); break;
    case AluOp::FloorDiv: r.i = (int64_t)std::floor((double)I(0) / (double)I(1)); break;
    case AluOp::Max: fl ? setF(std::isnan(F(0)) || F(0) > F(1) ? F(0) : F(1)) : (void)(r.i = std::max(I(0), I(1))); break;
    case AluOp::Min: fl ? setF(std::isnan(F(0)) || F(0) < F(1) ? F(0) : F(1)) : (void)(r.i = std::min(I(0), I(1))); break;
    case AluOp::Exp: case AluOp::ExpNonPos: setF(std::exp(F(0))); break;
    case AluOp::Neg: fl ? setF(-F(0)) : (void)(r.i = -I(0)); break;
    case AluOp::Sigmoid: setF(1.0 / (1.0 + std::exp(-F(0)))); break;
    case AluOp::CmpLT: r.i = fl ? F(0) < F(1) : I(0) < I(1); break;
    case AluOp::CmpEQ: r.i = fl ? F(0) == F(1) : I(0) == I(1); break;
    case AluOp::Where: r = v[u.src[0]].i ? v[u.src[1]] : v[u.src[2]]; break;
    case AluOp::IsNan: r.i = fl && std::isnan(F(0)); break;
    case AluOp::LogicalAnd: r.i = I(0) && I(1); break;
    case AluOp::LogicalOr: r.i = I(0) || I(1); break;
    case AluOp::MulAdd:
      r.f = u.dtype == DType::f32 ? (double)std::fmaf((float)F(0), (float)F(1), (float)F(2)) : std::fma(F(0), F(1), F(2));
      break;
    default: throw std::runtime_error(std::string("evalUOps: ALU ") + aluOpName(u.alu));
  }
  return r;
}

// Runs the kernel over `bufs` (buffers indexed by DEFINE_GLOBAL arg).
inline void evalUOps(const UOpGraph& g, EvalBuffers& bufs) {
  const auto& uops = g.uops();
  std::vector<EvalValue> v(uops.size());
  std::vector<int64_t> loopEnd(uops.size());
  std::vector<int> endOf(uops.size(), -1);
  std::vector<int> phiOf(uops.size(), -1);
  int special = -1;
  for (size_t i = 0; i < uops.size(); ++i) {
    if (uops[i].kind == UOpKind::Phi) phiOf[uops[i].src[0]] = (int)i;
    if (uops[i].kind == UOpKind::EndLoop) endOf[uops[i].src[0]] = (int)i;
    if (uops[i].kind == UOpKind::Special) special = (int)i;
  }
  int64_t blocks = special >= 0 ? uops[special].ival : 1;
  std::vector<std::vector<EvalValue>> locals(uops.size());  // per DEFINE_LOCAL
  // Integer elements of the buffers, exact (a double holds no i64 near
  // its limits: a min-reduction's start value kept in an output).
  std::vector<std::vector<int64_t>> ints(bufs.data.size());
  for (size_t slot = 0; slot < bufs.data.size(); ++slot)
    for (double x : bufs.data[slot]) ints[slot].push_back((int64_t)x);
  for (int64_t b = 0; b < blocks; ++b) {
    for (size_t pc = 0; pc < uops.size(); ++pc) {
      const UOp& u = uops[pc];
      switch (u.kind) {
        case UOpKind::DefineLocal: locals[pc].assign(u.ival, EvalValue{-999, NAN}); break;
        case UOpKind::DefineGlobal:
        case UOpKind::EndIf:
        case UOpKind::If: break;
        case UOpKind::DefineVar: v[pc] = bufs.params.at(u.arg); break;
        case UOpKind::Special: v[pc].i = b; break;
        case UOpKind::Const: v[pc].i = u.ival, v[pc].f = u.fval; break;
        case UOpKind::DefineAcc:  // a loop that runs no iteration leaves the PHI at the start value
          v[pc] = v[u.src[0]];
          if (phiOf[pc] >= 0) v[phiOf[pc]] = v[pc];
          break;
        case UOpKind::Loop:
          v[pc].i = v[u.src[0]].i;
          loopEnd[pc] = v[u.src[1]].i;
          if (v[pc].i >= loopEnd[pc]) pc = endOf[pc];
          break;
        case UOpKind::EndLoop: {
          int l = u.src[0];
          if (++v[l].i < loopEnd[l]) pc = l;
          break;
        }
        case UOpKind::Load: {
          int64_t idx = v[u.src[1]].i;
          if (uops[u.src[0]].kind == UOpKind::DefineLocal) {
            const auto& arr = locals[u.src[0]];
            if (idx < 0 || idx >= (int64_t)arr.size()) throw std::runtime_error("evalUOps: local load out of range");
            v[pc] = arr[idx];
            break;
          }
          const auto& buf = bufs.data.at(uops[u.src[0]].arg);
          if (idx < 0 || idx >= (int64_t)buf.size()) throw std::runtime_error("evalUOps: load out of range");
          if (isFloating(u.dtype)) v[pc].f = buf[idx];
          else v[pc].i = ints[uops[u.src[0]].arg][idx];
          break;
        }
        case UOpKind::Store: {
          int64_t idx = v[u.src[1]].i;
          const EvalValue& x = v[u.src[2]];
          if (uops[u.src[0]].kind == UOpKind::DefineLocal) {
            auto& arr = locals[u.src[0]];
            if (idx < 0 || idx >= (int64_t)arr.size()) throw std::runtime_error("evalUOps: local store out of range");
            arr[idx] = x;
            break;
          }
          auto& buf = bufs.data.at(uops[u.src[0]].arg);
          if (idx < 0 || idx >= (int64_t)buf.size()) throw std::runtime_error("evalUOps: store out of range");
          buf[idx] = isFloating(uops[u.src[2]].dtype) ? x.f : (double)x.i;
          ints[uops[u.src[0]].arg][idx] = isFloating(uops[u.src[2]].dtype) ? (int64_t)x.f : x.i;
          break;
        }
        case UOpKind::Alu: v[pc] = evalAlu(u, uops, v); break;
        case UOpKind::Phi:
          v[u.src[0]] = v[u.src[1]];
          v[pc] = v[u.src[1]];
          break;
        case UOpKind::FoldLanes: {  // pairwise, halving, as lane_reduce.h's combine
          std::vector<EvalValue> lanes = locals[u.src[0]];
          if ((int64_t)lanes.size() != u.ival) throw std::runtime_error("evalUOps: FOLD_LANES width");
          if (u.alu != AluOp::Add) throw std::runtime_error("evalUOps: FOLD_LANES of a float sum only");
          for (int64_t h = u.ival / 2; h >= 1; h /= 2) {
            for (int64_t l = 0; l < h; ++l) {
              double sum = lanes[l].f + lanes[l + h].f;
              lanes[l].f = u.dtype == DType::f32 ? (double)(float)sum : sum;
            }
          }
          v[pc] = lanes.at(0);
          break;
        }
        case UOpKind::Cast: {
          const EvalValue& x = v[u.src[0]];
          bool from = isFloating(uops[u.src[0]].dtype), to = isFloating(u.dtype);
          EvalValue r;
          if (from && to) r.f = u.dtype == DType::f32 ? (double)(float)x.f : x.f;
          else if (from) r.i = (int64_t)x.f;
          else if (to) r.f = u.dtype == DType::f32 ? (double)(float)x.i : (double)x.i;
          else r.i = x.i;
          v[pc] = r;
          break;
        }
      }
    }
  }
}

// The same without params: runs `g` on `data` (per buffer slot) and returns
// the buffers after the run.
inline std::vector<std::vector<double>> evalUOps(const UOpGraph& g, std::vector<std::vector<double>> data) {
  EvalBuffers bufs;
  bufs.data = std::move(data);
  evalUOps(g, bufs);
  return std::move(bufs.data);
}

}  // namespace stitch::testing
