#include "ir/type_rules/type_rules.h"

namespace stitch {

void registerContractionTypeRules(OpRegistry& r) {}

}  // namespace stitch
