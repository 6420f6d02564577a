// The registered view / copy kernels, and FuncTs' immut.* kernels: Access
// ops copy the region a view covers, Assign ops (`*_rev`) return the base
// with that region replaced, never touching their inputs.
#include "interp/kernel_registry.h"
#include "interp/view_ops.h"
#include "ir/graph.h"
#include "view_test_util.h"

namespace stitch {
namespace {

using namespace stitch::vtest;

constexpr int kTrials = 15;

IValueList runKernel(const std::string& op, const IValueList& args) {
  const Kernel* k = KernelRegistry::get().find(op);
  EXPECT_NE(k, nullptr) << op;
  if (!k) return {};
  Graph g;
  Node* n = g.create(op);  // kernels read their arguments, not the node
  return (*k)(*n, args);
}

IValue ints(std::vector<int64_t> v) {
  IValueList l;
  for (int64_t i : v) l.push_back(IValue(i));
  return IValue::list(std::move(l));
}

// One view with its arguments, for the immut. twin tests.
struct ViewCase {
  std::string op;
  IValueList args;  // after self
  std::function<Tensor(const Tensor&)> view;
};

ViewCase randomViewCase(const Shape& s) {
  int64_t rank = (int64_t)s.size();
  switch (randInt(0, 7)) {
    case 0: {
      int64_t d = randInt(0, rank - 1), i = randInt(-s[d], s[d] - 1);
      return {"select", {IValue(d), IValue(i)}, [=](const Tensor& t) { return views::select(t, d, i); }};
    }
    case 1: {
      int64_t d = randInt(0, rank - 1), a = randInt(-s[d], s[d]), b = randInt(-s[d], s[d]),
              step = randInt(1, 3);
      return {"slice", {IValue(d), IValue(a), IValue(b), IValue(step)},
              [=](const Tensor& t) { return views::slice(t, d, a, b, step); }};
    }
    case 2: {
      Shape flat{-1};
      return {"view", {ints(flat)}, [=](const Tensor& t) { return views::view(t, flat); }};
    }
    case 3: {
      std::vector<int64_t> perm(rank);
      for (int64_t d = 0; d < rank; ++d) perm[d] = rank - 1 - d;
      return {"permute", {ints(perm)}, [=](const Tensor& t) { return views::permute(t, perm); }};
    }
    case 4: {
      int64_t a = randInt(0, rank - 1), b = randInt(0, rank - 1);
      return {"transpose", {IValue(a), IValue(b)},
              [=](const Tensor& t) { return views::transpose(t, a, b); }};
    }
    case 5: {
      int64_t d = randInt(-rank - 1, rank);
      return {"unsqueeze", {IValue(d)}, [=](const Tensor& t) { return views::unsqueeze(t, d); }};
    }
    case 6: {
      int64_t d = randInt(0, rank - 1);
      return {"squeeze", {IValue(d)}, [=](const Tensor& t) { return views::squeeze(t, d); }};
    }
    default: {
      Shape target = s;
      target.insert(target.begin(), randInt(1, 3));
      return {"expand", {ints(target)}, [=](const Tensor& t) { return views::expand(t, target); }};
    }
  }
}

IValueList withSelf(const Tensor& self, const IValueList& rest, const Tensor* src = nullptr) {
  IValueList args{IValue(self)};
  if (src) args.push_back(IValue(*src));
  args.insert(args.end(), rest.begin(), rest.end());
  return args;
}

TEST(ViewKernels, AccessCopiesTheViewedRegion) {
  for (int trial = 0; trial < kTrials * 4; ++trial) {
    Shape s = randomShape(randInt(1, 3), 4);
    Tensor self = randomTensor(s);
    ViewCase c = randomViewCase(s);
    Tensor got = runKernel("immut." + c.op, withSelf(self, c.args))[0].toTensor();
    Tensor expect = c.view(self);
    EXPECT_FALSE(got.sameStorage(self)) << c.op;
    ASSERT_EQ(got.sizes(), expect.sizes()) << c.op;
    expectElements(got, [&](const std::vector<int64_t>& i) { return at(expect, i); });
    // The plain view kernel aliases.
    Tensor v = runKernel(c.op, withSelf(self, c.args))[0].toTensor();
    EXPECT_TRUE(v.sameStorage(self)) << c.op;
  }
}

TEST(ViewKernels, AssignReplacesTheRegionOfACopy) {
  for (int trial = 0; trial < kTrials * 4; ++trial) {
    Shape s = randomShape(randInt(1, 3), 4);
    Tensor self = randomTensor(s);
    Tensor before = self.clone();
    ViewCase c = randomViewCase(s);
    if (c.op == "expand") continue;  // several view elements share one base element
    Shape regionShape = c.view(self).sizes();
    // src either fills the region exactly or broadcasts a single value.
    Tensor src = randInt(0, 1) ? randomTensor(regionShape) : randomTensor({});
    Tensor out = runKernel("immut." + c.op + "_rev", withSelf(self, c.args, &src))[0].toTensor();
    EXPECT_FALSE(out.sameStorage(self));
    ASSERT_EQ(out.sizes(), s);
    for (int64_t i = 0; i < self.numel(); ++i) ASSERT_EQ(self.getDouble(i), before.getDouble(i));
    // Which base elements the region covers: mark them through the view.
    Tensor mask = Tensor::empty(s, DType::f32);
    c.view(mask).fill(1);
    Tensor region = c.view(out);
    expectElements(region, [&](const std::vector<int64_t>& i) {
      return src.dim() == 0 ? src.item() : at(src, i);
    });
    for (int64_t i = 0; i < out.numel(); ++i)
      if (mask.getDouble(i) == 0) ASSERT_EQ(out.getDouble(i), self.getDouble(i)) << c.op;
  }
}

TEST(ViewKernels, ExpandRevWritesTheBroadcastRegion) {
  Shape s = randomShape(2, 4);
  Tensor self = randomTensor(s);
  Tensor src = randomTensor({});
  Tensor out = runKernel("immut.expand_rev", {IValue(self), IValue(src), ints({2, s[0], s[1]})})[0].toTensor();
  expectElements(out, [&](const std::vector<int64_t>&) { return src.item(); });
}

TEST(ViewKernels, AssignBroadcastsAndConverts) {
  for (int trial = 0; trial < kTrials; ++trial) {
    Shape s = randomShape(2, 4);
    Tensor self = randomTensor(s, DType::f64);
    Shape srcShape = {1, s[1]};
    Tensor src = randomTensor(srcShape, DType::i32);
    Tensor out = runKernel("immut.assign", {IValue(self), IValue(src)})[0].toTensor();
    EXPECT_EQ(out.dtype(), DType::f64);
    EXPECT_FALSE(out.sameStorage(self));
    expectElements(out, [&](const std::vector<int64_t>& i) { return at(src, {0, i[1]}); });
  }
}

TEST(ViewKernels, SizeQueriesAndListResults) {
  Shape s = randomShape(3);
  Tensor x = randomTensor(s);
  IValue sizes = runKernel("size", {IValue(x)})[0];
  EXPECT_EQ(sizes.toIntList(), s);
  int64_t d = randInt(-3, 2);
  EXPECT_EQ(runKernel("size", {IValue(x), IValue(d)})[0].toInt(), s[(d + 3) % 3]);
  EXPECT_EQ(runKernel("dim", {IValue(x)})[0].toInt(), 3);
  EXPECT_EQ(runKernel("numel", {IValue(x)})[0].toInt(), s[0] * s[1] * s[2]);
  expectError<UserError>([&] { runKernel("size", {IValue(x), IValue(int64_t(3))}); },
                         "Dimension out of range (expected to be in range of [-3, 2], but got 3)");

  IValue pieces = runKernel("chunk", {IValue(x), IValue(int64_t(2)), IValue(int64_t(0))})[0];
  ASSERT_TRUE(pieces.isList());
  for (const Tensor& p : pieces.toTensorList()) EXPECT_TRUE(p.sameStorage(x));
  IValue split = runKernel("split", {IValue(x), ints({s[1]}), IValue(int64_t(1))})[0];
  EXPECT_EQ(split.toTensorList().size(), 1u);
  IValue rows = runKernel("unbind", {IValue(x), IValue(int64_t(2))})[0];
  EXPECT_EQ((int64_t)rows.toTensorList().size(), s[2]);
}

TEST(ViewKernels, EveryViewAndCopyOpHasAKernel) {
  for (const char* op :
       {"view", "reshape", "view_as", "reshape_as", "permute", "transpose", "t", "unsqueeze",
        "squeeze", "expand", "expand_as", "flatten", "contiguous", "select", "slice", "narrow",
        "chunk", "split", "unbind", "movedim", "size", "dim", "numel", "clone", "cat", "stack",
        "index_select", "gather", "to", "repeat", "flip", "tril", "triu", "immut.assign"}) {
    EXPECT_NE(KernelRegistry::get().find(op), nullptr) << op;
  }
  for (const char* v : {"select", "slice", "view", "permute", "transpose", "unsqueeze", "squeeze", "expand"}) {
    EXPECT_NE(KernelRegistry::get().find(std::string("immut.") + v), nullptr) << v;
    EXPECT_NE(KernelRegistry::get().find(std::string("immut.") + v + "_rev"), nullptr) << v;
  }
}

TEST(ViewKernels, ReshapeAsAndExpandAsFollowOther) {
  Shape s = randomShape(2, 4);
  Tensor x = randomTensor(s);
  Tensor other = randomTensor({s[0] * s[1]});
  Tensor r = runKernel("reshape_as", {IValue(x), IValue(other)})[0].toTensor();
  EXPECT_EQ(r.sizes(), other.sizes());
  EXPECT_TRUE(r.sameStorage(x));
  Tensor row = randomTensor({1, s[1]});
  Tensor e = runKernel("expand_as", {IValue(row), IValue(x)})[0].toTensor();
  expectElements(e, [&](const std::vector<int64_t>& i) { return at(row, {0, i[1]}); });
  Tensor same = runKernel("to", {IValue(x), IValue(DType::f32)})[0].toTensor();
  EXPECT_TRUE(same.sameStorage(x));
}

}  // namespace
}  // namespace stitch
