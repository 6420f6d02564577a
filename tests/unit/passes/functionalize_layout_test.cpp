// Programs PyTorch rejects at run time because of memory layout (writes into
// expanded tensors, writes that read an overlapping view, view() of strides
// that need a copy, unpacking the wrong number of pieces): functionalize
// refuses them with a UserError at the offending node, so the imperative
// program runs and raises. Their close relatives PyTorch accepts still
// functionalize and match the imperative graph; so do zero-length pieces.
#include "functionalize_test_util.h"
#include "passes/alias_analysis.h"

namespace stitch::functionalize_test {
namespace {

struct RefusedProgram {
  Program program;
  int line;          // of the refused node, counting the two prepended import lines
  std::string text;  // a part of the message
};

void PrintTo(const RefusedProgram& r, std::ostream* os) { *os << r.program.name; }

std::vector<RefusedProgram> refusedPrograms() {
  return {
      {{"add_into_expanded", R"(
def f(x: torch.Tensor):
    y = x.expand(3, 4)
    return y.add_(1.0)
)", {T({1, 4})}}, 6, "in-place write into an expanded view of 'x'"},
      {{"relu_into_expanded_clone", R"(
def f(x: torch.Tensor):
    b = x.clone()
    b.expand(2, 3, 4).relu_()
    return b
)", {T({3, 1})}}, 6, "elements share memory locations"},
      {{"copy_into_expanded", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    b = x.clone()
    b.expand(3, 4).copy_(y)
    return b
)", {T({1, 4}), T({3, 4})}}, 6, "in-place write into an expanded view of 'b'"},
      {{"copy_from_transpose", R"(
def f(x: torch.Tensor):
    y = x.clone()
    return y.copy_(y.t())
)", {T({2, 2})}}, 6, "overlaps the written elements"},
      {{"assign_shifted_slice", R"(
def f(x: torch.Tensor):
    y = x.clone()
    y[1:] = y[:-1]
    return y
)", {T({6})}}, 6, "reads a view of 'y'"},
      {{"augmented_shifted_slice", R"(
def f(x: torch.Tensor):
    y = x.clone()
    y[1:] += y[:-1]
    return y
)", {T({6})}}, 6, "overlaps the written elements"},
      {{"add_transpose_of_self", R"(
def f(x: torch.Tensor):
    y = x.clone()
    y.add_(y.t())
    return y
)", {T({3, 3})}}, 6, "overlaps the written elements"},
      {{"add_broadcast_row_of_self", R"(
def f(x: torch.Tensor):
    y = x.clone()
    y.mul_(y[0])
    return y
)", {T({3, 4})}}, 6, "overlaps the written elements"},
      {{"chunk_piece_reads_overlapping_rows", R"(
def f(x: torch.Tensor):
    y = x.clone()
    a, b = y.chunk(2)
    a.sub_(y[1:3])
    return y
)", {T({4, 2})}}, 7, "overlaps the written elements"},
      {{"run_time_slices_overlap", R"(
def f(x: torch.Tensor, n: int):
    y = x.clone()
    for i in range(n):
        y[i:i + 2] += y[i + 1:i + 3]
    return y
)", {T({6}), I(3)}}, 7, "overlaps the written elements"},
      {{"view_of_transpose", R"(
def f(x: torch.Tensor):
    y = x.t()
    return y.view(6)
)", {T({2, 3})}}, 6, "view() of 'y', whose strides do not allow that shape"},
      {{"view_of_column_slice", R"(
def f(x: torch.Tensor):
    return x[:, 1:].view(8)
)", {T({4, 3})}}, 5, "whose strides do not allow that shape"},
      {{"view_of_expanded", R"(
def f(x: torch.Tensor):
    return x.expand(2, 3).view(6)
)", {T({1, 3})}}, 5, "whose strides do not allow that shape"},
      {{"view_as_of_permute", R"(
def f(x: torch.Tensor, z: torch.Tensor):
    return x.permute(1, 0).view_as(z)
)", {T({2, 3}), T({6})}}, 5, "whose strides do not allow that shape"},
      {{"unbind_into_too_many_names", R"(
def f(x: torch.Tensor):
    a, b, c = torch.unbind(x, -1)
    return a + b + c
)", {T({1, 1, 2})}}, 5, "unpacking the 2 pieces of unbind() into 3 names"},
      {{"unbind_into_too_few_names", R"(
def f(x: torch.Tensor):
    a, b = x.unbind(0)
    return a + b
)", {T({3, 2})}}, 5, "unpacking the 3 pieces of unbind() into 2 names"},
      {{"chunk_gives_fewer_pieces", R"(
def f(x: torch.Tensor):
    a, b, c, d = x.chunk(4, 1)
    return a + b + c + d
)", {T({3, 5, 1})}}, 5, "unpacking the 3 pieces of chunk() into 4 names"},
  };
}

class LayoutRefused : public ::testing::TestWithParam<RefusedProgram> {};

TEST_P(LayoutRefused, ThrowsUserErrorAtTheNode) {
  const RefusedProgram& r = GetParam();
  auto g = specialize(r.program);
  try {
    functionalize(*g);
    ADD_FAILURE() << "functionalize accepted the program";
  } catch (const UserError& e) {
    EXPECT_EQ(e.message().rfind("functionalization: ", 0), 0u) << e.message();
    EXPECT_NE(e.message().find(r.text), std::string::npos) << e.message();
    EXPECT_EQ(e.loc().line, r.line) << e.formatted();
  }
}

INSTANTIATE_TEST_SUITE_P(Functionalize, LayoutRefused, ::testing::ValuesIn(refusedPrograms()),
                         [](const auto& info) { return info.param.program.name; });

std::vector<Program> acceptedPrograms() {
  return {
      {"add_other_row", R"(
def f(x: torch.Tensor):
    y = x.clone()
    y[0].add_(y[1])
    return y
)", {T({3, 4})}},
      {"add_same_row_twice", R"(
def f(x: torch.Tensor):
    y = x.clone()
    y[0].add_(y[0])
    return y
)", {T({3, 4})}},
      {"mul_by_itself", R"(
def f(x: torch.Tensor):
    y = x.clone()
    y.mul_(y)
    return y
)", {T({3, 4})}},
      {"copy_column_to_column", R"(
def f(x: torch.Tensor):
    y = x.clone()
    y[:, 0] = y[:, 1]
    return y
)", {T({3, 4})}},
      {"copy_column_to_row", R"(
def f(x: torch.Tensor):
    y = x.clone()
    y[0].copy_(y[:, 1])
    return y
)", {T({2, 2})}},
      {"copy_disjoint_halves", R"(
def f(x: torch.Tensor):
    y = x.clone()
    y[3:] = y[:3]
    return y
)", {T({6})}},
      {"add_chunk_piece_to_other", R"(
def f(x: torch.Tensor):
    y = x.clone()
    a, b = y.split(2)
    a.add_(b)
    return y
)", {T({4, 2})}},
      {"run_time_rows", R"(
def f(x: torch.Tensor, n: int):
    y = x.clone()
    for i in range(1, n):
        y[i] += y[i - 1]
        y[i, 0] = y[i - 1, 1]
    return y
)", {T({4, 3}), I(4)}},
      {"expand_without_broadcast", R"(
def f(x: torch.Tensor):
    y = x.clone()
    y.expand(3, 4).add_(1.0)
    return y
)", {T({3, 4})}},
      {"fill_expanded", R"(
def f(x: torch.Tensor):
    y = x.clone()
    y.expand(3, 4).fill_(2.0)
    return y
)", {T({1, 4})}},
      {"view_of_row_slice", R"(
def f(x: torch.Tensor):
    return x[1:3].view(6)
)", {T({4, 3})}},
      {"view_of_column_slice_keeping_rows", R"(
def f(x: torch.Tensor):
    return x[:, 1:].view(4, 2, 1)
)", {T({4, 3})}},
      {"reshape_of_transpose_copies", R"(
def f(x: torch.Tensor):
    return x.t().reshape(6)
)", {T({2, 3})}},
      {"zip_zero_length_unbind", R"(
def f(x: torch.Tensor, y: torch.Tensor):
    s = torch.zeros(1)
    for a, b in zip(x.unbind(0), y.unbind(0)):
        s = s + a.sum() + b.sum()
    return s
)", {T({0, 2}), T({1, 1})}},
      {"zero_length_unbind_in_loop_writes", R"(
def f(x: torch.Tensor):
    y = x.clone()
    for r in y.unbind(0):
        r.add_(1.0)
    return y
)", {T({0, 3})}},
  };
}

class LayoutAccepted : public ::testing::TestWithParam<Program> {};

TEST_P(LayoutAccepted, MatchesImperative) { checkProgram(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Functionalize, LayoutAccepted, ::testing::ValuesIn(acceptedPrograms()),
                         [](const auto& info) { return info.param.name; });

StaticLayout layout(std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset = 0,
                    int64_t offsetStep = 0) {
  return StaticLayout{std::move(sizes), std::move(strides), offset, offsetStep};
}

TEST(LayoutOverlap, DecidesLikePyTorchOnKnownOffsets) {
  StaticLayout whole = layout({6}, {1});
  EXPECT_EQ(layoutOverlap(whole, whole), LayoutOverlap::SameView);
  EXPECT_EQ(layoutOverlap(layout({5}, {1}, 1), layout({5}, {1}, 0)), LayoutOverlap::Overlapping);
  EXPECT_EQ(layoutOverlap(layout({3}, {1}, 3), layout({3}, {1}, 0)), LayoutOverlap::Disjoint);
  EXPECT_EQ(layoutOverlap(layout({2, 2}, {2, 1}), layout({2, 2}, {1, 2})), LayoutOverlap::Overlapping);
  EXPECT_EQ(layoutOverlap(layout({3}, {4}, 0), layout({3}, {4}, 1)), LayoutOverlap::Undecidable);
  EXPECT_EQ(layoutOverlap(layout({0}, {1}), whole), LayoutOverlap::Disjoint);
}

TEST(LayoutOverlap, RunTimeOffsetsOverlapWhenSomeIndexDoes) {
  // Rows i and i - 1 of a [4, 3] matrix: the same row or disjoint ones.
  EXPECT_NE(layoutOverlap(layout({3}, {1}, 0, 3), layout({3}, {1}, -3, 3)), LayoutOverlap::Overlapping);
  // y[i:i + 2] and y[i + 1:i + 3] always share an element.
  EXPECT_EQ(layoutOverlap(layout({2}, {1}, 0, 1), layout({2}, {1}, 1, 1)), LayoutOverlap::Overlapping);
  // A row and the whole matrix.
  EXPECT_EQ(layoutOverlap(layout({3}, {1}, 0, 3), layout({4, 3}, {3, 1})), LayoutOverlap::Overlapping);
  // Element (i, 0) against elements of column 1 (offsets 1 + 3k).
  EXPECT_EQ(layoutOverlap(layout({}, {}, 0, 3), layout({}, {}, 1, 3)), LayoutOverlap::Disjoint);
}

TEST(LayoutOverlap, InternalOverlapIsABroadcastDim) {
  EXPECT_TRUE(hasInternalOverlap(layout({3, 4}, {0, 1})));
  EXPECT_FALSE(hasInternalOverlap(layout({1, 4}, {0, 1})));
  EXPECT_FALSE(hasInternalOverlap(layout({3, 4}, {4, 1})));
}

}  // namespace
}  // namespace stitch::functionalize_test
