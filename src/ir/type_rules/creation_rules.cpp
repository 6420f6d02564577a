#include "ir/type_rules/type_rules.h"

namespace stitch {

void registerCreationTypeRules(OpRegistry& r) {}

}  // namespace stitch
