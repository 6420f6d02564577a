// Command-line options of the `stitch` subcommands: `--name value`,
// `--name=value`, flags, repeatable options, positional arguments, `--`
// ending the options, `-h`/`--help`. Errors are userErrors, so the command
// prints `stitch: error: ...` and exits 2.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace stitch::cli {

struct OptionDef {
  std::string name;  // without dashes: "input"
  bool takesValue = true;
  bool repeatable = false;
};

struct ParsedOptions {
  bool help = false;
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> values;  // flags hold one "" each

  bool has(const std::string& name) const { return values.count(name) != 0; }
  // The option's value, or fallback when absent.
  std::string get(const std::string& name, const std::string& fallback = "") const;
  const std::vector<std::string>& all(const std::string& name) const;
};

// `command` names the subcommand in messages ("run").
ParsedOptions parseOptions(const std::vector<std::string>& args,
                           const std::vector<OptionDef>& defs, const std::string& command);

// "--bench expects an integer in [1, 1000000], got 'x'".
int64_t parseIntegerOption(const std::string& option, const std::string& text, int64_t min,
                           int64_t max);

}  // namespace stitch::cli
