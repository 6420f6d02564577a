// Source (the TorchScript subset of Python) -> imperative Graph IR.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace stitch {

struct ParamDefault {
  std::optional<Constant> value;  // nullopt: the default is not a constant
  SourceLoc loc;
};

struct FunctionSignature {
  std::string name;
  std::vector<std::string> argNames;
  std::vector<TypePtr> argTypes;  // from the annotations
  std::vector<std::optional<ParamDefault>> defaults;  // per parameter, when it has one
  bool returnsTuple = false;  // annotated `-> Tuple[...]` (the graph has one output per element)
  SourceLoc loc;
};

// Parses a whole file. Throws UserError with a location on any syntax error
// or unsupported construct.
class SourceModule {
 public:
  static std::unique_ptr<SourceModule> parse(const std::string& source,
                                             const std::string& filename);
  virtual ~SourceModule() = default;
  // Functions in file order.
  virtual std::vector<FunctionSignature> functions() const = 0;
  // Emits the SSA graph of one function, calls to other functions of the
  // file inlined. fnName empty: the last function in the file. Graph input
  // and value types are shape-free (Type::tensor(), int, List[...]);
  // shape inference specializes them later. Throws UserError.
  virtual std::unique_ptr<Graph> emit(const std::string& fnName) const = 0;
};

}  // namespace stitch
