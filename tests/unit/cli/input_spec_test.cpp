#include "input_spec.h"

#include <gtest/gtest.h>

namespace stitch::cli {
namespace {

TEST(InputSpec, ParsesTensorSpecs) {
  InputSpec s = parseInputSpec("f32[800,1333,3]");
  EXPECT_EQ(s.kind, InputSpec::Kind::RandomTensor);
  EXPECT_EQ(s.dtype, api::DType::f32);
  EXPECT_EQ(s.shape, (std::vector<int64_t>{800, 1333, 3}));

  InputSpec scalar = parseInputSpec("f64[]");
  EXPECT_EQ(scalar.kind, InputSpec::Kind::RandomTensor);
  EXPECT_EQ(scalar.dtype, api::DType::f64);
  EXPECT_TRUE(scalar.shape.empty());

  EXPECT_EQ(parseInputSpec("i32[ 2 , 0 ]").shape, (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(parseInputSpec("i64[5]").dtype, api::DType::i64);
  EXPECT_EQ(parseInputSpec("bool[5]").dtype, api::DType::b8);
}

TEST(InputSpec, ParsesLiterals) {
  for (const char* text : {"2", "-3", "0.5", "1e-3", "true", "false", "True"}) {
    InputSpec s = parseInputSpec(text);
    EXPECT_EQ(s.kind, InputSpec::Kind::Literal) << text;
    EXPECT_EQ(s.literal, text);
  }
  EXPECT_EQ(classifyLiteral("2"), LiteralKind::Int);
  EXPECT_EQ(classifyLiteral("-3"), LiteralKind::Int);
  EXPECT_EQ(classifyLiteral("0.5"), LiteralKind::Float);
  EXPECT_EQ(classifyLiteral("2e3"), LiteralKind::Float);
  EXPECT_EQ(classifyLiteral("false"), LiteralKind::Bool);
  EXPECT_EQ(classifyLiteral("nan"), LiteralKind::Invalid);
  EXPECT_EQ(classifyLiteral("0x10"), LiteralKind::Invalid);
}

TEST(InputSpec, ParsesNestedLists) {
  InputSpec s = parseInputSpec("[f32[2,3], f32[4], [1, 2]]");
  ASSERT_EQ(s.kind, InputSpec::Kind::List);
  ASSERT_EQ(s.elems.size(), 3u);
  EXPECT_EQ(s.elems[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(s.elems[1].shape, (std::vector<int64_t>{4}));
  ASSERT_EQ(s.elems[2].kind, InputSpec::Kind::List);
  EXPECT_EQ(s.elems[2].elems[1].literal, "2");
  EXPECT_EQ(s.str(), "[f32[2,3],f32[4],[1,2]]");
  EXPECT_TRUE(parseInputSpec("[]").elems.empty());
}

TEST(InputSpec, RejectsBadSpellings) {
  for (const char* text : {"", "f16[2]", "f32[2", "f32[-1]", "f32[2,]", "f32[a]", "f32[2]x",
                           "[f32[2],", "hello", "1.2.3", "f32[2]]", "[f32[1] f32[2]]"}) {
    EXPECT_THROW(parseInputSpec(text), api::CompileError) << "'" << text << "'";
  }
}

TEST(InputSpec, NamedSpecs) {
  NamedInputSpec n = parseNamedInputSpec("src=f32[2,3]");
  EXPECT_EQ(n.name, "src");
  EXPECT_EQ(n.spec.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(parseNamedInputSpec("mean=-0.5").spec.literal, "-0.5");
  EXPECT_THROW(parseNamedInputSpec("src"), api::CompileError);
  EXPECT_THROW(parseNamedInputSpec("=f32[2]"), api::CompileError);
  EXPECT_THROW(parseNamedInputSpec("x=f32[2"), api::CompileError);
}

TEST(InputSpec, ErrorMessagesNameTheSpec) {
  try {
    parseInputSpec("f16[2]");
    FAIL() << "no error";
  } catch (const api::CompileError& e) {
    std::string text = e.what();
    EXPECT_NE(text.find("f16"), std::string::npos) << text;
    EXPECT_EQ(text.rfind("stitch: error: bad input spec 'f16[2]': ", 0), 0u) << text;  // no source location
  }
}

}  // namespace
}  // namespace stitch::cli
