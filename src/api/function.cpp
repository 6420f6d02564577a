// Module and Function of the public API: loading source, binding
// arguments to parameters, one compiled program per argument signature.
#include <map>
#include <mutex>
#include <unordered_map>

#include "api/argument_types.h"
#include "api/error_translation.h"
#include "api/program.h"
#include "api/value_bridge.h"
#include "driver/pipeline.h"
#include "driver/program_loader.h"
#include "frontend/frontend.h"

namespace stitch::api {

struct Module::State {
  std::string source;
  std::string path;
  std::unique_ptr<SourceModule> module;
  std::vector<FunctionSignature> functions;
};

struct Function::State {
  std::shared_ptr<const Module::State> module;
  FunctionSignature signature;
  std::vector<Parameter> parameters;
  mutable std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const CompiledFunction>> programs;
  Stats stats;
};

namespace {

// The program cache's key: the arguments' signature and the options the
// program was compiled under (raw bytes: it is built on every call).
std::string programKey(const std::string& signature, const Options& o) {
  std::string key = signature;
  const char flags[] = {(char)o.mode, (char)o.stage, (char)o.check, (char)o.tune, (char)o.estimateWork, (char)o.device};
  key.append(flags, sizeof flags);
  key.append(reinterpret_cast<const char*>(&o.threads), sizeof o.threads);
  return key;
}

// The default's value in the parameter's type (a float parameter keeps a
// float even when its default is written `1`).
Value defaultValue(const FunctionSignature& fn, size_t i) {
  const ParamDefault& d = *fn.defaults[i];
  if (!d.value)
    throw UserError(errorMessage("the default of parameter '", fn.argNames[i],
                                 "' is not a constant; pass the argument"),
                    d.loc);
  const Constant& c = *d.value;
  TypeKind want = fn.argTypes[i]->kind();
  if (c.isNone()) return Value();
  if (c.isBool()) return Value(c.toBool());
  if (c.isInt()) return want == TypeKind::Float ? Value((double)c.toInt()) : Value(c.toInt());
  if (c.isFloat()) return Value(c.toDouble());
  if (c.isIntList()) {
    std::vector<Value> items;
    for (int64_t v : c.toIntList()) items.push_back(Value(v));
    return want == TypeKind::Tuple ? Value::tuple(std::move(items)) : Value::list(std::move(items));
  }
  throw UserError(errorMessage("the default of parameter '", fn.argNames[i], "' (", c.str(),
                               ") cannot be passed to a compiled function; pass the argument"),
                  d.loc);
}

api::ParameterType parameterType(const TypePtr& type) {
  api::ParameterType out;
  out.text = type->str();
  switch (type->kind()) {
    case TypeKind::Tensor: out.kind = api::ParameterType::Kind::Tensor; break;
    case TypeKind::Int: out.kind = api::ParameterType::Kind::Int; break;
    case TypeKind::Float: out.kind = api::ParameterType::Kind::Float; break;
    case TypeKind::Bool: out.kind = api::ParameterType::Kind::Bool; break;
    case TypeKind::None: out.kind = api::ParameterType::Kind::None; break;
    case TypeKind::Str: out.kind = api::ParameterType::Kind::Str; break;
    case TypeKind::DTypeT: out.kind = api::ParameterType::Kind::DType; break;
    case TypeKind::List: out.kind = api::ParameterType::Kind::List; break;
    case TypeKind::Tuple: out.kind = api::ParameterType::Kind::Tuple; break;
  }
  if (type->kind() == TypeKind::List || type->kind() == TypeKind::Tuple)
    for (const TypePtr& e : type->elems()) out.elements.push_back(parameterType(e));
  return out;
}

std::vector<std::optional<Value>> given(const std::vector<Value>& args) {
  return std::vector<std::optional<Value>>(args.begin(), args.end());
}

}  // namespace

Module Module::fromSource(const std::string& source, const std::string& path) {
  return translated([&] {
    auto state = std::make_shared<State>();
    state->source = source;
    state->path = path;
    state->module = SourceModule::parse(source, path);
    state->functions = state->module->functions();
    Module m;
    m.state_ = std::move(state);
    return m;
  });
}

Module Module::fromFile(const std::string& path) {
  return translated([&] { return fromSource(readSourceFile(path), path); });
}

std::vector<std::string> Module::functionNames() const {
  std::vector<std::string> names;
  for (const FunctionSignature& f : state_->functions) names.push_back(f.name);
  return names;
}

Function Module::function(const std::string& name) const {
  return translated([&] {
    const std::string& path = state_->path.empty() ? std::string("the source") : state_->path;
    if (state_->functions.empty()) throw UserError(errorMessage(path, " defines no function"));
    const FunctionSignature* found = &state_->functions.back();
    if (!name.empty()) {
      found = nullptr;
      std::string names;
      for (const FunctionSignature& f : state_->functions) {
        if (f.name == name) found = &f;
        names += (names.empty() ? "" : ", ") + f.name;
      }
      if (!found) throw UserError(errorMessage("no function '", name, "' in ", path, " (it defines ", names, ")"));
    }
    auto fn = std::make_shared<Function::State>();
    fn->module = state_;
    fn->signature = *found;
    for (size_t i = 0; i < found->argNames.size(); ++i)
      fn->parameters.push_back(
          Parameter{found->argNames[i], parameterType(found->argTypes[i]), found->defaults[i].has_value()});
    Function f;
    f.state_ = std::move(fn);
    return f;
  });
}

const std::string& Function::name() const { return state_->signature.name; }

const std::vector<Parameter>& Function::parameters() const { return state_->parameters; }

bool Function::returnsTuple() const { return state_->signature.returnsTuple; }

std::vector<Value> Function::bind(std::vector<Value> args, std::vector<std::pair<std::string, Value>> keywords) const {
  auto argumentError = [](const std::string& message) { return ArgumentError(UserError(message).formatted()); };
  return translated([&] {
    const FunctionSignature& fn = state_->signature;
    size_t count = fn.argNames.size();
    if (args.size() > count)
      throw argumentError(errorMessage(fn.name, "() takes ", count, " arguments but ", args.size(), " were given"));
    std::vector<std::optional<Value>> bound(count);
    for (size_t i = 0; i < args.size(); ++i) bound[i] = std::move(args[i]);
    for (auto& [name, value] : keywords) {
      size_t i = 0;
      while (i < count && fn.argNames[i] != name) ++i;
      if (i == count) throw argumentError(errorMessage(fn.name, "() got an unexpected keyword argument '", name, "'"));
      if (bound[i]) throw argumentError(errorMessage(fn.name, "() got multiple values for argument '", name, "'"));
      bound[i] = std::move(value);
    }
    std::vector<Value> out;
    out.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      if (!bound[i] && !fn.defaults[i])
        throw argumentError(errorMessage(fn.name, "() missing required argument '", fn.argNames[i], "'"));
      out.push_back(bound[i] ? std::move(*bound[i]) : defaultValue(fn, i));
    }
    return out;
  });
}

std::shared_ptr<const Program> Function::compile(const std::vector<Value>& args, const Options& options) const {
  return translated([&]() -> std::shared_ptr<const Program> {
    const FunctionSignature& fn = state_->signature;
    if (args.size() != fn.argNames.size())
      throw UserError(errorMessage(fn.name, "() takes ", fn.argNames.size(), " arguments but ", args.size(),
                                   " were given"));
    std::string signature = argumentSignature(args);
    std::string key = programKey(signature, options);
    std::lock_guard<std::mutex> lock(state_->mutex);
    auto it = state_->programs.find(key);
    if (it != state_->programs.end()) {
      ++state_->stats.cacheHits;
      return it->second;
    }
    CompileRequest request;
    request.module = state_->module->module.get();
    request.source = state_->module->source;
    request.function = fn.name;
    request.types = argumentTypes(fn, given(args));
    request.listInputs = listElementTypes(fn, given(args));
    request.options = options;
    request.signature = signature;
    IValueList values = options.tune ? toIValues(args) : IValueList{};
    auto program = std::make_shared<const CompiledFunction>(request, values);
    state_->programs.emplace(key, program);
    ++state_->stats.compilations;
    ++state_->stats.codeFrom[program->info().cache];
    return program;
  });
}

std::vector<Value> Function::call(std::vector<Value> args, std::vector<std::pair<std::string, Value>> keywords,
                                  const Options& options, RunInfo* info) const {
  std::vector<Value> bound = bind(std::move(args), std::move(keywords));
  std::shared_ptr<const Program> program = compile(bound, options);
  return static_cast<const CompiledFunction&>(*program).runChecked(bound, info);
}

std::string Function::dump(const std::vector<std::optional<Value>>& args, std::optional<Stage> stage,
                           Device device, int threads) const {
  return translated([&] {
    const FunctionSignature& fn = state_->signature;
    PassLogger logger = PassLogger::fromEnvironment(!stage.has_value());
    PipelineOptions pipeline;
    pipeline.last = stage ? static_cast<stitch::Stage>(*stage) : lastAvailableStage();
    pipeline.target = device == Device::Cuda ? RenderTarget::Cuda : RenderTarget::C;
    if (threads < 0) throw UserError(errorMessage("threads must be 0 (one per core) or more, not ", threads));
    pipeline.threads = threads;
    std::vector<TypePtr> types = argumentTypes(fn, args);
    pipeline.listInputs = listElementTypes(fn, args);
    PipelineResult result = runPipeline(*state_->module->module, fn.name, types, pipeline, logger);
    std::string text;
    if (stage) {
      text = stageText(result, static_cast<stitch::Stage>(*stage));
    } else {
      for (const PassRecord& record : logger.records()) text += PassLogger::format(record);
    }
    // The note is a comment of the text's own language: stage code stays
    // source a compiler takes.
    const char* comment = stage == Stage::Code ? "// " : "# ";
    if (!result.functionalFallback.empty())
      text += comment + std::string("functionalization refused this program; later stages keep it as written: ") +
              result.functionalFallback + "\n";
    return text;
  });
}

Function::Stats Function::stats() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->stats;
}

}  // namespace stitch::api
