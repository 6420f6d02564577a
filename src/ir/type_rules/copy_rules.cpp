#include "ir/type_rules/type_rules.h"

namespace stitch {

void registerCopyTypeRules(OpRegistry& r) {}

}  // namespace stitch
