// einsum equations ("ij,jk->ik", "bij,bjk", "...ij,...jk->...ik"): parsing,
// matching against the operands' ranks, and label sizes with PyTorch's rules
// (a subscript repeated within an operand takes a diagonal; sizes of 1
// broadcast across operands; an implicit output lists the ellipsis dims and
// then the subscripts that appear once, in alphabetical order, upper case
// first). Shared by the static type rule and the interpreter's kernel.
// Functions throw UserError without a location, with PyTorch's messages.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/shape_util.h"

namespace stitch {

constexpr int kEinsumEllipsis = -1;  // "..." in a subscript list
constexpr int kEinsumLetters = 52;   // 'A'..'Z' -> 0..25, 'a'..'z' -> 26..51

struct EinsumEquation {
  std::vector<std::vector<int>> inputs;    // subscripts per operand
  std::optional<std::vector<int>> output;  // nullopt: implicit output
};

// Syntax checks, then the operand count.
EinsumEquation parseEinsumEquation(const std::string& equation, size_t numOperands);

// Every operand dim and output dim gets a label id: letters keep theirs,
// ellipsis dims get kEinsumLetters + k (aligned to the right across operands).
struct EinsumLabels {
  std::vector<std::vector<int>> inputs;  // one label per operand dim
  std::vector<int> output;
  int numLabels = kEinsumLetters;
};

EinsumLabels resolveEinsumLabels(const EinsumEquation& eq, const std::vector<int64_t>& ranks);

// Size of every label id (-1: unknown or unused), checking repeated
// subscripts and broadcasting. Shapes may hold -1.
std::vector<int64_t> einsumLabelSizes(const EinsumLabels& labels, const std::vector<Dims>& shapes);

Dims einsumOutputShape(const EinsumLabels& labels, const std::vector<int64_t>& sizes);

// The result dtype of torch.einsum, which evaluates left to right: a
// contracted label that only one operand still has is summed in that
// operand first (integer and bool sums give i64); a pair with no label left
// to contract multiplies with type promotion; a pair that contracts labels
// uses a batched product, which needs equal dtypes and no bool. A single
// operand with any contracted label is summed. Throws PyTorch's messages;
// nullopt when unknown (-1) sizes leave the answer open.
std::optional<DType> einsumResultDType(const EinsumLabels& labels, const std::vector<Dims>& shapes,
                                       const std::vector<DType>& dtypes);

// The subscript letter of a label id (for messages).
char einsumLabelChar(int label);

}  // namespace stitch
