// Registers the static shape/dtype rule of every op, family by family.
#include "ir/type_rules/type_rules.h"

namespace stitch {

void registerAllTypeRules(OpRegistry& r) {
  registerElementwiseTypeRules(r);
  registerCreationTypeRules(r);
  registerViewTypeRules(r);
  registerCopyTypeRules(r);
  registerSelectionTypeRules(r);
  registerReductionTypeRules(r);
  registerContractionTypeRules(r);
}

}  // namespace stitch
