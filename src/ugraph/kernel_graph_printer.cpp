#include "ugraph/kernel_graph_printer.h"

#include <algorithm>
#include <memory>
#include <sstream>

#include "ir/printer.h"
#include "ugraph/loop_kernels.h"

namespace stitch {

namespace {

std::string mapStr(const std::vector<int>& m) {
  static const char* axes[] = {"x", "y", "z"};
  std::string s = "{";
  for (size_t i = 0; i < m.size(); ++i) {
    if (i) s += ", ";
    s += std::string(i < 3 ? axes[i] : "?") + "->" + (m[i] == kReplica ? std::string("phi") : std::to_string(m[i]));
  }
  return s + "}";
}

template <typename T>
std::string listStr(const std::vector<T>& v, const char* sep = ",") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

void printKernel(std::ostringstream& o, const Kernel& k, const ValueNamer& names) {
  o << "kernel " << k.name << " " << kernelKindName(k.kind) << ":";
  for (const Node* n : k.nodes) o << " %" << names.name(n->output()) << "=" << n->kind();
  o << "\n";
  const BlockGraph& b = k.block;
  for (size_t i = 0; i < k.outputs.size(); ++i) {
    o << "  out" << i << " %" << names.name(k.outputs[i]) << " : " << k.outputs[i]->type()->str();
    if (i < b.outputs.size()) o << " omap " << mapStr(b.outputs[i].omap);
    if (i < b.outputs.size() && !b.outputs[i].fmap.empty()) o << " fmap " << mapStr(b.outputs[i].fmap);
    o << "\n";
  }
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    o << "  in" << i << " %" << names.name(k.inputs[i]) << " : " << k.inputs[i]->type()->str();
    if (i < b.inputs.size()) o << " imap " << mapStr(b.inputs[i].imap);
    if (i < b.inputs.size() && !b.inputs[i].fmap.empty()) o << " fmap " << mapStr(b.inputs[i].fmap);
    o << "\n";
  }
  for (size_t i = 0; i < k.params.size(); ++i)
    o << "  param" << i << " %" << names.name(k.params[i]) << " : " << k.params[i]->type()->str() << "\n";
  if (k.kind != KernelKind::GraphDefined) return;
  if (b.schedule)
    o << "  schedule " << scheduleStr(*b.schedule) << (b.fromSchedule ? "" : ": grid by size")
      << "\n";
  o << "  grid (" << listStr(b.grid) << ") blockExtent " << b.blockExtent;
  if (b.splitLoop != 0) o << " splitLoop " << b.splitLoop;
  o << " loops";
  for (const LoopDim& l : b.loops) o << " [" << listStr(l.iterDims) << "]<" << l.extent << ">";
  if (!b.forloop.empty()) o << " forloop (" << listStr(b.forloop) << ")";
  o << "\n";
  if (b.column)
    o << "  column: " << b.column->parts << " blocks each fold one part of reduce %" << b.column->reduce << " as %"
      << b.column->partial << "; partials combined in block order\n";
  int64_t arena = 0;
  for (const LocalBuffer& l : b.locals) {
    const int64_t bytes = l.elements * (int64_t)dtypeSize(l.dtype);
    o << "  local " << l.name << " : " << dtypeName(l.dtype) << "[" << l.elements << "] " << bytes << " bytes";
    if (l.value) o << " holds %" << names.name(l.value);
    if (!l.value && !l.holds.empty()) o << " holds " << l.holds;
    o << " at " << l.offset << "\n";
    arena = std::max(arena, l.offset + bytes);
  }
  if (!b.locals.empty()) o << "  block-local bytes " << arena << "\n";
  o << "  thread graph over [" << listStr(b.thread.iterShape()) << "]:\n";
  std::istringstream lines(b.thread.str());
  for (std::string line; std::getline(lines, line);) o << "  " << line << "\n";
}

std::string valueList(const std::vector<Value*>& values, size_t from, const ValueNamer& names) {
  std::string s;
  for (size_t i = from; i < values.size(); ++i) s += (i > from ? ", %" : "%") + names.name(values[i]);
  return s;
}

// A loop kernel's body: its phases (with the thread their blocks start on,
// when not the first, and the team's barriers), the scalars each thread
// computes, nested loops and the carried values.
void printLoopBody(std::ostringstream& o, const Node* loop, const LoopKernel& kernel, const KernelGraph& graph,
                   const ValueNamer& names, const std::string& indent) {
  const Block* body = loop->block(0);
  const bool counted = isCountedLoop(loop);
  o << indent << "for %" << names.name(body->param(0)) << " in range(%" << names.name(loop->input(0)) << ")";
  if (!counted)
    o << " while %" << names.name(loop->input(1)) << " at entry, then %" << names.name(body->ret(0));
  o << ":\n";
  const std::string in = indent + "  ";
  for (const Node* n : *body) {
    auto at = graph.kernelAt.find(n);
    if (at != graph.kernelAt.end()) {
      const Kernel& k = graph.kernels[at->second];
      o << in << "phase " << k.name << " grid (" << listStr(k.block.grid) << ")";
      auto phase = kernel.phases.find(at->second);
      if (phase == kernel.phases.end()) {
        o << " (empty: not run)\n";
        continue;
      }
      if (phase->second.firstThread) o << " from thread +" << phase->second.firstThread;
      o << (phase->second.barrierAfter ? "; barrier\n" : "\n");
    } else if (n->is("prim.loop")) {
      printLoopBody(o, n, kernel, graph, names, in);
    } else if (n->is("immut.select_rev")) {
      o << in << "write %" << names.name(n->input(1)) << " into %" << names.name(n->input(0)) << " in place: %"
        << names.name(n->output()) << "; barrier\n";
    } else if (loopViewOf(n)) {
      o << in << "view %" << names.name(n->output()) << "=" << n->kind() << "(%" << names.name(n->input(0)) << ")\n";
    } else if (n->is("list.append")) {
      o << in << "append %" << names.name(n->input(1)) << " to its row of %" << names.name(n->input(0)) << "\n";
    } else if (n->kind().rfind("scalar.", 0) == 0) {
      o << in << "scalar %" << names.name(n->output()) << "=" << n->kind() << "\n";
    }
  }
  for (size_t i = 1; i < body->params().size(); ++i)
    o << in << "carry %" << names.name(body->param(i)) << " <- %" << names.name(body->ret(i)) << "\n";
}

}  // namespace

std::string printKernelGraph(const KernelGraph& graph) {
  std::ostringstream o;
  if (graph.kernels.empty()) return "(no kernels)\n";
  ValueNamer names(*graph.kernels.front().nodes.front()->graph());
  for (const Kernel& k : graph.kernels) printKernel(o, k, names);
  for (const LoopKernel& l : graph.loops) {
    o << "loop kernel " << l.name << ": " << valueList(l.loop->outputs(), 0, names) << " = prim.loop("
      << valueList(l.loop->inputs(), 0, names) << "), one call, one team of threads\n";
    printLoopBody(o, l.loop, l, graph, names, "  ");
  }
  return o.str();
}

}  // namespace stitch
