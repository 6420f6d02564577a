#include "fusion/fusion_plan.h"

#include "ir/printer.h"

namespace stitch {

std::string printFusionPlan(const FusionPlan& plan) {
  if (plan.groups.empty() && plan.hostViews.empty()) return "";
  ValueNamer names(plan.groups.empty() ? *plan.hostViews.front()->graph() : *plan.groups.front().nodes.front()->graph());
  std::string text;
  for (size_t i = 0; i < plan.groups.size(); ++i) {
    const FusedGroup& g = plan.groups[i];
    // Several roots: all of them in program order, the schedule's root last.
    text += "group g" + std::to_string(i) + (g.roots.size() > 1 ? " roots" : " root");
    for (const Value* r : g.roots) text += " %" + names.name(r);
    text += " schedule " + scheduleStr(g.schedule) + " nodes:";
    for (const Node* n : g.nodes) text += " %" + names.name(n->output()) + "=" + n->kind();
    text += "\n";
    if (g.hostReshape)
      text += "host %" + names.name(g.hostReshape->output()) + "=" + g.hostReshape->kind() + "\n";
  }
  for (const Node* n : plan.hostViews) text += "host view %" + names.name(n->output()) + "=" + n->kind() + "\n";
  return text;
}

}  // namespace stitch
