// The example programs through list specialization, parallel-map marking
// and unrolling, as stage simplified runs them: bbox_decode's loop over its
// scales becomes straight-line code with static shapes; lstm's loops carry
// their states and stay. Outputs equal the interpreter's on the imperative
// program, on fresh random inputs of random sizes.
#include <fstream>
#include <random>
#include <sstream>

#include "unroll_test_util.h"

namespace stitch::unroll_test {
namespace {

std::string exampleSource(const std::string& name) {
  std::ifstream in(std::string(STITCH_SOURCE_DIR) + "/examples/" + name);
  EXPECT_TRUE(in) << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int64_t randomDim(int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(functionalize_test::rng());
}

TEST(UnrollExamples, BboxDecodeScalesBecomeStraightLineCode) {
  std::vector<std::vector<int64_t>> scales;
  int64_t count = randomDim(1, 5), rows = 0;
  for (int64_t i = 0; i < count; ++i) {
    scales.push_back({randomDim(1, 300), 4});
    rows += scales.back()[0];
  }
  Program p{"bbox_decode", exampleSource("bbox_decode.py"), {TL(scales), TL(scales), F(640), F(480)}};
  std::unique_ptr<Graph> imperative = specialized(p);
  std::unique_ptr<Graph> g = functionalGraph(*imperative);
  std::vector<const Node*> loops = loopsOf(g->top());
  ASSERT_EQ(loops.size(), 1u);
  specializeAndUnroll(*g, exactListTypes(p));
  expectSameOutputs(p, *imperative, *g);
  EXPECT_EQ(countKind(g->top(), "prim.loop"), 0u);
  EXPECT_EQ(countKind(g->top(), "stack"), (size_t)count);
  std::string first;
  EXPECT_TRUE(allTensorsStatic(g->top(), first)) << first;
  EXPECT_EQ(g->outputs()[0]->type()->str(), "f32[" + std::to_string(rows) + ",4]");
}

TEST(UnrollExamples, BboxDecodeWithoutListTypesKeepsItsMarkedLoop) {
  Program p{"bbox_decode", exampleSource("bbox_decode.py"),
            {TL({{7, 4}, {3, 4}}), TL({{7, 4}, {3, 4}}), F(640), F(480)}};
  std::unique_ptr<Graph> imperative = specialized(p);
  std::unique_ptr<Graph> g = functionalGraph(*imperative);
  specializeAndUnroll(*g, {});
  expectSameOutputs(p, *imperative, *g);
  std::vector<const Node*> loops = loopsOf(g->top());
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_TRUE(isMarked(loops[0]));  // the trip count is len(anchors), unknown
}

TEST(UnrollExamples, LstmStaysLoops) {
  int64_t seq = randomDim(1, 4), layers = randomDim(1, 3), hidden = randomDim(1, 6);
  Program p{"lstm", exampleSource("lstm.py"),
            {T({seq, 2, hidden}), T({layers, 4 * hidden, hidden}), T({layers, 4 * hidden, hidden}),
             T({layers, 4 * hidden}), T({layers, 2, hidden}), T({layers, 2, hidden})}};
  std::unique_ptr<Graph> imperative = specialized(p);
  std::unique_ptr<Graph> g = functionalGraph(*imperative);
  size_t before = countKind(g->top(), "prim.loop");
  specializeAndUnroll(*g, exactListTypes(p));
  expectSameOutputs(p, *imperative, *g, 2);
  EXPECT_EQ(countKind(g->top(), "prim.loop"), before);
  for (const Node* loop : loopsOf(g->top())) EXPECT_FALSE(isMarked(loop));
}

}  // namespace
}  // namespace stitch::unroll_test
