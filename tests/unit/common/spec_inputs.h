// Arguments from NAME=SPEC strings (`f32[2,3]`, `0.5`, `[f32[2],f32[3]]`)
// as `stitch run --input` makes them: parsed and bound by the command's own
// binder (tools/stitch), defaults filled by the public API, then handed to
// the runtime as its values, with the types the pipeline specializes on.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/argument_types.h"
#include "api/value_bridge.h"
#include "driver/program_loader.h"
#include "input_binding.h"
#include "input_spec.h"

namespace stitch::testing {

struct SpecInputs {
  IValueList values;            // one per parameter
  std::vector<TypePtr> types;   // their concrete types, for shape inference
  ListInputTypes listElements;  // for PipelineOptions::listInputs
};

inline cli::InputSources specSources(const std::vector<std::string>& specs, uint64_t seed) {
  cli::InputSources sources;
  sources.seed = seed;
  for (const std::string& s : specs) sources.specs.push_back(cli::parseNamedInputSpec(s));
  return sources;
}

inline api::Function publicFunction(const LoadedProgram& program) {
  return api::Module::fromFile(program.path).function(program.entry.name);
}

// Random tensors from `seed`, as `stitch run --seed` draws them.
inline SpecInputs bindSpecs(const LoadedProgram& program, const std::vector<std::string>& specs, uint64_t seed = 0) {
  api::Function fn = publicFunction(program);
  std::vector<api::Value> args = fn.bind({}, cli::bindInputs(fn, specSources(specs, seed)));
  std::vector<std::optional<api::Value>> given(args.begin(), args.end());
  return {toIValues(args), argumentTypes(program.entry, given), listElementTypes(program.entry, given)};
}

// The types alone, as `stitch dump` takes them: nothing is allocated, and a
// parameter without a spec keeps its annotation.
inline std::vector<TypePtr> specTypes(const LoadedProgram& program, const std::vector<std::string>& specs) {
  return argumentTypes(program.entry, cli::bindInputTypes(publicFunction(program), specSources(specs, 0)));
}

}  // namespace stitch::testing
