// The fusion plan verifier accepts what fusion makes and names what a
// plan that the kernels could not honour breaks.
#include "fusion_test_util.h"

namespace stitch::fusion_test {
namespace {

Program twoRoots() {
  return {"two_roots", R"(
def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    a = torch.exp(x)
    b = a * 2.0
    return a, b + 1.0
)", {T({64, 32})}};
}

std::string verifierMessage(const Graph& g, const FusionPlan& plan) {
  try {
    verifyFusionPlan(g, plan, testKernelOp);
  } catch (const InternalError& e) {
    return e.what();
  }
  return "";
}

TEST(FusionPlanVerifier, AcceptsFusedAndUnfusedPlans) {
  Fused f = fuse(twoRoots());
  FusionOptions single = testOptions();
  single.fuse = false;
  FusionPlan unfused = fuseGraph(*f.graph, single);
  EXPECT_EQ(verifierMessage(*f.graph, unfused), "");
  EXPECT_GT(unfused.groups.size(), f.plan.groups.size());
}

TEST(FusionPlanVerifier, NamesRootsThatMissAUse) {
  Fused f = fuse(twoRoots());
  ASSERT_EQ(f.plan.groups.size(), 1u);
  ASSERT_EQ(f.plan.groups[0].roots.size(), 2u);
  f.plan.groups[0].roots.erase(f.plan.groups[0].roots.begin());
  EXPECT_NE(verifierMessage(*f.graph, f.plan).find("roots do not match"), std::string::npos);
}

TEST(FusionPlanVerifier, NamesRootsBeyondTheUses) {
  Fused f = fuse(twoRoots());
  f.plan.groups[0].roots.push_back(f.plan.groups[0].nodes.front()->output());
  EXPECT_NE(verifierMessage(*f.graph, f.plan).find("roots do not match"), std::string::npos);
}

TEST(FusionPlanVerifier, NamesMembersOutOfOrderAndLostGroups) {
  Fused f = fuse(twoRoots());
  FusionPlan reordered = f.plan;
  std::swap(reordered.groups[0].nodes.front(), reordered.groups[0].nodes.back());
  EXPECT_NE(verifierMessage(*f.graph, reordered).find("program order"), std::string::npos);
  FusionPlan extra = f.plan;
  extra.groups.push_back(extra.groups[0]);
  EXPECT_NE(verifierMessage(*f.graph, extra).find("groups but"), std::string::npos);
}

}  // namespace
}  // namespace stitch::fusion_test
