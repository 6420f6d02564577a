#include "ir/graph.h"

#include <algorithm>

#include "ir/op_registry.h"

namespace stitch {

namespace {

void removeUse(Value* v, Node* user, size_t index) {
  auto& uses = const_cast<std::vector<Use>&>(v->uses());
  auto it = std::find(uses.begin(), uses.end(), Use{user, index});
  STITCH_ASSERT(it != uses.end(), "use list out of sync");
  uses.erase(it);
}

void renumberUse(Value* v, Node* user, size_t from, size_t to) {
  auto& uses = const_cast<std::vector<Use>&>(v->uses());
  auto it = std::find(uses.begin(), uses.end(), Use{user, from});
  STITCH_ASSERT(it != uses.end(), "use list out of sync");
  it->index = to;
}

}  // namespace

// ---- Value -------------------------------------------------------------------

bool Value::isBlockParam() const { return node_ && node_->is("prim.param"); }

void Value::replaceAllUsesWith(Value* other) {
  STITCH_ASSERT(other != this, "replacing a value with itself");
  for (const Use& u : uses_) {
    u.user->inputs_[u.index] = other;
    other->uses_.push_back(u);
  }
  uses_.clear();
}

void Value::replaceUsesAfter(Node* after, Value* other) {
  STITCH_ASSERT(other != this, "replacing a value with itself");
  std::vector<Use> kept;
  for (const Use& u : uses_) {
    if (!after->isBefore(u.user)) {
      kept.push_back(u);
      continue;
    }
    u.user->inputs_[u.index] = other;
    other->uses_.push_back(u);
  }
  uses_ = std::move(kept);
}

// ---- Node --------------------------------------------------------------------

const std::string& Node::kind() const { return schema_->name; }

Value* Node::addInput(Value* v) {
  STITCH_ASSERT(v, "null input");
  v->uses_.push_back(Use{this, inputs_.size()});
  inputs_.push_back(v);
  return v;
}

void Node::insertInput(size_t i, Value* v) {
  STITCH_ASSERT(v && i <= inputs_.size(), "bad input insertion");
  for (size_t j = inputs_.size(); j-- > i;) renumberUse(inputs_[j], this, j, j + 1);
  inputs_.insert(inputs_.begin() + i, v);
  v->uses_.push_back(Use{this, i});
}

void Node::replaceInput(size_t i, Value* v) {
  STITCH_ASSERT(v && i < inputs_.size(), "bad input replacement");
  removeUse(inputs_[i], this, i);
  inputs_[i] = v;
  v->uses_.push_back(Use{this, i});
}

void Node::removeInput(size_t i) {
  STITCH_ASSERT(i < inputs_.size(), "bad input removal");
  removeUse(inputs_[i], this, i);
  for (size_t j = i + 1; j < inputs_.size(); ++j) renumberUse(inputs_[j], this, j, j - 1);
  inputs_.erase(inputs_.begin() + i);
}

void Node::removeAllInputs() {
  for (size_t i = 0; i < inputs_.size(); ++i) removeUse(inputs_[i], this, i);
  inputs_.clear();
}

Value* Node::addOutput(TypePtr type, std::string name) {
  Value* v = graph_->newValue(this, outputs_.size(), std::move(type), std::move(name));
  outputs_.push_back(v);
  return v;
}

void Node::insertOutput(size_t i, TypePtr type, std::string name) {
  STITCH_ASSERT(i <= outputs_.size(), "bad output insertion");
  Value* v = graph_->newValue(this, i, std::move(type), std::move(name));
  outputs_.insert(outputs_.begin() + i, v);
  for (size_t j = i + 1; j < outputs_.size(); ++j) outputs_[j]->offset_ = j;
}

void Node::eraseOutput(size_t i) {
  STITCH_ASSERT(i < outputs_.size(), "bad output erase");
  STITCH_ASSERT(!outputs_[i]->hasUses(), "erasing an output that still has uses");
  outputs_[i]->node_ = nullptr;
  outputs_.erase(outputs_.begin() + i);
  for (size_t j = i; j < outputs_.size(); ++j) outputs_[j]->offset_ = j;
}

Block* Node::addBlock() {
  Block* b = graph_->newBlock(this);
  blocks_.push_back(b);
  return b;
}

const Constant& Node::attr(const std::string& name) const {
  auto it = attrs_.find(name);
  STITCH_ASSERT(it != attrs_.end(), "node ", kind(), " has no attribute ", name);
  return it->second;
}

Node* Node::owningNode() const { return owner_ ? owner_->owner_ : nullptr; }

namespace {

// Program order of two distinct nodes of the same block; the param node comes
// first and the return node last.
bool beforeInBlock(const Node* a, const Node* b) {
  const Block* blk = a->owningBlock();
  if (a == blk->paramNode() || b == blk->returnNode()) return true;
  if (b == blk->paramNode() || a == blk->returnNode()) return false;
  for (const Node* n = a->next(); n; n = n->next())
    if (n == b) return true;
  return false;
}

std::vector<const Node*> ancestry(const Node* n) {
  std::vector<const Node*> chain;
  for (; n; n = n->owningNode()) chain.push_back(n);
  return chain;
}

}  // namespace

bool Node::isBefore(const Node* other) const {
  if (this == other) return false;
  std::vector<const Node*> mine = ancestry(this), theirs = ancestry(other);
  for (size_t i = 0; i < mine.size(); ++i) {
    for (size_t j = 0; j < theirs.size(); ++j) {
      if (mine[i]->owningBlock() != theirs[j]->owningBlock()) continue;
      // A control node is neither before nor after what is nested in it:
      // its results are not visible in its own blocks.
      if (mine[i] == theirs[j]) return false;
      return beforeInBlock(mine[i], theirs[j]);
    }
  }
  STITCH_ASSERT(false, "isBefore() on nodes of different graphs or unlinked nodes");
  return false;
}

static void destroyBlockContents(Block* b) {
  b->returnNode()->removeAllInputs();
  std::vector<Node*> nodes = b->nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) (*it)->destroy();
}

void Node::destroy() {
  for (Value* out : outputs_)
    STITCH_ASSERT(!out->hasUses(), "destroying ", kind(), " whose output still has uses");
  for (Block* b : blocks_) destroyBlockContents(b);
  removeAllInputs();
  if (owner_ && owner_->paramNode_ != this && owner_->returnNode_ != this) owner_->unlink(this);
  owner_ = nullptr;
}

void Node::moveBefore(Node* n) {
  STITCH_ASSERT(n != this && n->owner_, "bad move");
  if (owner_) owner_->unlink(this);
  n->owner_->insertBefore(n, this);
}

void Node::moveAfter(Node* n) {
  STITCH_ASSERT(n != this && n->owner_, "bad move");
  if (owner_) owner_->unlink(this);
  n->owner_->insertAfter(n, this);
}

// ---- Block -------------------------------------------------------------------

const std::vector<Value*>& Block::params() const { return paramNode_->outputs(); }
Value* Block::addParam(TypePtr type, std::string name) {
  return paramNode_->addOutput(std::move(type), std::move(name));
}
void Block::insertParam(size_t i, TypePtr type, std::string name) {
  paramNode_->insertOutput(i, std::move(type), std::move(name));
}
void Block::eraseParam(size_t i) { paramNode_->eraseOutput(i); }
const std::vector<Value*>& Block::returns() const { return returnNode_->inputs(); }
void Block::addReturn(Value* v) { returnNode_->addInput(v); }
void Block::insertReturn(size_t i, Value* v) { returnNode_->insertInput(i, v); }
void Block::replaceReturn(size_t i, Value* v) { returnNode_->replaceInput(i, v); }
void Block::eraseReturn(size_t i) { returnNode_->removeInput(i); }

std::vector<Node*> Block::nodes() const {
  std::vector<Node*> out;
  for (Node* n = first_; n; n = n->next_) out.push_back(n);
  return out;
}

void Block::append(Node* n) {
  if (last_) {
    insertAfter(last_, n);
    return;
  }
  STITCH_ASSERT(!n->owner_, "node is already in a block");
  n->owner_ = this;
  first_ = last_ = n;
}

void Block::prepend(Node* n) {
  if (first_) {
    insertBefore(first_, n);
    return;
  }
  append(n);
}

void Block::insertBefore(Node* anchor, Node* n) {
  STITCH_ASSERT(anchor->owner_ == this && !n->owner_, "bad insertion");
  n->owner_ = this;
  n->next_ = anchor;
  n->prev_ = anchor->prev_;
  if (anchor->prev_) anchor->prev_->next_ = n;
  else first_ = n;
  anchor->prev_ = n;
}

void Block::insertAfter(Node* anchor, Node* n) {
  STITCH_ASSERT(anchor->owner_ == this && !n->owner_, "bad insertion");
  n->owner_ = this;
  n->prev_ = anchor;
  n->next_ = anchor->next_;
  if (anchor->next_) anchor->next_->prev_ = n;
  else last_ = n;
  anchor->next_ = n;
}

void Block::unlink(Node* n) {
  STITCH_ASSERT(n->owner_ == this, "unlinking a node from the wrong block");
  if (n->prev_) n->prev_->next_ = n->next_;
  else first_ = n->next_;
  if (n->next_) n->next_->prev_ = n->prev_;
  else last_ = n->prev_;
  n->prev_ = n->next_ = nullptr;
  n->owner_ = nullptr;
}

// ---- Graph -------------------------------------------------------------------

Graph::Graph() { top_ = newBlock(nullptr); }

Node* Graph::newNode(const OpSchema* schema) {
  nodes_.push_back(std::unique_ptr<Node>(new Node()));
  Node* n = nodes_.back().get();
  n->graph_ = this;
  n->schema_ = schema;
  return n;
}

Block* Graph::newBlock(Node* owner) {
  blocks_.push_back(std::unique_ptr<Block>(new Block()));
  Block* b = blocks_.back().get();
  b->graph_ = this;
  b->owner_ = owner;
  const OpRegistry& reg = OpRegistry::get();
  b->paramNode_ = newNode(&reg.schema("prim.param"));
  b->paramNode_->owner_ = b;
  b->returnNode_ = newNode(&reg.schema("prim.return"));
  b->returnNode_->owner_ = b;
  return b;
}

Value* Graph::newValue(Node* producer, size_t offset, TypePtr type, std::string name) {
  values_.push_back(std::unique_ptr<Value>(new Value()));
  Value* v = values_.back().get();
  v->graph_ = this;
  v->node_ = producer;
  v->offset_ = offset;
  v->type_ = type ? std::move(type) : Type::tensor();
  v->name_ = std::move(name);
  v->id_ = nextId_++;
  return v;
}

// Ops typed by the built-in rules (lists, tuples, Python scalars) get their
// precise output types right away; ops with a shape rule keep the declared
// types until shape inference runs (their rules may need more context).
static void refineBuiltinOutputTypes(Node* n) {
  // A node made without outputs gets them (and their types) from its maker.
  if (n->schema().has(kControl) || n->is("prim.constant") || n->outputs().empty()) return;
  if (OpRegistry::get().typeRule(n->kind())) return;
  try {
    std::vector<TypePtr> types = inferOutputTypes(*n);
    for (size_t i = 0; i < types.size() && i < n->outputs().size(); ++i)
      if (types[i]) n->output(i)->setType(types[i]);
  } catch (const UserError&) {
    // Ill-typed inputs: the declared types stand; shape inference reports it.
  }
}

Node* Graph::create(const std::string& op, const std::vector<Value*>& inputs, size_t numOutputs) {
  return create(OpRegistry::get().schema(op), inputs, numOutputs);
}

Node* Graph::create(const OpSchema& schema, const std::vector<Value*>& inputs, size_t numOutputs) {
  Node* n = newNode(&schema);
  for (Value* v : inputs) n->addInput(v);
  bool variadic = schema.has(kVarRets);
  size_t count = numOutputs != SIZE_MAX ? numOutputs : variadic ? 0 : schema.rets.size();
  for (size_t i = 0; i < count; ++i)
    n->addOutput(i < schema.rets.size() ? declaredType(schema.rets[i]) : Type::tensor());
  refineBuiltinOutputTypes(n);
  return n;
}

Node* Graph::createConstant(const Constant& c) {
  Node* n = create("prim.constant");
  n->setAttr("value", c);
  n->output()->setType(c.type());
  return n;
}

Value* Graph::constant(const Constant& c, SourceLoc loc) {
  Node* n = createConstant(c);
  n->setLoc(std::move(loc));
  // After the constants already at the top, so they stay in creation order.
  Node* anchor = top_->front();
  if (!anchor || !anchor->is("prim.constant")) {
    top_->prepend(n);
    return n->output();
  }
  while (anchor->next() && anchor->next()->is("prim.constant")) anchor = anchor->next();
  top_->insertAfter(anchor, n);
  return n->output();
}

static Value* mapped(std::map<const Value*, Value*>& env, Value* v, Graph* target) {
  auto it = env.find(v);
  if (it != env.end()) return it->second;
  STITCH_ASSERT(v->graph() == target, "cloning a block that uses a value with no mapping");
  return v;
}

static void copyValueInfo(const Value* from, Value* to) {
  to->setType(from->type());
  to->setDebugName(from->debugName());
}

Node* Graph::cloneNodeInto(const Node* old, Block* to, std::map<const Value*, Value*>& env) {
  Graph* g = to->graph();
  Node* n = g->newNode(old->schema_);
  for (Value* in : old->inputs()) n->addInput(mapped(env, in, g));
  for (Value* out : old->outputs()) env[out] = n->addOutput(out->type(), out->debugName());
  n->attrs_ = old->attrs_;
  n->loc_ = old->loc_;
  for (Block* oldSub : old->blocks()) {
    Block* sub = n->addBlock();
    for (Value* p : oldSub->params()) env[p] = sub->addParam(p->type(), p->debugName());
    cloneBlockInto(oldSub, sub, env);
    for (Value* r : oldSub->returns()) sub->addReturn(mapped(env, r, g));
  }
  to->append(n);
  return n;
}

void Graph::cloneBlockInto(const Block* from, Block* to, std::map<const Value*, Value*>& env) {
  for (const Node* old : *from) cloneNodeInto(old, to, env);
}

std::unique_ptr<Graph> Graph::clone() const {
  auto g = std::make_unique<Graph>();
  g->name_ = name_;
  std::map<const Value*, Value*> env;
  for (Value* in : inputs()) {
    Value* v = g->addInput(in->type(), in->debugName());
    copyValueInfo(in, v);
    env[in] = v;
  }
  cloneBlockInto(top_, g->top_, env);
  for (Value* out : outputs()) g->addOutput(mapped(env, out, g.get()));
  return g;
}

const Constant* constantOf(const Value* v) {
  if (!v || !v->node() || !v->node()->is("prim.constant")) return nullptr;
  if (!v->node()->hasAttr("value")) return nullptr;
  return &v->node()->attr("value");
}

}  // namespace stitch
