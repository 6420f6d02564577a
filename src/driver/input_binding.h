// Turns the command line's inputs (--input NAME=SPEC, --inputs IN.npz) into
// one run-time value per parameter of the entry function, checked against
// the parameter annotations:
//   Tensor          a tensor spec (random) or an .npz member NAME
//   int/float/bool  a scalar literal (an int literal is fine for a float), or
//                   a 0-dim .npz member NAME
//   List[T]         a bracketed list of specs, or .npz members NAME_0, NAME_1, ...
//   Tuple[...]      a bracketed list of specs, one per element
// Random tensors come from one InputRandom seeded with `seed`, drawn in
// parameter order. A name given twice, a name the function lacks, or an
// .npz member nobody uses is an error.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "driver/input_spec.h"
#include "driver/npz.h"
#include "frontend/frontend.h"
#include "interp/ivalue.h"
#include "passes/specialize_lists.h"

namespace stitch {

struct InputSources {
  std::vector<NamedInputSpec> specs;  // --input, in command-line order
  std::vector<NamedTensor> arrays;    // members of --inputs
  std::string arraysFile;             // the --inputs path, for messages
  uint64_t seed = 0;
};

struct BoundInputs {
  IValueList values;           // one per parameter
  std::vector<TypePtr> types;  // their concrete types, for shape inference
  // Per parameter: a list's element types one by one (types[i] joins them:
  // List[f32[?,4]]), nullopt for other parameters. For
  // PipelineOptions::listInputs, so the pipeline specializes on the lists too.
  ListInputTypes listElements;
};

// Every parameter must be given. Throws UserError.
BoundInputs bindInputs(const FunctionSignature& fn, const InputSources& sources);

// For `dump`: parameters that are not given keep their annotation's type.
std::vector<TypePtr> bindInputTypes(const FunctionSignature& fn, const InputSources& sources);
// For `dump`: BoundInputs::listElements without allocating any tensor
// (nullopt for parameters that are not given).
ListInputTypes bindListElementTypes(const FunctionSignature& fn, const InputSources& sources);

// The concrete type of a run-time value (tensor dtype and shape, list element type).
TypePtr typeOfValue(const IValue& value);

// Deep copy of tensors (inside lists and tuples too), so a program that
// writes its inputs in place can be run again on the original values.
IValueList cloneValues(const IValueList& values);

}  // namespace stitch
