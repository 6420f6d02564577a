// The example programs (examples/*.py) on small inputs: planned kernels,
// evaluated by the ThreadGraph evaluator, agree with the interpreter.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ugraph_test_util.h"

namespace stitch::ugraph_test {
namespace {

using functionalize_test::TL;

std::string example(const std::string& name) {
  std::ifstream in(std::filesystem::path(STITCH_SOURCE_DIR) / "examples" / name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Examples, Normalize) {
  Checked c = checkLowering({"normalize", example("normalize.py"), {T({20, 13, 3}), F(0.5), F(2.0)}});
  EXPECT_GE(c.kernels.kernels.size(), 1u);
}

TEST(Examples, Softmax) {
  Checked c = checkLowering({"softmax", example("softmax.py"), {T({16, 100})}}, 2, 1e-6);
  EXPECT_GE(c.kernels.kernels.size(), 2u);
}

TEST(Examples, LayerNorm) {
  Checked c = checkLowering({"layernorm", example("layernorm.py"), {T({8, 48}), T({48}), T({48}), F(1e-5)}}, 2, 1e-5);
  EXPECT_GE(c.kernels.kernels.size(), 3u);
}

TEST(Examples, BboxDecode) {
  Checked c = checkLowering({"bbox_decode", example("bbox_decode.py"),
                             {TL({{24, 4}, {24, 4}, {24, 4}}), TL({{24, 4}, {24, 4}, {24, 4}}), I(64), I(48)}},  // the harness types a list by its first element
                            2, 1e-6);
  EXPECT_GE(c.kernels.kernels.size(), 3u);
}

TEST(Examples, Lstm) {
  Checked c = checkLowering({"lstm", example("lstm.py"),
                             {T({3, 2, 8}), T({2, 32, 8}), T({2, 32, 8}), T({2, 32}), T({2, 2, 8}), T({2, 2, 8})}},
                            2, 1e-5);
  EXPECT_GE(c.kernels.kernels.size(), 3u);
}

}  // namespace
}  // namespace stitch::ugraph_test
