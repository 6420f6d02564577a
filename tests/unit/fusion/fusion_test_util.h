// Harness for the fusion pass: a program is specialized, functionalized and
// simplified as the driver does, then fused with a kernel-op test that
// stands in for the kernel planner's (pure, not a view, not in place, one
// fully known tensor result, fully known tensor operands); the plan's text
// is compared line by line with the schedules masked (they are the tuner's
// choice, tested on their own), and every plan is checked against the group
// invariants independently of the pass.
#pragma once
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <unordered_set>

#include "../passes/functionalize_test_util.h"
#include "fusion/fusion.h"
#include "fusion/fusion_plan_verifier.h"
#include "passes/canonicalize.h"
#include "passes/constant_folding.h"
#include "passes/cse.h"
#include "passes/dce.h"

namespace stitch::fusion_test {

using functionalize_test::F;
using functionalize_test::I;
using functionalize_test::Program;
using functionalize_test::T;

using functionalize_test::simplifiedGraph;

inline bool knownTensor(const TypePtr& t) { return t->isTensor() && t->fullyKnown(); }

inline bool testKernelOp(const Node* n) {
  const OpSchema& s = n->schema();
  if (!s.isPure() || s.isView() || s.isInPlace() || !n->blocks().empty()) return false;
  const std::string& k = n->kind();
  if (k.rfind("prim.", 0) == 0 || k.rfind("list.", 0) == 0 || k.rfind("scalar.", 0) == 0) return false;
  if (k.rfind("fused.", 0) == 0) return false;  // the runtime's own kernels (fused.attention)
  if (n->outputs().size() != 1 || !knownTensor(n->output()->type())) return false;
  for (const Value* in : n->inputs()) {
    const TypePtr& t = in->type();
    if (t->isTensor() && !t->fullyKnown()) return false;
    if (t->kind() == TypeKind::Tuple) return false;
    if (t->kind() == TypeKind::List && t->elem()->isTensor() && !in->node()->is("prim.list_construct")) return false;
  }
  return true;
}

inline FusionOptions testOptions() {
  FusionOptions o;
  o.kernelOp = testKernelOp;
  o.threads = 2;
  return o;
}

// The plan's lines with "schedule (...)" replaced by "schedule *".
inline std::vector<std::string> planLines(const FusionPlan& plan) {
  std::string text = std::regex_replace(printFusionPlan(plan), std::regex(R"(schedule \([^)]*\))"), "schedule *");
  std::vector<std::string> lines;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) lines.push_back(line);
  return lines;
}

inline ::testing::AssertionResult sameLines(const std::vector<std::string>& got,
                                            const std::vector<std::string>& expected) {
  for (size_t i = 0; i < std::max(got.size(), expected.size()); ++i) {
    std::string g = i < got.size() ? got[i] : "<none>", e = i < expected.size() ? expected[i] : "<none>";
    if (g == e) continue;
    std::string all;
    for (const std::string& line : got) all += "\n  " + line;
    return ::testing::AssertionFailure() << "line " << i + 1 << ":\n  got:      " << g << "\n  expected: " << e
                                         << "\nthe plan:" << all;
  }
  return ::testing::AssertionSuccess();
}

// Index of n in its block's node list.
inline int position(const Node* n) {
  int i = 0;
  for (const Node* m : *n->owningBlock()) {
    if (m == n) return i;
    ++i;
  }
  return -1;
}

// The node of the block that holds n (n or the loop / if around it).
inline const Node* ancestorIn(const Node* n, const Block* b) {
  while (n && n->owningBlock() != b) n = n->owningNode();
  return n;
}

inline bool isAssign(const Node* n) {
  const std::string& k = n->kind();
  return k == "immut.assign" ||
         (k.rfind("immut.", 0) == 0 && k.size() > 4 && k.compare(k.size() - 4, 4, "_rev") == 0);
}

// Every kernel op in exactly one group; members of a group in one block in
// program order; a use of a member's value outside the group (other than
// through a list built for one kernel op of the group) after the last
// member; roots = values used outside or returned, all of the last root's
// shape; an Assign op shares its group only with its base's producer.
inline ::testing::AssertionResult planKeepsInvariants(const Graph& g, const FusionPlan& plan,
                                                      const FusionOptions& options) {
  std::function<::testing::AssertionResult(const Block*)> walk = [&](const Block* b) -> ::testing::AssertionResult {
    for (const Node* n : *b) {
      for (const Block* sub : n->blocks()) {
        auto r = walk(sub);
        if (!r) return r;
      }
      bool op = options.kernelOp(n);
      bool leftToHost = std::any_of(plan.groups.begin(), plan.groups.end(),
                                    [&](const FusedGroup& g) { return g.hostReshape == n; });
      auto isHostView = [&](const Node* m) {
        return std::find(plan.hostViews.begin(), plan.hostViews.end(), m) != plan.hostViews.end();
      };
      if (isHostView(n)) {
        leftToHost = true;
        // Every use reads it in place: another host view, an Assign's
        // source, an attention operand; or a list takes it when its chain
        // of views starts at a buffer the program made.
        const Node* first = n;
        while (!first->input(0)->isBlockParam() && isHostView(first->input(0)->node())) first = first->input(0)->node();
        const Value* base = first->input(0);
        const bool fresh = !base->isBlockParam() &&
                           (base->node()->is("fused.attention") || plan.groupOf.count(base->node()));
        for (const Use& u : n->output()->uses()) {
          const bool listed = u.user->is("prim.list_construct") || (u.user->is("list.append") && u.index == 1);
          if (!isHostView(u.user) && !(isAssign(u.user) && u.index == 1) && !u.user->is("fused.attention") &&
              !(listed && fresh))
            return ::testing::AssertionFailure() << "host view " << n->kind() << " used by " << u.user->kind();
        }
      }
      if (op != (plan.groupOf.count(n) != 0 || leftToHost))
        return ::testing::AssertionFailure() << n->kind() << " grouped wrongly";
    }
    return ::testing::AssertionSuccess();
  };
  auto r = walk(g.top());
  if (!r) return r;
  for (size_t gi = 0; gi < plan.groups.size(); ++gi) {
    const FusedGroup& grp = plan.groups[gi];
    std::string where = "group g" + std::to_string(gi) + ": ";
    if (grp.nodes.empty()) return ::testing::AssertionFailure() << where << "empty";
    const Block* block = grp.nodes.front()->owningBlock();
    std::unordered_set<const Node*> in(grp.nodes.begin(), grp.nodes.end());
    int last = position(grp.nodes.back());
    std::vector<const Value*> roots;
    for (size_t i = 0; i < grp.nodes.size(); ++i) {
      const Node* n = grp.nodes[i];
      if (plan.groupOf.at(n) != (int)gi) return ::testing::AssertionFailure() << where << "groupOf disagrees";
      if (n->owningBlock() != block) return ::testing::AssertionFailure() << where << "spans blocks";
      if (i > 0 && position(grp.nodes[i - 1]) >= position(n))
        return ::testing::AssertionFailure() << where << "not in program order";
      if (grp.nodes.size() > 1 && isAssign(n) && !in.count(n->input(0)->node()))
        return ::testing::AssertionFailure() << where << n->kind() << " fused without its base";
      bool outside = false;
      for (const Use& u : n->output()->uses()) {
        const Node* user = ancestorIn(u.user, block);
        if (user == block->returnNode()) {
          outside = true;
          continue;
        }
        const Node* site = user;
        if (user->is("prim.list_construct") && user->output()->uses().size() == 1 &&
            user->output()->uses()[0].user->owningBlock() == block && options.kernelOp(user->output()->uses()[0].user))
          user = user->output()->uses()[0].user;
        if (in.count(user)) continue;
        user = site;  // a list built for an outside kernel op is read where it stands
        outside = true;
        if (position(user) <= last)
          return ::testing::AssertionFailure() << where << n->kind() << " used by " << user->kind() << " before the kernel";
      }
      if (outside) roots.push_back(n->output());
    }
    if (roots.empty()) roots.push_back(grp.nodes.back()->output());
    if (roots != grp.roots) return ::testing::AssertionFailure() << where << "roots differ";
    for (const Value* v : roots)
      if (*v->type()->shape() != *roots.back()->type()->shape())
        return ::testing::AssertionFailure() << where << "roots of different shapes";
    if (grp.candidates.empty() || !(grp.candidates.front() == grp.schedule))
      return ::testing::AssertionFailure() << where << "schedule is not the first candidate";
  }
  return ::testing::AssertionSuccess();
}

struct Fused {
  std::unique_ptr<Graph> graph;
  FusionPlan plan;
  std::vector<std::string> lines;
};

inline Fused fuse(const Program& p, const FusionOptions& options = testOptions()) {
  Fused f;
  f.graph = simplifiedGraph(p);
  f.plan = fuseGraph(*f.graph, options);
  f.lines = planLines(f.plan);
  EXPECT_TRUE(planKeepsInvariants(*f.graph, f.plan, options)) << printGraph(*f.graph);
  EXPECT_NO_THROW(verifyFusionPlan(*f.graph, f.plan, options.kernelOp)) << printGraph(*f.graph);
  return f;
}

}  // namespace stitch::fusion_test
