#include "ir/type_rules/type_rules.h"

namespace stitch {

void registerElementwiseTypeRules(OpRegistry& r) {}

}  // namespace stitch
