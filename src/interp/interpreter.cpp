#include "interp/interpreter.h"

#include <omp.h>

#include <unordered_map>

#include "interp/kernel_registry.h"
#include "ir/op_registry.h"

namespace stitch {

namespace {

class Interpreter {
 public:
  IValueList runBlock(const Block* block, const IValueList& params) {
    const std::vector<Value*>& ps = block->params();
    STITCH_ASSERT(ps.size() == params.size(), "block expects ", ps.size(), " values, got ",
                  params.size());
    for (size_t i = 0; i < ps.size(); ++i) env_[ps[i]] = params[i];
    for (const Node* node : *block) runNodeWithLoc(node);
    IValueList out;
    for (const Value* r : block->returns()) out.push_back(lookup(r));
    return out;
  }

 private:
  const IValue& lookup(const Value* v) const {
    auto it = env_.find(v);
    STITCH_ASSERT(it != env_.end(), "value %", v->debugName(), " used before it is defined");
    return it->second;
  }

  // Kernels throw without a location; the failing node supplies it.
  void runNodeWithLoc(const Node* node) {
    try {
      runNode(node);
    } catch (const UserError& e) {
      throw e.withLoc(node->loc());
    } catch (const RuntimeFailure& e) {
      if (e.loc().known()) throw;
      throw RuntimeFailure(e.message(), node->loc());
    }
  }

  void runNode(const Node* node) {
    const std::string& kind = node->kind();
    if (kind == "prim.constant") {
      env_[node->output()] = IValue::fromConstant(node->attr("value"));
      return;
    }
    if (kind == "prim.loop") return runLoop(node);
    if (kind == "prim.if") return runIf(node);
    if (kind == "tssa.update") return;
    const Kernel* kernel = KernelRegistry::get().find(kind);
    if (!kernel) throw InternalError("internal error: the interpreter has no kernel for op '" + kind + "'");
    IValueList args;
    args.reserve(node->inputs().size());
    for (const Value* in : node->inputs()) args.push_back(lookup(in));
    IValueList results = (*kernel)(*node, args);
    bindOutputs(node, std::move(results));
  }

  void bindOutputs(const Node* node, IValueList results) {
    const std::vector<Value*>& outs = node->outputs();
    STITCH_ASSERT(results.size() == outs.size(), "kernel of '", node->kind(), "' returned ",
                  results.size(), " values for ", outs.size(), " outputs");
    for (size_t i = 0; i < outs.size(); ++i) env_[outs[i]] = std::move(results[i]);
  }

  // TorchScript's loop: runs while iter < max_trip_count and cond holds.
  void runLoop(const Node* node) {
    const std::vector<Value*>& ins = node->inputs();
    STITCH_ASSERT(ins.size() >= 2, "prim.loop needs max_trip_count and cond");
    int64_t maxTrip = lookup(ins[0]).toInt();
    bool cond = lookup(ins[1]).toBool();
    IValueList carried;
    for (size_t i = 2; i < ins.size(); ++i) carried.push_back(lookup(ins[i]));
    const Block* body = node->block(0);
    bindOutputs(node, runLoopIterations(maxTrip, cond, std::move(carried),
                                        [&](IValueList params) { return runBlock(body, params); }));
  }

  void runIf(const Node* node) {
    bool cond = lookup(node->input(0)).toBool();
    bindOutputs(node, runBlock(node->block(cond ? 0 : 1), {}));
  }

  std::unordered_map<const Value*, IValue> env_;
};

}  // namespace

IValueList runLoopIterations(int64_t maxTrip, bool cond, IValueList carried,
                             const std::function<IValueList(IValueList params)>& body) {
  for (int64_t iter = 0; iter < maxTrip && cond; ++iter) {
    IValueList params;
    params.reserve(carried.size() + 1);
    params.emplace_back(iter);
    for (IValue& c : carried) params.push_back(std::move(c));
    IValueList rets = body(std::move(params));
    STITCH_ASSERT(rets.size() == carried.size() + 1, "prim.loop body returns ", rets.size(),
                  " values for ", carried.size(), " carried");
    cond = rets[0].toBool();
    for (size_t i = 0; i < carried.size(); ++i) carried[i] = std::move(rets[i + 1]);
  }
  return carried;
}

IValueList interpret(const Graph& graph, const IValueList& inputs, const InterpOptions& options) {
  if (inputs.size() != graph.inputs().size()) {
    throw UserError(errorMessage("the program takes ", graph.inputs().size(), " inputs but ",
                                 inputs.size(), " were given"));
  }
  if (options.threads > 0) omp_set_num_threads(options.threads);
  Interpreter interp;
  return interp.runBlock(graph.top(), inputs);
}

}  // namespace stitch
