// The one registry of ops. Each op has one or more schemas (overloads), each
// parsed from a TorchScript-like signature in op_table.cpp:
//
//   add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
//   sum(Tensor self, int[]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
//
// Argument types: Tensor, Scalar (int|float|bool), int, float, bool, str,
// ScalarType (a dtype), Any, T[] (list of T), T? (T or None). `*` starts the
// keyword-only arguments. Return types: the same, or `(A, B)` for several
// outputs; `Scalar`/`Any` returns are refined by the op's type rule.
// Flags say how an op behaves: pure (no side effect, no aliasing), view (the
// output aliases input 0), inplace (writes input 0 and returns it),
// expensive, control (prim.loop / prim.if / prim.return / prim.param).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/constant.h"
#include "ir/type.h"

namespace stitch {

class Node;

enum class ArgType : uint8_t {
  Tensor, Scalar, Int, Float, Bool, Str, ScalarType, Any,
};

struct ArgSpec {
  std::string name;
  ArgType type = ArgType::Any;
  bool isList = false;          // T[]
  bool optional = false;        // T? : None accepted
  bool kwargOnly = false;
  std::optional<Constant> defaultValue;
  std::string str() const;      // "int[]? dim=None"
};

enum OpFlag : uint32_t {
  kPure = 1u << 0,
  kView = 1u << 1,
  kInPlace = 1u << 2,
  kExpensive = 1u << 3,
  kControl = 1u << 4,
  kVarArgs = 1u << 5,   // any number of inputs (prim.list_construct, ...)
  kVarRets = 1u << 6,   // any number of outputs (prim.list_unpack, prim.loop, ...)
};

class Value;

// What static analysis knows about scalar and list values beyond their types.
// The base answers from prim.constant / prim.list_construct producers; shape
// inference subclasses it with the scalars it has propagated.
class StaticValues {
 public:
  virtual ~StaticValues() = default;
  // The value's constant, if known.
  virtual const Constant* constant(const Value* v) const;
  // An int[] argument element by element (nullopt entries unknown); nullopt
  // when not even the length is known. A plain int counts as a 1-list.
  virtual std::optional<std::vector<std::optional<int64_t>>> intList(const Value* v) const;
  std::optional<int64_t> intValue(const Value* v) const;
  std::optional<bool> boolValue(const Value* v) const;
  std::optional<double> doubleValue(const Value* v) const;
  bool isNone(const Value* v) const;
  // Types of the elements of a list built by prim.list_construct (or of a
  // constant list); nullopt when the list's length is not known statically.
  virtual std::optional<std::vector<TypePtr>> listElementTypes(const Value* v) const;
};

// Computes a node's output types from its inputs' types (and statically known
// inputs). Throws UserError (without location; callers add the node's) on
// ill-typed or ill-shaped input. Registered per op name by the shape module.
using TypeRule = std::function<std::vector<TypePtr>(const Node&, const StaticValues&)>;

struct OpSchema {
  std::string name;             // "add", "immut.select", "prim.loop"
  std::vector<ArgSpec> args;
  std::vector<ArgSpec> rets;    // names optional
  uint32_t flags = 0;
  std::string signature;        // the text it was parsed from
  size_t overloadIndex = 0;     // position among the op's overloads

  bool has(OpFlag f) const { return (flags & f) != 0; }
  bool isPure() const { return has(kPure); }
  bool isView() const { return has(kView); }
  bool isInPlace() const { return has(kInPlace); }
};

// The static type a schema argument or return declares: Tensor ->
// Type::tensor(), int[] -> List[int], Tensor[] -> List[Tensor], Scalar ->
// float, Any -> Tensor (a placeholder the op's rule refines).
TypePtr declaredType(const ArgSpec& spec);

// Whether a value of static type `t` may fill `spec` in an IR node: the
// call rules of resolve() below, where a plain int also fills an int[].
bool argAccepts(const ArgSpec& spec, const TypePtr& t);
// The first overload of `name` whose arguments the inputs fill exactly, in
// order (kVarArgs ops: at least their declared arguments); null if none.
// Used to read IR text back, where every node carries all its inputs.
const OpSchema* findOverloadForInputs(const std::string& name,
                                      const std::vector<TypePtr>& inputTypes);

// One argument as a call site supplies it: its static type, and the
// constant when it is one (for int-vs-int[] and None matching).
struct CallArg {
  TypePtr type;
  const Constant* constant = nullptr;
};

// The result of matching a call against a schema: for each schema argument,
// which supplied argument fills it, or the default constant.
struct Binding {
  const OpSchema* schema = nullptr;
  struct Slot {
    enum Source { Positional, Keyword, Default } source;
    size_t index = 0;            // into positional or keyword list
    Constant defaultValue;       // for Default
    bool wrapInList = false;     // a single int given for an int[] argument
  };
  std::vector<Slot> slots;
};

class OpRegistry {
 public:
  static OpRegistry& get();

  // Parses and adds one signature; flags as above. Returns the schema.
  const OpSchema& add(const std::string& signature, uint32_t flags);
  bool has(const std::string& name) const;
  const std::vector<const OpSchema*>& overloads(const std::string& name) const;
  // The op's only (or first) schema; InternalError if unknown.
  const OpSchema& schema(const std::string& name) const;
  std::vector<std::string> names() const;

  // Picks the first overload the call matches. On failure throws UserError
  // saying why (unknown op, wrong count, wrong type), listing the overloads.
  Binding resolve(const std::string& name, const std::vector<CallArg>& positional,
                  const std::vector<std::pair<std::string, CallArg>>& keywords) const;

  void setTypeRule(const std::string& name, TypeRule rule);
  const TypeRule* typeRule(const std::string& name) const;

 private:
  OpRegistry();
  struct Entry {
    std::vector<const OpSchema*> overloads;
    TypeRule rule;
  };
  std::vector<std::unique_ptr<OpSchema>> schemas_;
  std::map<std::string, Entry> ops_;
};

// Output types of a node from its type rule if one is registered, else from
// built-in rules for prim./list./scalar. ops, else from the schema's
// declared returns (Tensor -> Type::tensor(), ...).
std::vector<TypePtr> inferOutputTypes(const Node& node, const StaticValues& known);
std::vector<TypePtr> inferOutputTypes(const Node& node);  // with a plain StaticValues

// Registers every op of op_table.cpp; called once by OpRegistry::get().
void registerAllOps(OpRegistry& registry);
// Registers the shape/dtype rules (src/passes/shape_rules_*.cpp); called once
// by OpRegistry::get() after registerAllOps.
void registerAllTypeRules(OpRegistry& registry);

}  // namespace stitch
