// `stitch`: dispatches to a subcommand and turns every failure into one line
// on stderr and an exit code (2 bad program or arguments, 1 run-time failure
// or internal error). Nothing escapes: no abort, no stack trace.
#include <cstdio>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "commands.h"
#include "stitch/stitch.h"
#include "usage.h"
#include "user_error.h"

namespace {

namespace api = stitch::api;

int einsumDispatch(const std::vector<std::string>& args) {
#ifdef STITCH_HAVE_TENSOROP
  return stitch::cli::einsumCommand(args);
#else
  (void)args;
  std::cerr << "stitch: error: einsum is not available in this build\n";
  return 2;
#endif
}

int dispatch(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::cerr << stitch::cli::kMainUsage;
    return 2;
  }
  const std::string& command = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "-h" || command == "--help" || command == "help") {
    std::cout << stitch::cli::kMainUsage;
    return 0;
  }
  if (command == "--version" || command == "version") {
    std::cout << stitch::cli::versionLine() << "\n";
    return 0;
  }
  if (command == "run") return stitch::cli::runCommand(rest);
  if (command == "dump") return stitch::cli::dumpCommand(rest);
  if (command == "einsum") return einsumDispatch(rest);
  throw stitch::cli::userError("unknown command '", command, "' (expected run, dump or einsum; see stitch --help)");
}

int fail(const std::string& line, int code) {
  std::cout.flush();
  std::cerr << line << "\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return dispatch(args);
  } catch (const api::CompileError& e) {
    return fail(e.what(), 2);
  } catch (const api::RunError& e) {
    return fail(e.what(), 1);
  } catch (const api::InternalError& e) {
    return fail(e.what(), 1);
  } catch (const std::bad_alloc&) {
    return fail("stitch: error: out of memory", 1);
  } catch (const std::exception& e) {
    return fail(std::string("stitch: internal error: ") + e.what(), 1);
  } catch (...) {
    return fail("stitch: internal error: unknown exception", 1);
  }
}
