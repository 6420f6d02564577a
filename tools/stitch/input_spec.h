// What the command line says about one function input (`--input NAME=SPEC`):
//
//   f32[800,1333,3]        a random tensor of that dtype and shape
//   f32[]                  a random 0-dim tensor
//   2  0.5  -3  true       a scalar literal (typed later by the annotation)
//   [f32[2,3],f32[4]]      a list of specs (for List[...] parameters)
//
// Parsing only checks the spelling; binding to a parameter (input_binding.h)
// checks it against the parameter's annotation.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "stitch/stitch.h"

namespace stitch::cli {

struct InputSpec {
  enum class Kind { RandomTensor, Literal, List };
  Kind kind = Kind::Literal;
  // RandomTensor
  api::DType dtype = api::DType::f32;
  std::vector<int64_t> shape;
  // Literal: the text as written ("2", "0.5", "true")
  std::string literal;
  // List
  std::vector<InputSpec> elems;

  std::string str() const;  // back to the spelling above
};

struct NamedInputSpec {
  std::string name;
  InputSpec spec;
};

// Parses SPEC. Throws a userError ("bad input spec '...': ...") on bad spelling.
InputSpec parseInputSpec(const std::string& text);
// Parses NAME=SPEC.
NamedInputSpec parseNamedInputSpec(const std::string& text);

// Scalar literal classification, shared with binding.
enum class LiteralKind { Int, Float, Bool, Invalid };
LiteralKind classifyLiteral(const std::string& text);

}  // namespace stitch::cli
