#include "driver/program_loader.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace stitch {

std::string readSourceFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UserError(errorMessage("cannot read '", path, "': it is a directory"));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(errorMessage("cannot open '", path, "': ", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw UserError(errorMessage("cannot read '", path, "'"));
  return text.str();
}

LoadedProgram loadProgram(const std::string& path, const std::string& fnName) {
  LoadedProgram program;
  program.path = path;
  program.module = SourceModule::parse(readSourceFile(path), path);
  std::vector<FunctionSignature> functions = program.module->functions();
  if (functions.empty()) throw UserError(errorMessage(path, " defines no function"));
  if (fnName.empty()) {
    program.entry = functions.back();
    return program;
  }
  std::string names;
  for (const FunctionSignature& f : functions) {
    if (f.name == fnName) {
      program.entry = f;
      return program;
    }
    names += (names.empty() ? "" : ", ") + f.name;
  }
  throw UserError(errorMessage("no function '", fnName, "' in ", path, " (it defines ", names, ")"));
}

}  // namespace stitch
