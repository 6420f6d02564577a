// Builds KernelUOps by hand for renderer tests, through UOpGraph::add.
#pragma once
#include <string>
#include <vector>

#include "uops/uop.h"

namespace stitch::codegentest {

class KernelBuilder {
 public:
  explicit KernelBuilder(std::string name) { k_.name = std::move(name); }

  int global(int slot, DType dtype, bool output) {
    if ((int)k_.buffers.size() <= slot) k_.buffers.resize(slot + 1, DType::f32);
    k_.buffers[slot] = dtype;
    if (output) k_.numOutputs = std::max(k_.numOutputs, slot + 1);
    UOp u = makeUOp(UOpKind::DefineGlobal, dtype);
    u.arg = slot;
    u.ival = output ? 1 : 0;
    u.name = "data" + std::to_string(slot);
    return g().add(u, false);
  }
  int var(int slot, DType dtype) {
    if ((int)k_.params.size() <= slot) k_.params.resize(slot + 1, DType::i64);
    k_.params[slot] = dtype;
    UOp u = makeUOp(UOpKind::DefineVar, dtype);
    u.arg = slot;
    u.name = "p" + std::to_string(slot);
    return g().add(u, false);
  }
  int special(const std::string& name, int64_t extent) {
    UOp u = makeUOp(UOpKind::Special, DType::i64);
    u.ival = extent;
    u.name = name;
    return g().add(u, false);
  }
  int loop(int from, int to) { return g().add(makeUOp(UOpKind::Loop, DType::i64, {from, to}), false); }
  void endLoop(int loop) { g().add(makeUOp(UOpKind::EndLoop, DType::i64, {loop}), false); }
  int ifOpen(int cond) { return g().add(makeUOp(UOpKind::If, DType::b8, {cond}), false); }
  void endIf(int ifId) { g().add(makeUOp(UOpKind::EndIf, DType::b8, {ifId}), false); }
  int load(int buffer, int index) {
    return g().add(makeUOp(UOpKind::Load, g().at(buffer).dtype, {buffer, index}));
  }
  void store(int buffer, int index, int value) {
    g().add(makeUOp(UOpKind::Store, g().at(buffer).dtype, {buffer, index, value}), false);
  }
  int acc(DType dtype, int init) { return g().add(makeUOp(UOpKind::DefineAcc, dtype, {init}), false); }
  int phi(int acc, int value, int loop) {
    return g().add(makeUOp(UOpKind::Phi, g().at(acc).dtype, {acc, value, loop}), false);
  }
  int cast(int value, DType to) { return g().add(makeUOp(UOpKind::Cast, to, {value})); }
  int alu(AluOp op, DType dtype, std::vector<int> src) { return g().alu(op, dtype, std::move(src)); }
  int i64(int64_t v) { return g().constInt(v, DType::i64); }
  int constant(double v, DType dtype) {
    return isFloating(dtype) ? g().constFloat(v, dtype) : g().constInt((int64_t)v, dtype);
  }

  UOpGraph& g() { return k_.uops; }
  const KernelUOps& kernel() const { return k_; }

 private:
  KernelUOps k_;
};

}  // namespace stitch::codegentest
