// The arguments a compiled program's run may write where they lie
// (runtime/executable.h, ExecutableOptions::writtenBackInputs).
#pragma once
#include <vector>

#include "interp/ivalue.h"

namespace stitch {

// An argument the run may write where it lies: a dense tensor the caller
// overwrites with the program's final value of it anyway, sharing no
// memory with another argument (which must keep its values for the program
// to read), with the references to its storage the caller holds.
struct WritableArgument {
  const Storage* storage;
  long callerReferences;
};

// The written-back arguments (`writtenBack`, per input) that are dense and
// share no memory with another argument.
std::vector<WritableArgument> writableArguments(const IValueList& inputs, const std::vector<bool>& writtenBack);

}  // namespace stitch
