// Static shape/dtype rules, one file per op family. Each family registers a
// TypeRule per op name with OpRegistry::setTypeRule. Rules use ir/shape_util.h
// so they agree with the interpreter's kernels.
#pragma once
#include "ir/op_registry.h"

namespace stitch {

void registerElementwiseTypeRules(OpRegistry& r);   // + in-place ops, where, masked_fill, clamp
void registerCreationTypeRules(OpRegistry& r);
void registerViewTypeRules(OpRegistry& r);          // views, size, immut.*
void registerCopyTypeRules(OpRegistry& r);          // clone, cat, stack, gather, to, ...
void registerSelectionTypeRules(OpRegistry& r);     // sort, topk, nonzero, index.get, scatter, ...
void registerReductionTypeRules(OpRegistry& r);
void registerContractionTypeRules(OpRegistry& r);

// Each piece's type of a chunk / split / unbind node whose piece count and
// lengths are static (pieces of an odd split differ in length, which the
// list's one element type cannot say); null otherwise.
std::optional<std::vector<TypePtr>> viewPieceTypes(const Node& n, const StaticValues& k);

}  // namespace stitch
