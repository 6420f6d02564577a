// The example programs through the front end, the IR text form and shape
// inference: each stage's graph verifies, prints and parses back to the same
// text, and the outputs get their static shapes.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "frontend/frontend.h"
#include "ir/ir_parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/shape_inference.h"

namespace stitch {
namespace {

std::mt19937& rng() {
  static std::mt19937 gen(std::random_device{}());
  return gen;
}
int64_t randomDim(int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng());
}

// gtest shows types in their IR spelling.
std::string show(const TypePtr& t) { return t ? t->str() : "null"; }

TypePtr f32(std::vector<int64_t> dims) { return Type::tensor(DType::f32, std::move(dims)); }

std::unique_ptr<Graph> emitExample(const std::string& name) {
  std::string path = std::string(STITCH_SOURCE_DIR) + "/examples/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  auto module = SourceModule::parse(text.str(), "examples/" + name);
  return module->emit("");
}

void expectRoundTrip(const Graph& g) {
  verifyGraph(g);
  std::string text = printGraph(g);
  auto parsed = parseGraph(text);
  verifyGraph(*parsed);
  EXPECT_EQ(printGraph(*parsed), text);
}

TypePtr specialize(const std::string& example, const std::vector<TypePtr>& inputs) {
  auto g = emitExample(example);
  expectRoundTrip(*g);
  inferShapes(*g, inputs);
  expectRoundTrip(*g);
  EXPECT_EQ(g->outputs().size(), 1u);
  return g->outputs().at(0)->type();
}

TEST(ExampleGraphs, Normalize) {
  int64_t h = randomDim(1, 900), w = randomDim(1, 900);
  TypePtr out = specialize("normalize.py", {f32({h, w, 3}), Type::floatT(), Type::floatT()});
  EXPECT_EQ(show(out), show(f32({h, w, 3})));
}

TEST(ExampleGraphs, Softmax) {
  int64_t a = randomDim(1, 100), b = randomDim(1, 1000);
  EXPECT_EQ(*specialize("softmax.py", {f32({a, b})}), *f32({a, b}));
}

TEST(ExampleGraphs, LayerNorm) {
  int64_t a = randomDim(1, 100), b = randomDim(1, 1000);
  TypePtr out = specialize("layernorm.py", {f32({a, b}), f32({b}), f32({b}), Type::floatT()});
  EXPECT_EQ(show(out), show(f32({a, b})));
}

// The list of results grows in a loop: its element type must come through
// the loop's fixed point (the list starts empty), whatever the final op's
// rule then makes of a list of unknown length.
TEST(ExampleGraphs, Lstm) {
  int64_t seq = randomDim(1, 10), batch = randomDim(1, 8), hidden = randomDim(1, 40);
  int64_t layers = randomDim(1, 3);
  auto g = emitExample("lstm.py");
  inferShapes(*g, {f32({seq, batch, hidden}), f32({layers, 4 * hidden, hidden}),
                   f32({layers, 4 * hidden, hidden}), f32({layers, 4 * hidden}),
                   f32({layers, batch, hidden}), f32({layers, batch, hidden})});
  expectRoundTrip(*g);
  const Node* stack = g->outputs().at(0)->node();
  ASSERT_TRUE(stack->is("stack"));
  EXPECT_EQ(show(stack->input(0)->type()), show(Type::list(f32({batch, hidden}))));
  EXPECT_EQ(stack->output()->type()->dtype(), DType::f32);
}

TEST(ExampleGraphs, BboxDecode) {
  int64_t n = randomDim(1, 2000);
  TypePtr boxes = Type::list(f32({n, 4}));
  auto g = emitExample("bbox_decode.py");
  inferShapes(*g, {boxes, boxes, Type::floatT(), Type::floatT()});
  expectRoundTrip(*g);
  const Node* cat = g->outputs().at(0)->node();
  ASSERT_TRUE(cat->is("cat"));
  EXPECT_EQ(show(cat->input(0)->type()), show(Type::list(f32({n, 4}))));
  EXPECT_EQ(cat->output()->type()->dtype(), DType::f32);
}

}  // namespace
}  // namespace stitch
