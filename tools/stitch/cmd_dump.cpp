// `stitch dump`: prints the IR after a stage, or after every pass (--stage
// all): graph IR, then the kernel graph, the uops and the C source. Nothing
// is compiled, so dump works without a C compiler.
#include <iostream>

#include "commands.h"
#include "driver/command_options.h"
#include "driver/input_binding.h"
#include "driver/pipeline.h"
#include "driver/program_loader.h"
#include "usage.h"

namespace stitch::cli {

int dumpCommand(const std::vector<std::string>& args) {
  DumpOptions o = parseDumpOptions(args);
  if (o.help) {
    std::cout << kDumpUsage;
    return 0;
  }
  LoadedProgram program = loadProgram(o.file, o.fn);
  InputSources sources;
  sources.specs = o.inputs;
  std::vector<TypePtr> types = bindInputTypes(program.entry, sources);

  PassLogger logger = PassLogger::fromEnvironment(!o.stage.has_value());
  PipelineOptions pipelineOptions;
  pipelineOptions.last = o.stage.value_or(lastAvailableStage());
  pipelineOptions.listInputs = bindListElementTypes(program.entry, sources);
  PipelineResult result =
      runPipeline(*program.module, program.entry.name, types, pipelineOptions, logger);
  if (o.stage) {
    std::cout << stageText(result, *o.stage);
  } else {
    for (const PassRecord& record : logger.records()) std::cout << PassLogger::format(record);
  }
  if (!result.functionalFallback.empty())
    std::cout << "# functionalization refused this program; later stages keep it as written: "
              << result.functionalFallback << "\n";
  return 0;
}

}  // namespace stitch::cli
