#include "ir/einsum_spec.h"

#include <algorithm>

#include "common/error.h"
#include "ir/reduction_dtypes.h"

namespace stitch {

namespace {

int letterLabel(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -2;
}

// Parses one side's subscripts: letters, spaces and one "...". `what` names
// the side in messages ("operand 0", "output"); indices in messages are
// positions in the whole equation.
std::vector<int> parseSubscripts(const std::string& eq, size_t begin, size_t end,
                                 const std::string& what, bool isOutput) {
  std::vector<int> subs;
  bool sawEllipsis = false;
  for (size_t i = begin; i < end; ++i) {
    char c = eq[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (sawEllipsis) {
        throw UserError(errorMessage("einsum(): found '.' for ", what,
                                     " for which an ellipsis was already found"));
      }
      bool isEllipsis = i + 2 < end && eq[i + 1] == '.' && eq[i + 2] == '.';
      if (!isEllipsis) {
        throw UserError(errorMessage("einsum(): found '.' for ", what,
                                     " that is not part of any ellipsis",
                                     isOutput ? " (...)" : ""));
      }
      sawEllipsis = true;
      subs.push_back(kEinsumEllipsis);
      i += 2;
      continue;
    }
    int label = letterLabel(c);
    if (label < 0) {
      throw UserError(errorMessage("einsum(): invalid subscript given at index ", i,
                                   " in the equation string, subscripts must be in [a-zA-Z]"));
    }
    subs.push_back(label);
  }
  return subs;
}

size_t letterCount(const std::vector<int>& subs) {
  return (size_t)std::count_if(subs.begin(), subs.end(),
                               [](int s) { return s != kEinsumEllipsis; });
}

}  // namespace

char einsumLabelChar(int label) {
  if (label < 26) return (char)('A' + label);
  if (label < kEinsumLetters) return (char)('a' + label - 26);
  return '.';
}

EinsumEquation parseEinsumEquation(const std::string& equation, size_t numOperands) {
  EinsumEquation eq;
  size_t arrow = equation.find("->");
  size_t lhsEnd = arrow == std::string::npos ? equation.size() : arrow;
  size_t start = 0;
  for (size_t i = 0; i <= lhsEnd; ++i) {
    if (i < lhsEnd && equation[i] != ',') continue;
    std::string what = errorMessage("operand ", eq.inputs.size());
    eq.inputs.push_back(parseSubscripts(equation, start, i, what, false));
    start = i + 1;
  }
  if (arrow != std::string::npos)
    eq.output = parseSubscripts(equation, arrow + 2, equation.size(), "output", true);
  if (eq.inputs.size() > numOperands)
    throw UserError("einsum(): fewer operands were provided than specified in the equation");
  if (eq.inputs.size() < numOperands)
    throw UserError("einsum(): more operands were provided than specified in the equation");
  if (!eq.output) return eq;
  std::vector<bool> inInput(kEinsumLetters, false), inOutput(kEinsumLetters, false);
  for (const auto& subs : eq.inputs)
    for (int s : subs)
      if (s != kEinsumEllipsis) inInput[s] = true;
  for (int s : *eq.output) {
    if (s == kEinsumEllipsis) continue;
    if (inOutput[s]) {
      throw UserError(errorMessage("einsum(): output subscript ", einsumLabelChar(s),
                                   " appears more than once in the output"));
    }
    if (!inInput[s]) {
      throw UserError(errorMessage("einsum(): output subscript ", einsumLabelChar(s),
                                   " does not appear in the equation for any input operand"));
    }
    inOutput[s] = true;
  }
  return eq;
}

EinsumLabels resolveEinsumLabels(const EinsumEquation& eq, const std::vector<int64_t>& ranks) {
  STITCH_ASSERT(ranks.size() == eq.inputs.size(), "einsum operand count");
  std::vector<int64_t> ellipsisDims(ranks.size(), 0);
  int64_t width = 0;
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    const auto& subs = eq.inputs[i];
    int64_t letters = (int64_t)letterCount(subs);
    bool hasEllipsis = letters != (int64_t)subs.size();
    if (!hasEllipsis && letters != ranks[i]) {
      throw UserError(errorMessage("einsum(): the number of subscripts in the equation (", letters,
                                   ") does not match the number of dimensions (", ranks[i],
                                   ") for operand ", i, " and no ellipsis was given"));
    }
    if (hasEllipsis && letters > ranks[i]) {
      throw UserError(errorMessage("einsum(): the number of subscripts in the equation (", letters,
                                   ") is more than the number of dimensions (", ranks[i],
                                   ") for operand ", i));
    }
    ellipsisDims[i] = hasEllipsis ? ranks[i] - letters : 0;
    width = std::max(width, ellipsisDims[i]);
  }
  EinsumLabels out;
  out.numLabels = kEinsumLetters + (int)width;
  std::vector<int> uses(out.numLabels, 0);
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    std::vector<int> labels;
    for (int s : eq.inputs[i]) {
      if (s != kEinsumEllipsis) {
        labels.push_back(s);
        continue;
      }
      for (int64_t k = width - ellipsisDims[i]; k < width; ++k)
        labels.push_back(kEinsumLetters + (int)k);
    }
    for (int l : labels) ++uses[l];
    out.inputs.push_back(std::move(labels));
  }
  if (eq.output) {
    for (int s : *eq.output) {
      if (s != kEinsumEllipsis) {
        out.output.push_back(s);
        continue;
      }
      for (int64_t k = 0; k < width; ++k) out.output.push_back(kEinsumLetters + (int)k);
    }
    return out;
  }
  for (int64_t k = 0; k < width; ++k) out.output.push_back(kEinsumLetters + (int)k);
  for (int l = 0; l < kEinsumLetters; ++l)
    if (uses[l] == 1) out.output.push_back(l);
  return out;
}

static int64_t broadcastLabelSize(int64_t seen, int64_t size) {
  if (seen == size || size == 1) return seen;
  if (seen == 1) return size;
  if (seen < 0) return size > 1 ? size : seen;
  if (size < 0) return seen;
  return -2;  // conflict
}

std::vector<int64_t> einsumLabelSizes(const EinsumLabels& labels, const std::vector<Dims>& shapes) {
  std::vector<int64_t> sizes(labels.numLabels, -1);
  std::vector<bool> seen(labels.numLabels, false);
  for (size_t i = 0; i < labels.inputs.size(); ++i) {
    const auto& ls = labels.inputs[i];
    std::vector<int64_t> local(labels.numLabels, -3);  // -3: not in this operand yet
    for (size_t d = 0; d < ls.size(); ++d) {
      int l = ls[d];
      int64_t s = shapes[i][d];
      if (local[l] == -3 || local[l] < 0) {
        if (local[l] == -3 || s >= 0) local[l] = s;
        continue;
      }
      if (s >= 0 && s != local[l]) {
        throw UserError(errorMessage("einsum(): subscript ", einsumLabelChar(l),
                                     " is repeated for operand ", i, " but the sizes don't match, ",
                                     s, " != ", local[l]));
      }
    }
    for (size_t d = 0; d < ls.size(); ++d) {
      int l = ls[d];
      if (local[l] == -3) continue;
      int64_t s = local[l];
      local[l] = -3;
      if (!seen[l]) {
        seen[l] = true;
        sizes[l] = s;
        continue;
      }
      int64_t merged = broadcastLabelSize(sizes[l], s);
      if (merged != -2) {
        sizes[l] = merged;
        continue;
      }
      if (l >= kEinsumLetters) {
        throw UserError(errorMessage(
            "einsum(): dimension ", d, " covered by ellipsis in operand ", i, " has size ", s,
            " which does not broadcast with previously seen ellipsis with size ", sizes[l],
            " for the respective dimension"));
      }
      throw UserError(
          errorMessage("einsum(): subscript ", einsumLabelChar(l), " has size ", s, " for operand ",
                       i, " which does not broadcast with previously seen size ", sizes[l]));
    }
  }
  return sizes;
}

Dims einsumOutputShape(const EinsumLabels& labels, const std::vector<int64_t>& sizes) {
  Dims out;
  for (int l : labels.output) out.push_back(sizes[l]);
  return out;
}

namespace {

// One operand (or partial result) during the dtype walk: its dtype and
// which labels it has with a size other than 1.
struct DTypeWalkOperand {
  DType dtype;
  std::vector<bool> wide;
};

}  // namespace

std::optional<DType> einsumResultDType(const EinsumLabels& labels, const std::vector<Dims>& shapes,
                                       const std::vector<DType>& dtypes) {
  bool allSame = std::all_of(dtypes.begin(), dtypes.end(), [&](DType t) { return t == dtypes[0]; });
  if (allSame && isFloating(dtypes[0])) return dtypes[0];
  std::vector<bool> contracted(labels.numLabels, true);
  for (int l : labels.output) contracted[l] = false;
  bool anyContracted = false;
  std::vector<DTypeWalkOperand> ops;
  std::vector<int> wideCount(labels.numLabels, 0);
  bool uncertain = false;
  for (size_t i = 0; i < labels.inputs.size(); ++i) {
    DTypeWalkOperand op{dtypes[i], std::vector<bool>(labels.numLabels, false)};
    for (size_t d = 0; d < labels.inputs[i].size(); ++d) {
      int l = labels.inputs[i][d];
      int64_t size = shapes[i][d];
      uncertain = uncertain || size < 0;
      anyContracted = anyContracted || contracted[l];
      if (size != 1 && !op.wide[l]) {
        op.wide[l] = true;
        ++wideCount[l];
      }
    }
    ops.push_back(std::move(op));
  }
  if (ops.size() == 1) return anyContracted ? sumLikeDType(dtypes[0], std::nullopt) : dtypes[0];
  DTypeWalkOperand acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    DTypeWalkOperand b = ops[i];
    bool contracts = false, sumInAcc = false, sumInB = false;
    for (int l = 0; l < labels.numLabels; ++l) {
      if (!contracted[l]) continue;
      if (acc.wide[l] && b.wide[l]) {
        if (--wideCount[l] == 1) {
          contracts = true;
          wideCount[l] = 0;
          acc.wide[l] = b.wide[l] = false;
        }
        continue;
      }
      if (wideCount[l] != 1) continue;
      DTypeWalkOperand& owner = acc.wide[l] ? acc : b;
      if (!owner.wide[l]) continue;
      (&owner == &acc ? sumInAcc : sumInB) = true;
      owner.wide[l] = false;
      wideCount[l] = 0;
    }
    if (sumInAcc) acc.dtype = sumLikeDType(acc.dtype, std::nullopt);
    if (sumInB) b.dtype = sumLikeDType(b.dtype, std::nullopt);
    for (int l = 0; l < labels.numLabels; ++l) acc.wide[l] = acc.wide[l] || b.wide[l];
    if (!contracts) {
      acc.dtype = promoteTypes(acc.dtype, b.dtype);
      continue;
    }
    if (acc.dtype == DType::b8) {
      if (uncertain) return std::nullopt;
      throw UserError("\"bmm\" not implemented for 'Bool'");
    }
    if (acc.dtype != b.dtype) {
      if (uncertain) return std::nullopt;
      throw UserError(errorMessage("expected scalar type ", torchScalarTypeName(acc.dtype),
                                   " but found ", torchScalarTypeName(b.dtype)));
    }
  }
  return acc.dtype;
}

}  // namespace stitch
