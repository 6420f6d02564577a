// Turns the command line's inputs (--input NAME=SPEC, --inputs IN.npz) into
// arguments of the function, checked against the parameter annotations:
//   Tensor          a tensor spec (random) or an .npz member NAME
//   int/float/bool  a scalar literal (an int literal is fine for a float), or
//                   a 0-dim .npz member NAME
//   List[T]         a bracketed list of specs, or .npz members NAME_0, NAME_1, ...
//   Tuple[...]      a bracketed list of specs, one per element
// Random tensors come from one InputRandom seeded with `seed`, drawn in
// parameter order. A name given twice, a name the function lacks, or an
// .npz member nobody uses is an error; so is a parameter left out, unless
// it has a default (api::Function::bind fills that in).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "input_spec.h"
#include "npz.h"
#include "stitch/stitch.h"

namespace stitch::cli {

struct InputSources {
  std::vector<NamedInputSpec> specs;  // --input, in command-line order
  std::vector<NamedTensor> arrays;    // members of --inputs
  std::string arraysFile;             // the --inputs path, for messages
  uint64_t seed = 0;
};

// Keyword arguments for api::Function::bind, one per parameter given, in
// parameter order. Throws a userError.
std::vector<std::pair<std::string, api::Value>> bindInputs(const api::Function& fn, const InputSources& sources);

// For `dump`: one entry per parameter, nullopt where none is given (the
// parameter keeps its annotation); random tensors are type-only
// (api::Tensor::typeOnly), so nothing is allocated.
std::vector<std::optional<api::Value>> bindInputTypes(const api::Function& fn, const InputSources& sources);

}  // namespace stitch::cli
