#include "option_parser.h"

#include <cerrno>
#include <cstdlib>

#include "user_error.h"

namespace stitch::cli {

namespace {

const OptionDef* findDef(const std::vector<OptionDef>& defs, const std::string& name) {
  for (const OptionDef& d : defs)
    if (d.name == name) return &d;
  return nullptr;
}

}  // namespace

std::string ParsedOptions::get(const std::string& name, const std::string& fallback) const {
  auto it = values.find(name);
  return it == values.end() ? fallback : it->second.back();
}

const std::vector<std::string>& ParsedOptions::all(const std::string& name) const {
  static const std::vector<std::string> none;
  auto it = values.find(name);
  return it == values.end() ? none : it->second;
}

ParsedOptions parseOptions(const std::vector<std::string>& args,
                           const std::vector<OptionDef>& defs, const std::string& command) {
  ParsedOptions parsed;
  // Help wins over everything else on the line, even over bad options.
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (arg == "-h" || arg == "--help") {
      parsed.help = true;
      return parsed;
    }
  }
  bool optionsEnded = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (optionsEnded || arg.size() < 2 || arg[0] != '-') {
      parsed.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      optionsEnded = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0)
      throw userError("unknown option '", arg, "' for 'stitch ", command, "' (see stitch ", command,
                      " --help)");
    size_t eq = arg.find('=');
    std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const OptionDef* def = findDef(defs, name);
    if (!def)
      throw userError("unknown option '--", name, "' for 'stitch ", command, "' (see stitch ", command,
                      " --help)");
    std::string value;
    if (!def->takesValue) {
      if (eq != std::string::npos)
        throw userError("option '--", name, "' takes no value");
    } else if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      throw userError("option '--", name, "' needs a value");
    }
    if (parsed.has(name) && !def->repeatable)
      throw userError("option '--", name, "' is given more than once");
    parsed.values[name].push_back(value);
  }
  return parsed;
}

int64_t parseIntegerOption(const std::string& option, const std::string& text, int64_t min,
                           int64_t max) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  bool whole = !text.empty() && end == text.c_str() + text.size();
  if (!whole || errno == ERANGE || v < min || v > max)
    throw userError("--", option, " expects an integer in [", min, ", ", max, "], got '", text, "'");
  return v;
}

}  // namespace stitch::cli
