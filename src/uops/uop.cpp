#include "uops/uop.h"

namespace stitch {

const char* uopKindName(UOpKind kind) {
  switch (kind) {
    case UOpKind::DefineGlobal: return "DEFINE_GLOBAL";
    case UOpKind::DefineVar: return "DEFINE_VAR";
    case UOpKind::DefineLocal: return "DEFINE_LOCAL";
    case UOpKind::DefineAcc: return "DEFINE_ACC";
    case UOpKind::Const: return "CONST";
    case UOpKind::Special: return "SPECIAL";
    case UOpKind::Loop: return "LOOP";
    case UOpKind::EndLoop: return "ENDLOOP";
    case UOpKind::Load: return "LOAD";
    case UOpKind::Store: return "STORE";
    case UOpKind::Alu: return "ALU";
    case UOpKind::Phi: return "PHI";
    case UOpKind::Cast: return "CAST";
    case UOpKind::If: return "IF";
    case UOpKind::EndIf: return "ENDIF";
    case UOpKind::FoldLanes: return "FOLD_LANES";
  }
  return "?";
}

}  // namespace stitch
