// `stitch dump`: prints the IR after a stage, or after every pass (--stage
// all): graph IR, then the kernel graph, the uops and the C source. Nothing
// is compiled, so dump works without a C compiler.
#include <iostream>

#include "command_options.h"
#include "commands.h"
#include "input_binding.h"
#include "usage.h"

namespace stitch::cli {

int dumpCommand(const std::vector<std::string>& args) {
  DumpOptions o = parseDumpOptions(args);
  if (o.help) {
    std::cout << kDumpUsage;
    return 0;
  }
  api::Function fn = api::Module::fromFile(o.file).function(o.fn);
  InputSources sources;
  sources.specs = o.inputs;
  std::cout << fn.dump(bindInputTypes(fn, sources), o.stage, o.device, o.threads);
  return 0;
}

}  // namespace stitch::cli
