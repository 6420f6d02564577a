#include "ir/type_rules/type_rules.h"

namespace stitch {

void registerViewTypeRules(OpRegistry& r) {}

}  // namespace stitch
