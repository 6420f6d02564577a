// SourceModule: the parsed file, and graph emission for one of its functions.
#include "frontend/emitter.h"
#include "frontend/frontend.h"
#include "frontend/parser.h"

namespace stitch {

namespace {

// A return annotation the emitter would refuse says nothing here; emitting
// the function reports it.
bool returnsTuple(const Expr& annotation) {
  try {
    return annotationType(annotation)->kind() == TypeKind::Tuple;
  } catch (const UserError&) {
    return false;
  }
}

class ParsedModule : public SourceModule {
 public:
  explicit ParsedModule(Module module) : module_(std::move(module)) {}

  std::vector<FunctionSignature> functions() const override {
    std::vector<FunctionSignature> out;
    for (const auto& fn : module_.functions) {
      FunctionSignature sig;
      sig.name = fn->name;
      sig.loc = fn->loc;
      for (const Param& p : fn->params) {
        sig.argNames.push_back(p.name);
        bool optional = false;
        sig.argTypes.push_back(p.annotation ? annotationType(*p.annotation, &optional)
                                            : Type::tensor());
        sig.defaults.push_back(std::nullopt);
        if (p.defaultValue)
          sig.defaults.back() = ParamDefault{Emitter(module_).constantValue(*p.defaultValue), p.defaultValue->loc};
      }
      if (fn->returns) sig.returnsTuple = returnsTuple(*fn->returns);
      out.push_back(std::move(sig));
    }
    return out;
  }

  std::unique_ptr<Graph> emit(const std::string& fnName) const override {
    if (module_.functions.empty())
      throw UserError("no function definitions in " +
                      (module_.filename.empty() ? std::string("the source") : module_.filename));
    const FunctionDef* fn = module_.functions.back().get();
    if (!fnName.empty()) {
      fn = nullptr;
      for (const auto& f : module_.functions)
        if (f->name == fnName) fn = f.get();
      if (!fn) throw UserError("no function named '" + fnName + "' in " + module_.filename);
    }
    Emitter emitter(module_);
    return emitter.emitEntry(*fn);
  }

 private:
  Module module_;
};

}  // namespace

std::unique_ptr<SourceModule> SourceModule::parse(const std::string& source,
                                                  const std::string& filename) {
  return std::make_unique<ParsedModule>(parseModule(source, filename));
}

}  // namespace stitch
