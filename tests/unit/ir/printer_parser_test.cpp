#include <gtest/gtest.h>

#include <random>

#include "ir/graph.h"
#include "ir/ir_parser.h"
#include "ir/op_registry.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace stitch {
namespace {

std::mt19937& rng() {
  static std::mt19937 gen(std::random_device{}());
  return gen;
}

int64_t randomDim() { return std::uniform_int_distribution<int64_t>(1, 2000)(rng()); }

Node* append(Graph& g, Block* b, const std::string& op, std::vector<Value*> inputs) {
  std::vector<TypePtr> types;
  for (Value* v : inputs) types.push_back(v->type());
  const OpSchema* s = findOverloadForInputs(op, types);
  EXPECT_TRUE(s) << op;
  Node* n = g.create(*s, inputs);
  b->append(n);
  return n;
}

// A loop carrying a tensor and a counter, with an if inside, plus a list and
// a tuple; names repeat on purpose.
std::unique_ptr<Graph> buildGraph() {
  auto g = std::make_unique<Graph>();
  g->setName("f");
  int64_t d0 = randomDim(), d1 = randomDim();
  TypePtr t = Type::tensor(DType::f32, std::vector<int64_t>{d0, d1});
  Value* x = g->addInput(t, "x");
  Value* n = g->addInput(Type::intT(), "n");
  Value* scale = g->addInput(Type::floatT(), "x");
  Value* cond = g->constant(Constant(true), SourceLoc{"examples/f.py", 3, 11});
  Value* zero = g->constant(Constant((int64_t)0));
  double factor = std::uniform_real_distribution<double>(-10, 10)(rng());
  Value* fconst = g->constant(Constant(factor));
  Node* loop = g->create("prim.loop", {n, cond, x, zero}, 2);
  g->top()->append(loop);
  loop->setLoc(SourceLoc{"examples/f.py", 4, 5});
  loop->output(0)->setDebugName("x");
  Block* body = loop->addBlock();
  Value* i = body->addParam(Type::intT(), "i");
  Value* xc = body->addParam(t, "x");
  Value* cnt = body->addParam(Type::intT(), "count");
  Node* lt = append(*g, body, "scalar.lt", {i, cnt});
  Node* branch = g->create("prim.if", {lt->output()}, 1);
  body->append(branch);
  Block* thenB = branch->addBlock();
  Block* elseB = branch->addBlock();
  Node* mul = append(*g, thenB, "mul", {xc, scale});
  mul->output()->setDebugName("x");
  thenB->addReturn(mul->output());
  Node* add = append(*g, elseB, "add", {xc, fconst, zero});
  elseB->addReturn(add->output());
  Node* inc = append(*g, body, "scalar.add", {cnt, i});
  inc->output()->setDebugName("count");
  body->addReturn(cond);
  body->addReturn(branch->output());
  body->addReturn(inc->output());
  Node* list = append(*g, g->top(), "prim.list_construct", {loop->output(0), x});
  Node* cat = append(*g, g->top(), "cat", {list->output(), zero});
  Node* tup = append(*g, g->top(), "prim.tuple_construct", {cat->output(), loop->output(1)});
  Value* msg = g->constant(Constant("a \"quoted\"\nline"));
  Value* dims = g->constant(Constant(std::vector<int64_t>{-1, d0}));
  Value* f64 = g->constant(Constant(DType::f64));
  Value* none = g->constant(Constant());
  append(*g, g->top(), "sum", {x, dims, cond, f64});
  append(*g, g->top(), "slice", {x, zero, none, n, n});
  append(*g, g->top(), "prim.raise", {msg});
  g->addOutput(tup->output());
  g->addOutput(x);
  return g;
}

TEST(Printer, PrintsTorchScriptLayout) {
  auto g = buildGraph();
  verifyGraph(*g);
  std::string text = printGraph(*g);
  EXPECT_EQ(text.rfind("graph f(%x : f32[", 0), 0u) << text;
  EXPECT_NE(text.find("%n : int, %x.1 : float):"), std::string::npos) << text;
  EXPECT_NE(text.find("%0 : bool = prim.constant[value=true]()  # examples/f.py:3:11\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("\n    block0(%i : int, %x.3 : f32["), std::string::npos) << text;
  EXPECT_NE(text.find("\n      -> (%0, %"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  return (%"), std::string::npos) << text;
  EXPECT_NE(text.find("prim.raise(%"), std::string::npos) << text;
}

TEST(Printer, RoundTripsThroughParser) {
  for (int rep = 0; rep < 5; ++rep) {
    auto g = buildGraph();
    std::string text = printGraph(*g);
    auto parsed = parseGraph(text);
    verifyGraph(*parsed);
    EXPECT_EQ(printGraph(*parsed), text);
    auto cloned = g->clone();
    verifyGraph(*cloned);
    EXPECT_EQ(printGraph(*cloned), text);
  }
}

TEST(Parser, ParsesHandWrittenText) {
  int64_t d = randomDim();
  std::string ds = std::to_string(d);
  std::string text =
      "graph normalize(%src.1 : f32[" + ds + ",3], %mean : float, %scale : float):\n"
      "  %0 : int = prim.constant[value=-1]()  # examples/normalize.py:3:11\n"
      "  %1 : int = prim.constant[value=2]()\n"
      "  %src.2 : f32[" + ds + ",3] = clone(%src.1)  # examples/normalize.py:2:11\n"
      "  %2 : f32[" + ds + "] = select(%src.2, %0, %1)\n"
      "  %3 : Tensor = sub(%2, %mean, %1)\n"
      "  %4 : Tensor = mul(%3, %scale)\n"
      "  %5 : Tensor = immut.select_rev(%src.2, %4, %0, %1)\n"
      "  tssa.update(%5, %src.2)\n"
      "  return (%5)\n";
  auto g = parseGraph(text);
  verifyGraph(*g);
  EXPECT_EQ(printGraph(*g), text);
  EXPECT_EQ(g->name(), "normalize");
  Node* sub = g->outputs()[0]->node()->input(1)->node()->input(0)->node();
  ASSERT_TRUE(sub->is("sub"));
  EXPECT_EQ(sub->schema().overloadIndex, 1u);  // the Scalar overload, by input type
  Node* clone = g->top()->front()->next()->next();
  EXPECT_EQ(clone->loc().file, "examples/normalize.py");
  EXPECT_EQ(clone->loc().line, 2);
  EXPECT_EQ(clone->loc().col, 11);
}

TEST(Parser, ParsesLoopsAndBranches) {
  std::string d = std::to_string(randomDim());
  std::string text =
      "graph(%x.1 : f32[" + d + "], %n : int):\n"
      "  %0 : bool = prim.constant[value=true]()\n"
      "  %1 : float = prim.constant[value=0.5]()\n"
      "  %x : Tensor, %count : int = prim.loop(%n, %0, %x.1, %n)  # loop.py:2:5\n"
      "    block0(%i : int, %x.2 : Tensor, %count.1 : int):\n"
      "      %2 : bool = scalar.lt(%i, %count.1)\n"
      "      %x.3 : Tensor = prim.if(%2)\n"
      "        block0():\n"
      "          %3 : Tensor = mul(%x.2, %1)\n"
      "          -> (%3)\n"
      "        block1():\n"
      "          -> (%x.2)\n"
      "      %4 : int = scalar.sub(%count.1, %i)\n"
      "      -> (%2, %x.3, %4)\n"
      "  %5 : Tuple[Tensor, int] = prim.tuple_construct(%x, %count)\n"
      "  return (%5)\n";
  auto g = parseGraph(text);
  verifyGraph(*g);
  EXPECT_EQ(printGraph(*g), text);
  Node* loop = g->top()->front()->next()->next();
  ASSERT_TRUE(loop->is("prim.loop"));
  EXPECT_EQ(loop->loc().file, "loop.py");
  EXPECT_EQ(loop->block(0)->front()->next()->blocks().size(), 2u);
}

TEST(Parser, ConstantsOfEveryKindRoundTrip) {
  std::uniform_real_distribution<double> dist(-1e3, 1e3);
  std::vector<Constant> values = {Constant(dist(rng())), Constant(dist(rng()) * 1e-9),
                                  Constant(1e300), Constant(-std::numeric_limits<double>::infinity()),
                                  Constant(std::numeric_limits<double>::infinity()),
                                  Constant(std::vector<int64_t>{}), Constant(DType::b8),
                                  Constant(false), Constant("tab\there")};
  Graph g;
  for (const Constant& c : values) g.constant(c);
  g.addOutput(g.constant(Constant(std::nan(""))));
  std::string text = printGraph(g);
  auto parsed = parseGraph(text);
  EXPECT_EQ(printGraph(*parsed), text);
  size_t i = 0;
  for (Node* n : *parsed->top()) {
    if (i < values.size()) {
      EXPECT_EQ(n->attr("value"), values[i]) << values[i].str();
    }
    ++i;
  }
}

std::string parseError(const std::string& text) {
  try {
    parseGraph(text);
  } catch (const UserError& e) {
    return e.loc().str() + ": " + e.message();
  }
  return "";
}

// Damaged text is refused with a UserError, never a crash or internal error.
TEST(Parser, DamagedTextGivesUserErrors) {
  std::string text = printGraph(*buildGraph());
  std::uniform_int_distribution<size_t> at(0, text.size() - 1);
  const std::string junk = "%()[],:=#\"-> block0 x 1.5e";
  std::uniform_int_distribution<size_t> pick(0, junk.size() - 1);
  for (int i = 0; i < 300; ++i) {
    std::string damaged = text;
    size_t pos = at(rng());
    switch (i % 3) {
      case 0: damaged.erase(pos, 1 + pos % 7); break;
      case 1: damaged.insert(pos, 1, junk[pick(rng())]); break;
      case 2: damaged.resize(pos); break;
    }
    try {
      auto g = parseGraph(damaged);
      verifyGraph(*g);
    } catch (const UserError&) {
    }
  }
}

TEST(Parser, ReportsErrorsWithPosition) {
  EXPECT_EQ(parseError("graph(%x : Tensor):\n  %1 : Tensor = neg(%y)\n  return (%1)\n"),
            "<input>:2:21: use of undefined value %y");
  EXPECT_EQ(parseError("graph(%x : Tensor):\n  %1 : Tensor = frobnicate(%x)\n  return (%1)\n"),
            "<input>:2:17: unknown op 'frobnicate'");
  EXPECT_EQ(parseError("graph(%x : Tensr):\n  return (%x)\n"),
            "<input>:1:12: malformed type 'Tensr'");
  EXPECT_EQ(parseError("graph(%x : Tensor):\n  %1 : Tensor = neg(%x, %x)\n  return (%1)\n"),
            "<input>:2:17: no overload of neg takes (Tensor, Tensor)");
  EXPECT_EQ(parseError("graph(%x : Tensor):\n  %x : Tensor = neg(%x)\n  return (%x)\n"),
            "<input>:2:3: value %x is defined twice");
  EXPECT_NE(parseError("graph(%x : Tensor):\n  %1 : Tensor = neg(%x)\n"), "");
  EXPECT_EQ(parseError("graph(%c : bool, %x : Tensor):\n"
                       "  %y : Tensor = prim.if(%c)\n"
                       "    block0():\n"
                       "      %1 : Tensor = neg(%x)\n"
                       "      -> (%1)\n"
                       "    block1():\n"
                       "      -> (%1)\n"
                       "  return (%y)\n"),
            "<input>:7:11: value %1 is not visible here");
  EXPECT_EQ(parseError("graph(%n : int, %c : bool, %x : Tensor):\n"
                       "  %y : Tensor = prim.loop(%n, %c, %x)\n"
                       "    block0(%i : int):\n"
                       "      -> (%c, %x)\n"
                       "  return (%y)\n"),
            "<input>:2:17: prim.loop needs one block taking (iteration, carried...) and "
            "returning (condition, carried...), and one output per carried value");
  EXPECT_EQ(parseError("graph():\n  %0 : int = prim.constant[value=1.5]()\n  return (%0)\n"),
            "<input>:2:14: prim.constant's output type does not fit its value 1.5");
}

}  // namespace
}  // namespace stitch

namespace stitch {
namespace {

// Reading the text back picks each node's overload by its input types; for
// every schema, inputs of its declared types must lead back to that schema.
TEST(Parser, EveryOverloadReadsBackAsItself) {
  const OpRegistry& reg = OpRegistry::get();
  for (const std::string& name : reg.names()) {
    for (const OpSchema* s : reg.overloads(name)) {
      if (s->has(kControl) || name == "prim.constant") continue;
      Graph g;
      std::vector<Value*> inputs;
      for (const ArgSpec& a : s->args) inputs.push_back(g.addInput(declaredType(a)));
      Node* n = g.create(*s, inputs, s->has(kVarRets) ? 1 : SIZE_MAX);
      g.top()->append(n);
      auto parsed = parseGraph(printGraph(g));
      ASSERT_FALSE(parsed->top()->empty()) << s->signature;
      EXPECT_EQ(&parsed->top()->front()->schema(), s) << s->signature;
    }
  }
}

}  // namespace
}  // namespace stitch
