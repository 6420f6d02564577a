#include "command_options.h"

#include <gtest/gtest.h>

#include "option_parser.h"

namespace stitch::cli {
namespace {

// A user error is one line without a source location: "stitch: error: ...".
std::string messageOf(const api::CompileError& e) {
  std::string text = e.what();
  const std::string prefix = "stitch: error: ";
  EXPECT_EQ(text.rfind(prefix, 0), 0u) << text;
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
  return text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text;
}

std::string runError(std::vector<std::string> args) {
  try {
    parseRunOptions(args);
  } catch (const api::CompileError& e) {
    return messageOf(e);
  }
  return "";
}

std::string dumpError(std::vector<std::string> args) {
  try {
    parseDumpOptions(args);
  } catch (const api::CompileError& e) {
    return messageOf(e);
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(RunOptions, ParsesTheContract) {
  RunOptions o = parseRunOptions({"examples/normalize.py", "--input", "src=f32[8,9,3]",
                                  "--input=mean=0.5", "--fn", "normalize", "--inputs", "in.npz",
                                  "--outputs=o.npz", "--mode", "interp", "--stage", "parsed",
                                  "--check", "--bench", "7", "--seed", "42", "--threads", "3",
                                  "--json"});
  EXPECT_EQ(o.file, "examples/normalize.py");
  EXPECT_EQ(o.fn, "normalize");
  ASSERT_EQ(o.inputs.size(), 2u);
  EXPECT_EQ(o.inputs[0].name, "src");
  EXPECT_EQ(o.inputs[1].spec.literal, "0.5");
  EXPECT_EQ(o.inputsFile, "in.npz");
  EXPECT_EQ(o.outputsFile, "o.npz");
  EXPECT_EQ(o.mode, api::Mode::Interp);
  EXPECT_EQ(o.stage, api::Stage::Parsed);
  EXPECT_TRUE(o.check);
  EXPECT_EQ(o.bench, 7);
  EXPECT_EQ(o.seed, 42u);
  EXPECT_EQ(o.threads, 3);
  EXPECT_TRUE(o.json);
}

TEST(RunOptions, Defaults) {
  RunOptions o = parseRunOptions({"f.py"});
  EXPECT_EQ(o.mode, api::Mode::Compiled);
  EXPECT_EQ(o.stage, api::Stage::Parsed);
  EXPECT_EQ(o.seed, 0u);
  EXPECT_EQ(o.bench, 0);
  EXPECT_FALSE(o.check);
  EXPECT_FALSE(o.json);
  EXPECT_TRUE(o.fn.empty());
}

TEST(RunOptions, HelpWinsOverEverythingElse) {
  EXPECT_TRUE(parseRunOptions({"--help"}).help);
  EXPECT_TRUE(parseRunOptions({"f.py", "--stage", "parsed", "-h"}).help);
  EXPECT_TRUE(parseRunOptions({"-h"}).help);
  EXPECT_TRUE(parseRunOptions({"--bogus", "--help"}).help);
}

TEST(RunOptions, RejectsBadArguments) {
  EXPECT_TRUE(contains(runError({}), "missing FILE.py"));
  EXPECT_TRUE(contains(runError({"a.py", "b.py"}), "unexpected argument 'b.py'"));
  EXPECT_TRUE(contains(runError({"f.py", "--frobnicate"}), "unknown option '--frobnicate'"));
  EXPECT_TRUE(contains(runError({"f.py", "-x"}), "unknown option '-x'"));
  EXPECT_TRUE(contains(runError({"f.py", "--fn"}), "'--fn' needs a value"));
  EXPECT_TRUE(contains(runError({"f.py", "--fn", "a", "--fn", "b"}), "more than once"));
  EXPECT_TRUE(contains(runError({"f.py", "--json=yes"}), "takes no value"));
  EXPECT_TRUE(contains(runError({"f.py", "--bench", "0"}), "--bench expects an integer"));
  EXPECT_TRUE(contains(runError({"f.py", "--bench", "ten"}), "--bench expects an integer"));
  EXPECT_TRUE(contains(runError({"f.py", "--seed", "-1"}), "--seed expects an integer"));
  EXPECT_TRUE(contains(runError({"f.py", "--threads", "2x"}), "--threads expects an integer"));
  EXPECT_TRUE(contains(runError({"f.py", "--mode", "fast"}), "--mode expects interp or compiled"));
  EXPECT_TRUE(contains(runError({"f.py", "--input", "x"}), "expected NAME=SPEC"));
  EXPECT_TRUE(contains(runError({"f.py", "--input", "x=f99[2]"}), "unknown dtype 'f99'"));
  EXPECT_TRUE(contains(runError({"f.py", "--mode", "interp", "--stage", "fused"}),
                       "--stage expects one of"));
  EXPECT_TRUE(contains(runError({"f.py", "--inputs="}), "--inputs needs a file name"));
  EXPECT_TRUE(contains(runError({"f.py", "--mode", "interp", "--tune"}), "--tune applies to --mode compiled"));
  EXPECT_TRUE(parseRunOptions({"f.py", "--tune"}).tune);
}

TEST(RunOptions, StageBelongsToInterpMode) {
  EXPECT_EQ(parseRunOptions({"f.py", "--mode", "compiled"}).mode, api::Mode::Compiled);
  EXPECT_EQ(parseRunOptions({"f.py", "--mode", "interp", "--stage", "functional"}).stage,
            api::Stage::Functional);
  EXPECT_EQ(parseRunOptions({"f.py", "--stage", "simplified", "--mode", "interp"}).stage,
            api::Stage::Simplified);
  for (std::vector<std::string> args : {std::vector<std::string>{"f.py", "--stage", "functional"},
                                        {"f.py", "--mode", "compiled", "--stage", "parsed"}})
    EXPECT_TRUE(contains(runError(args), "--stage applies to --mode interp"));
}

TEST(DumpOptions, StagesAndErrors) {
  EXPECT_EQ(parseDumpOptions({"f.py"}).stage, api::Stage::Parsed);
  EXPECT_FALSE(parseDumpOptions({"f.py", "--stage", "all"}).stage.has_value());
  DumpOptions o = parseDumpOptions({"f.py", "--fn", "g", "--input", "x=f32[2]"});
  EXPECT_EQ(o.fn, "g");
  ASSERT_EQ(o.inputs.size(), 1u);
  EXPECT_EQ(parseDumpOptions({"f.py", "--stage", "fused"}).stage, api::Stage::Fused);
  EXPECT_EQ(parseDumpOptions({"f.py", "--stage", "ugraph"}).stage, api::Stage::UGraph);
  EXPECT_EQ(parseDumpOptions({"f.py", "--stage", "uops"}).stage, api::Stage::UOps);
  EXPECT_EQ(parseDumpOptions({"f.py", "--stage", "code"}).stage, api::Stage::Code);
  EXPECT_EQ(parseDumpOptions({"f.py", "--stage", "functional"}).stage, api::Stage::Functional);
  EXPECT_EQ(parseDumpOptions({"f.py", "--stage", "simplified"}).stage, api::Stage::Simplified);
  EXPECT_TRUE(contains(dumpError({"f.py", "--stage", "fast"}), "--stage expects one of"));
  EXPECT_TRUE(contains(dumpError({"f.py", "--json"}), "unknown option '--json'"));
  EXPECT_TRUE(contains(dumpError({}), "missing FILE.py"));
  EXPECT_EQ(parseDumpOptions({"f.py"}).threads, 0);
  EXPECT_EQ(parseDumpOptions({"f.py", "--threads", "3"}).threads, 3);
  EXPECT_TRUE(contains(dumpError({"f.py", "--threads", "0"}), "--threads expects an integer in [1, 4096]"));
}

TEST(OptionParser, SeparatorAndRepeats) {
  std::vector<OptionDef> defs = {{"x", true, true}, {"flag", false}};
  ParsedOptions p = parseOptions({"--x", "1", "--", "--flag", "--x=2"}, defs, "t");
  EXPECT_EQ(p.all("x"), (std::vector<std::string>{"1"}));
  EXPECT_EQ(p.positional, (std::vector<std::string>{"--flag", "--x=2"}));
  EXPECT_FALSE(p.has("flag"));
  EXPECT_EQ(p.get("missing", "fallback"), "fallback");
  EXPECT_EQ(parseIntegerOption("n", "12", 0, 100), 12);
  EXPECT_THROW(parseIntegerOption("n", "101", 0, 100), api::CompileError);
  EXPECT_THROW(parseIntegerOption("n", "", 0, 100), api::CompileError);
  EXPECT_THROW(parseIntegerOption("n", "99999999999999999999999", 0, INT64_MAX), api::CompileError);
}

}  // namespace
}  // namespace stitch::cli
