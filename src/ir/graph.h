// The Graph IR: SSA values, nodes with sub-blocks (prim.loop / prim.if),
// blocks with parameters and returns. TorchScript's shape, our op names.
//
//   graph f(%x : f32[4], %n : int):
//     %y : f32[4] = prim.loop(%n, %true, %x)
//       block0(%i : int, %x.1 : f32[4]):
//         ...
//         -> (%cond, %x.2)
//     return (%y)
//
// Every block has a param node (its outputs are the block parameters) and a
// return node (its inputs are the block returns); neither sits in the node
// list, so uses of returns are ordinary uses. The Graph owns all memory;
// destroyed nodes are unlinked and freed with the graph.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "ir/constant.h"
#include "ir/type.h"

namespace stitch {

class Graph;
class Block;
class Node;
struct OpSchema;

struct Use {
  Node* user;
  size_t index;  // which input of user
  bool operator==(const Use& o) const { return user == o.user && index == o.index; }
};

class Value {
 public:
  const TypePtr& type() const { return type_; }
  void setType(TypePtr t) { type_ = std::move(t); }
  // The node that defines this value: an op node, or a block's param node.
  Node* node() const { return node_; }
  size_t offset() const { return offset_; }  // index among node()->outputs()
  bool isBlockParam() const;
  const std::vector<Use>& uses() const { return uses_; }
  bool hasUses() const { return !uses_.empty(); }
  // Source-level name hint ("src", "dup"); the printer makes it unique.
  const std::string& debugName() const { return name_; }
  void setDebugName(std::string n) { name_ = std::move(n); }
  uint64_t id() const { return id_; }
  Graph* graph() const { return graph_; }

  void replaceAllUsesWith(Value* other);
  // Only uses by nodes after `after` in program order (same or nested block;
  // see Node::isBefore: uses inside `after`'s own blocks are kept).
  void replaceUsesAfter(Node* after, Value* other);

 private:
  friend class Graph;
  friend class Node;
  Graph* graph_ = nullptr;
  Node* node_ = nullptr;
  size_t offset_ = 0;
  TypePtr type_;
  std::string name_;
  uint64_t id_ = 0;
  std::vector<Use> uses_;
};

class Node {
 public:
  const OpSchema& schema() const { return *schema_; }
  const std::string& kind() const;  // op name, e.g. "add", "prim.loop"
  bool is(const char* name) const { return kind() == name; }

  const std::vector<Value*>& inputs() const { return inputs_; }
  Value* input(size_t i) const { return inputs_.at(i); }
  const std::vector<Value*>& outputs() const { return outputs_; }
  Value* output(size_t i = 0) const { return outputs_.at(i); }
  const std::vector<Block*>& blocks() const { return blocks_; }
  Block* block(size_t i) const { return blocks_.at(i); }

  Value* addInput(Value* v);
  void insertInput(size_t i, Value* v);
  void replaceInput(size_t i, Value* v);
  void removeInput(size_t i);
  void removeAllInputs();
  Value* addOutput(TypePtr type, std::string name = "");
  void insertOutput(size_t i, TypePtr type, std::string name = "");
  void eraseOutput(size_t i);  // the output must have no uses
  Block* addBlock();

  // Attributes (prim.constant's `value`; ops may define more).
  bool hasAttr(const std::string& name) const { return attrs_.count(name) != 0; }
  const Constant& attr(const std::string& name) const;
  void setAttr(const std::string& name, Constant c) { attrs_[name] = std::move(c); }
  const std::map<std::string, Constant>& attrs() const { return attrs_; }

  const SourceLoc& loc() const { return loc_; }
  void setLoc(SourceLoc loc) { loc_ = std::move(loc); }

  Block* owningBlock() const { return owner_; }
  Node* owningNode() const;  // the loop/if node holding owningBlock(), or null
  Node* next() const { return next_; }
  Node* prev() const { return prev_; }
  // Program order, across nesting. A loop/if node is neither before nor after
  // the nodes inside its own blocks (as in TorchScript).
  bool isBefore(const Node* other) const;

  // Unlinks a node from its block and drops its input uses; its outputs must
  // be unused. Sub-blocks are destroyed with it.
  void destroy();
  void moveBefore(Node* n);
  void moveAfter(Node* n);
  Graph* graph() const { return graph_; }

 private:
  friend class Graph;
  friend class Block;
  friend class Value;
  Graph* graph_ = nullptr;
  const OpSchema* schema_ = nullptr;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::vector<Block*> blocks_;
  std::map<std::string, Constant> attrs_;
  SourceLoc loc_;
  Block* owner_ = nullptr;
  Node* prev_ = nullptr;
  Node* next_ = nullptr;
};

class Block {
 public:
  const std::vector<Value*>& params() const;
  Value* param(size_t i) const { return params().at(i); }
  Value* addParam(TypePtr type, std::string name = "");
  void insertParam(size_t i, TypePtr type, std::string name = "");
  void eraseParam(size_t i);  // must be unused
  const std::vector<Value*>& returns() const;
  Value* ret(size_t i) const { return returns().at(i); }
  void addReturn(Value* v);
  void insertReturn(size_t i, Value* v);
  void replaceReturn(size_t i, Value* v);
  void eraseReturn(size_t i);

  Node* paramNode() const { return paramNode_; }
  Node* returnNode() const { return returnNode_; }
  Node* owningNode() const { return owner_; }  // null for the graph's top block
  Graph* graph() const { return graph_; }

  // Iteration over the node list (param and return nodes excluded).
  class iterator {
   public:
    explicit iterator(Node* n) : n_(n) {}
    Node* operator*() const { return n_; }
    iterator& operator++() { n_ = n_->next(); return *this; }
    bool operator!=(const iterator& o) const { return n_ != o.n_; }
    bool operator==(const iterator& o) const { return n_ == o.n_; }
   private:
    Node* n_;
  };
  iterator begin() const { return iterator(first_); }
  iterator end() const { return iterator(nullptr); }
  Node* front() const { return first_; }
  Node* back() const { return last_; }
  bool empty() const { return first_ == nullptr; }
  std::vector<Node*> nodes() const;  // a snapshot, safe to mutate while iterating

  void append(Node* n);
  void prepend(Node* n);
  void insertBefore(Node* anchor, Node* n);
  void insertAfter(Node* anchor, Node* n);

 private:
  friend class Graph;
  friend class Node;
  void unlink(Node* n);
  Graph* graph_ = nullptr;
  Node* owner_ = nullptr;
  Node* paramNode_ = nullptr;
  Node* returnNode_ = nullptr;
  Node* first_ = nullptr;
  Node* last_ = nullptr;
};

class Graph {
 public:
  Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Block* top() const { return top_; }
  const std::string& name() const { return name_; }
  void setName(std::string n) { name_ = std::move(n); }
  // Graph inputs are the top block's params; outputs its returns.
  Value* addInput(TypePtr type, std::string name = "") { return top_->addParam(std::move(type), std::move(name)); }
  const std::vector<Value*>& inputs() const { return top_->params(); }
  const std::vector<Value*>& outputs() const { return top_->returns(); }
  void addOutput(Value* v) { top_->addReturn(v); }

  // Creates an unlinked node of a registered op (throws InternalError for an
  // unknown name) with one output per schema return (variadic ops: none).
  Node* create(const std::string& op, const std::vector<Value*>& inputs = {},
               size_t numOutputs = SIZE_MAX);
  Node* create(const OpSchema& schema, const std::vector<Value*>& inputs = {},
               size_t numOutputs = SIZE_MAX);
  // A prim.constant node, unlinked.
  Node* createConstant(const Constant& c);
  // Appends a constant at the start of the top block (so it dominates all uses).
  Value* constant(const Constant& c, SourceLoc loc = {});

  // Deep copy of the whole graph.
  std::unique_ptr<Graph> clone() const;
  // Copies `from`'s nodes into `to` before `to`'s end, mapping values via env.
  static void cloneBlockInto(const Block* from, Block* to, std::map<const Value*, Value*>& env);
  // Copies one node (with its blocks, types, attributes and location) to the
  // end of `to`, mapping inputs via env and recording its outputs there.
  static Node* cloneNodeInto(const Node* old, Block* to, std::map<const Value*, Value*>& env);

 private:
  friend class Node;
  friend class Block;
  Node* newNode(const OpSchema* schema);
  Block* newBlock(Node* owner);
  Value* newValue(Node* producer, size_t offset, TypePtr type, std::string name);
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::unique_ptr<Block>> blocks_;
  std::vector<std::unique_ptr<Value>> values_;
  Block* top_ = nullptr;
  std::string name_;
  uint64_t nextId_ = 0;
};

// The constant a value holds if it is produced by prim.constant, else null.
const Constant* constantOf(const Value* v);

}  // namespace stitch
