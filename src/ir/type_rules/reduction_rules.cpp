#include "ir/type_rules/type_rules.h"

namespace stitch {

void registerReductionTypeRules(OpRegistry& r) {}

}  // namespace stitch
