// Static type rules of the copy ops: agreement with the kernels on known
// shapes (result type or the same UserError), partial types otherwise.
#include "interp/copy_ops.h"
#include "interp/kernel_registry.h"
#include "ir/graph.h"
#include "ir/op_registry.h"
#include "view_test_util.h"

namespace stitch {
namespace {

using namespace stitch::vtest;

const DType kDTypes[] = {DType::b8, DType::i32, DType::i64, DType::f32, DType::f64};
DType randomDType() { return kDTypes[randInt(0, 4)]; }

// A node of `op`: either a Tensor[] of `listed` followed by constants (cat,
// stack) or tensor inputs followed by constants, with `extra` tensors after
// the first constant (index_select / gather take self, dim, index).
struct CopyCall {
  Graph g;
  Node* node = nullptr;
  CopyCall(const std::string& op, const std::vector<TypePtr>& tensors, const std::vector<Constant>& consts,
           bool asList, const std::vector<TypePtr>& extra = {}) {
    std::vector<Value*> inputs;
    std::vector<Value*> elems;
    for (const TypePtr& t : tensors) elems.push_back(g.addInput(t));
    if (asList) {
      Node* list = g.create("prim.list_construct", elems);
      g.top()->append(list);
      list->output()->setType(inferOutputTypes(*list).at(0));
      inputs.push_back(list->output());
    } else {
      inputs = elems;
    }
    for (const Constant& c : consts) inputs.push_back(g.constant(c));
    for (const TypePtr& t : extra) inputs.push_back(g.addInput(t));
    node = g.create(op, inputs);
    g.top()->append(node);
  }
  TypePtr type() const { return inferOutputTypes(*node).at(0); }
};

TypePtr typeOf(const Tensor& t) { return Type::tensor(t.dtype(), t.sizes()); }

struct Outcome {
  std::string type;
  std::string error;
};

template <typename F>
Outcome outcomeOf(F&& f) {
  try {
    return {f(), ""};
  } catch (const UserError& e) {
    return {"", e.message()};
  }
}

std::vector<TypePtr> typesOf(const std::vector<Tensor>& ts) {
  std::vector<TypePtr> out;
  for (const Tensor& t : ts) out.push_back(typeOf(t));
  return out;
}

TEST(CopyRules, CatAndStackAgreeWithKernels) {
  int errors = 0, shapes = 0;
  for (int trial = 0; trial < 600; ++trial) {
    bool isCat = randInt(0, 1);
    Shape common = randomShape(randInt(0, 3), 3);
    std::vector<Tensor> parts;
    for (int64_t k = randInt(0, 3); k > 0; --k) {
      Shape s = common;
      // Mostly compatible shapes, sometimes not, sometimes a 1-d empty one.
      if (!s.empty() && randInt(0, 2) == 0) s[randInt(0, (int64_t)s.size() - 1)] = randInt(0, 3);
      if (randInt(0, 5) == 0) s = {0};
      parts.push_back(randomTensor(s, randomDType()));
    }
    int64_t dim = randInt(-4, 3);
    std::string op = isCat ? "cat" : "stack";
    Outcome kernel = outcomeOf([&] {
      return typeOf(isCat ? copies::cat(parts, dim) : copies::stack(parts, dim))->str();
    });
    Outcome rule = outcomeOf([&] { return CopyCall(op, typesOf(parts), {dim}, true).type()->str(); });
    std::string what = op + " dim " + std::to_string(dim);
    for (const Tensor& p : parts) what += " " + typeOf(p)->str();
    ASSERT_EQ(rule.error, kernel.error) << what;
    ASSERT_EQ(rule.type, kernel.type) << what;
    (kernel.error.empty() ? shapes : errors)++;
  }
  EXPECT_GT(errors, 30);
  EXPECT_GT(shapes, 30);
}

TEST(CopyRules, IndexingOpsAgreeWithKernels) {
  int errors = 0, shapes = 0;
  for (int trial = 0; trial < 600; ++trial) {
    bool isGather = randInt(0, 1);
    Shape s = randomShape(randInt(0, 3), 4);
    Tensor self = randomTensor(s, randomDType());
    int64_t rank = (int64_t)s.size();
    Shape is = isGather ? randomShape(randInt(std::max<int64_t>(rank - 1, 0), rank + 1), 4, 0)
                        : randomShape(randInt(0, 2), 4, 0);
    DType idt = randInt(0, 4) ? DType::i64 : (randInt(0, 1) ? DType::i32 : DType::f32);
    Tensor index = Tensor::empty(is, idt);  // all zeros: always in range
    int64_t dim = randInt(-rank - 1, rank);
    std::string op = isGather ? "gather" : "index_select";
    Outcome kernel = outcomeOf([&] {
      Tensor out = isGather ? copies::gather(self, dim, index) : copies::indexSelect(self, dim, index);
      return typeOf(out)->str();
    });
    Outcome rule = outcomeOf([&] { return CopyCall(op, {typeOf(self)}, {dim}, false, {typeOf(index)}).type()->str(); });
    std::string what = op + " " + typeOf(self)->str() + " dim " + std::to_string(dim) + " " + typeOf(index)->str();
    // index_select's 0-dim-self checks need the index's values, not its type.
    if (!isGather && rank == 0 && rule.error.empty() && !kernel.error.empty()) continue;
    ASSERT_EQ(rule.error, kernel.error) << what;
    ASSERT_EQ(rule.type, kernel.type) << what;
    (kernel.error.empty() ? shapes : errors)++;
  }
  EXPECT_GT(errors, 30);
  EXPECT_GT(shapes, 30);
}

TEST(CopyRules, ShapePreservingAndTilingOpsAgreeWithKernels) {
  const char* ops[] = {"clone", "to", "repeat", "flip", "tril", "triu"};
  for (int trial = 0; trial < 600; ++trial) {
    std::string op = ops[randInt(0, 5)];
    Shape s = randomShape(randInt(0, 3), 3);
    Tensor self = randomTensor(s, randomDType());
    std::vector<Constant> args;
    if (op == "to") args = {randomDType()};
    if (op == "tril" || op == "triu") args = {randInt(-3, 3)};
    if (op == "repeat" || op == "flip") {
      std::vector<int64_t> l;
      for (int64_t k = randInt(0, 4); k > 0; --k) l.push_back(op == "flip" ? randInt(-4, 3) : randInt(-1, 3));
      args = {Constant(l)};
    }
    IValueList kargs{IValue(self)};
    for (const Constant& c : args) kargs.push_back(IValue::fromConstant(c));
    Graph g;
    Node* n = g.create(op);
    Outcome kernel = outcomeOf([&] {
      return typeOf((*KernelRegistry::get().find(op))(*n, kargs).at(0).toTensor())->str();
    });
    Outcome rule = outcomeOf([&] { return CopyCall(op, {typeOf(self)}, args, false).type()->str(); });
    std::string what = op + " " + typeOf(self)->str();
    for (const Constant& c : args) what += " " + c.str();
    ASSERT_EQ(rule.error, kernel.error) << what;
    ASSERT_EQ(rule.type, kernel.type) << what;
  }
}

TEST(CopyRules, UnknownShapesGivePartialTypes) {
  int64_t n = randInt(2, 6);
  TypePtr a = Type::tensor(DType::f32, std::vector<int64_t>{-1, n});
  TypePtr b = Type::tensor(DType::i64, std::vector<int64_t>{2, n});
  EXPECT_EQ(CopyCall("cat", {a, b}, {int64_t(0)}, true).type()->str(),
            Type::tensor(DType::f32, std::vector<int64_t>{-1, n})->str());
  EXPECT_EQ(CopyCall("cat", {a, b}, {int64_t(1)}, true).type()->str(),
            Type::tensor(DType::f32, std::vector<int64_t>{2, 2 * n})->str());
  TypePtr c = Type::tensor(DType::f32, std::vector<int64_t>{2, n + 1});
  expectError<UserError>([&] { CopyCall("cat", {b, c}, {int64_t(0)}, true).type(); },
                         errorMessage("Sizes of tensors must match except in dimension 0. Expected size ",
                                      n, " but got size ", n + 1, " for tensor number 1 in the list."));
  // A 1-d tensor of unknown length might be skipped: no shape, no error.
  TypePtr maybeEmpty = Type::tensor(DType::f32, std::vector<int64_t>{-1});
  EXPECT_FALSE(CopyCall("cat", {maybeEmpty, b}, {int64_t(0)}, true).type()->hasRank());
  EXPECT_EQ(CopyCall("stack", {a, b}, {int64_t(-1)}, true).type()->str(),
            Type::tensor(DType::f32, std::vector<int64_t>{2, n, 2})->str());
  TypePtr idx = Type::tensor(DType::i64, std::vector<int64_t>{-1});
  EXPECT_EQ(CopyCall("index_select", {b}, {int64_t(1)}, false, {idx}).type()->str(),
            Type::tensor(DType::i64, std::vector<int64_t>{2, -1})->str());
  EXPECT_EQ(CopyCall("to", {a}, {DType::f64}, false).type()->str(),
            Type::tensor(DType::f64, std::vector<int64_t>{-1, n})->str());
  EXPECT_EQ(CopyCall("repeat", {a}, {Constant(std::vector<int64_t>{2, 3})}, false).type()->str(),
            Type::tensor(DType::f32, std::vector<int64_t>{-1, 3 * n})->str());
  EXPECT_EQ(CopyCall("clone", {Type::tensor()}, {}, false).type()->str(), Type::tensor()->str());
}

}  // namespace
}  // namespace stitch
