// Parsing of einsum expressions into a binary tree of named-dimension
// tensors, and the contraction order for expressions with > 2 operands.
//
//   tree notation:  [[8,4],[7,3,8]->[7,3,4]]   (ids, innermost dim last)
//   standard:       acfd,bcef->abed            (one letter per dim)
//
// In both forms a tensor lists its dims outermost first (row-major), so the
// last dim is the contiguous one.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace stitch::tensorop {

struct EinsumNode {
  std::vector<std::string> dims;  // this node's output, outermost first
  std::vector<std::unique_ptr<EinsumNode>> children;  // 0: input, 1: permute, 2: contraction
  int input = -1;                                    // operand index of a leaf
};

// Parses either notation, checks it against `sizes` (every dim needs one)
// and returns the tree; throws Error with a message on a bad expression.
std::unique_ptr<EinsumNode> parseEinsum(const std::string& expression,
                                        const std::map<std::string, int64_t>& sizes);

// Prints a tree in tree notation.
std::string toTreeString(const EinsumNode& node);

}  // namespace stitch::tensorop
