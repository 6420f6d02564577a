// The IR's text form, TorchScript's layout with our op names:
//
//   graph normalize(%src.1 : f32[800,1333,3], %mean : float):
//     %0 : int = prim.constant[value=-1]()  # examples/normalize.py:3:11
//     %y : Tensor = prim.loop(%n, %c, %x)
//       block0(%i : int, %x.1 : Tensor):
//         ...
//         -> (%c.1, %x.2)
//     return (%y)
//
// Values print as their debug name made unique with .N suffixes, or as a
// number; names depend only on the graph, so printing is deterministic, and
// parseGraph (ir_parser.h) reads the text back to a graph that prints the same.
#pragma once
#include <map>
#include <set>
#include <string>

#include "ir/graph.h"

namespace stitch {

std::string printGraph(const Graph& graph);
// One node (with its sub-blocks), its values named as printGraph names them.
std::string printNode(const Node& node);
// A value's name as printGraph prints it, without the '%'.
std::string printedName(const Value& value);

// Unique printed names for every value of a graph, in definition order.
class ValueNamer {
 public:
  explicit ValueNamer(const Graph& graph);
  // Values outside the graph (unlinked nodes) print as "?<id>".
  std::string name(const Value* v) const;

 private:
  void nameBlock(const Block* b);
  void assign(const Value* v);
  std::map<const Value*, std::string> names_;
  std::set<std::string> used_;
  std::map<std::string, size_t> nextSuffix_;
  size_t nextNumber_ = 0;
};

}  // namespace stitch
