#include "frontend/annotation.h"

namespace stitch {

TypePtr annotationType(const Expr& e, bool* optional) {
  auto bad = [&]() -> TypePtr { throw UserError("unsupported type annotation", e.loc); };
  std::string name;
  if (e.kind == ExprKind::Name)
    name = e.name;
  else if (e.kind == ExprKind::None)
    return Type::none();
  else if (e.kind == ExprKind::Attribute && e.operand(0)->kind == ExprKind::Name)
    name = e.operand(0)->name + "." + e.name;
  else if (e.kind != ExprKind::Subscript)
    return bad();
  if (e.kind != ExprKind::Subscript) {
    if (name == "Tensor" || name == "torch.Tensor") return Type::tensor();
    if (name == "int") return Type::intT();
    if (name == "float") return Type::floatT();
    if (name == "bool") return Type::boolT();
    if (name == "str") return Type::strT();
    if (name == "None") return Type::none();
    return bad();
  }
  const Expr& base = *e.operand(0);
  std::string generic = base.kind == ExprKind::Name        ? base.name
                        : base.kind == ExprKind::Attribute ? base.name
                                                           : "";
  const Expr& arg = *e.operand(1);
  if (generic == "List" || generic == "list") return Type::list(annotationType(arg));
  if (generic == "Tuple" || generic == "tuple") {
    std::vector<TypePtr> elems;
    if (arg.kind == ExprKind::Tuple) {
      for (const ExprPtr& x : arg.operands) elems.push_back(annotationType(*x));
    } else {
      elems.push_back(annotationType(arg));
    }
    return Type::tuple(elems);
  }
  if (generic == "Optional") {
    if (!optional) throw UserError("Optional is only supported for function parameters", e.loc);
    *optional = true;
    return annotationType(arg);
  }
  return bad();
}

}  // namespace stitch
