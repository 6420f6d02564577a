// Reads a source file and picks its entry function: the one named by --fn,
// or the last function in the file.
#pragma once
#include <memory>
#include <string>

#include "frontend/frontend.h"

namespace stitch {

struct LoadedProgram {
  std::string path;  // as given (error locations use it)
  std::unique_ptr<SourceModule> module;
  FunctionSignature entry;
};

// Throws UserError: file missing or unreadable, syntax errors (with their
// location), no function in the file, no function named fnName.
LoadedProgram loadProgram(const std::string& path, const std::string& fnName = "");

// The file's contents; throws UserError when it cannot be read.
std::string readSourceFile(const std::string& path);

}  // namespace stitch
