// The plain types of the public API: dtypes, tensors, values, stage names.
#include "api/error_translation.h"
#include "api/value_bridge.h"
#include "driver/pipeline.h"
#include "stitch/stitch.h"

namespace stitch::api {

const char* dtypeName(DType dtype) {
  switch (dtype) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::b8: return "bool";
  }
  return "?";
}

size_t dtypeSize(DType dtype) {
  switch (dtype) {
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::i32: return 4;
    case DType::i64: return 8;
    case DType::b8: return 1;
  }
  return 0;
}

namespace {

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= sizes[i] > 0 ? sizes[i] : 1;
  }
  return strides;
}

}  // namespace

// The runtime's own tensor, so the limits (a size no machine holds is a
// clean error, never an overflowed allocation), alignment and messages are
// the compiler's.
Tensor Tensor::empty(DType dtype, std::vector<int64_t> sizes) {
  return translated([&] { return toPublic(IValue(stitch::Tensor::empty(sizes, toInternal(dtype)))).tensor(); });
}

Tensor Tensor::typeOnly(DType dtype, std::vector<int64_t> sizes) {
  Tensor t;
  t.dtype = dtype;
  t.strides = rowMajorStrides(sizes);
  t.sizes = std::move(sizes);
  return t;
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

bool Tensor::contiguous() const {
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] != 1 && strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

Value Value::list(std::vector<Value> items) {
  Value v;
  v.v_ = std::make_shared<const Items>(Items{Kind::List, std::move(items)});
  return v;
}

Value Value::tuple(std::vector<Value> items) {
  Value v;
  v.v_ = std::make_shared<const Items>(Items{Kind::Tuple, std::move(items)});
  return v;
}

Value::Kind Value::kind() const {
  switch (v_.index()) {
    case 0: return Kind::None;
    case 1: return Kind::Bool;
    case 2: return Kind::Int;
    case 3: return Kind::Float;
    case 4: return Kind::Tensor;
    default: return std::get<std::shared_ptr<const Items>>(v_)->kind;
  }
}

bool Value::toBool() const {
  if (const bool* b = std::get_if<bool>(&v_)) return *b;
  throw CompileError("stitch: error: the value is not a bool");
}

int64_t Value::toInt() const {
  if (const int64_t* i = std::get_if<int64_t>(&v_)) return *i;
  if (const bool* b = std::get_if<bool>(&v_)) return *b;
  throw CompileError("stitch: error: the value is not an int");
}

double Value::toDouble() const {
  if (const double* d = std::get_if<double>(&v_)) return *d;
  if (const int64_t* i = std::get_if<int64_t>(&v_)) return (double)*i;
  if (const bool* b = std::get_if<bool>(&v_)) return *b;
  throw CompileError("stitch: error: the value is not a number");
}

const Tensor& Value::tensor() const {
  if (const Tensor* t = std::get_if<Tensor>(&v_)) return *t;
  throw CompileError("stitch: error: the value is not a tensor");
}

const std::vector<Value>& Value::items() const {
  if (const auto* items = std::get_if<std::shared_ptr<const Items>>(&v_)) return (*items)->values;
  throw CompileError("stitch: error: the value is not a list or a tuple");
}

const char* stageName(Stage stage) { return stitch::stageName(static_cast<stitch::Stage>(stage)); }

std::optional<Stage> stageFromName(std::string_view name) {
  std::optional<stitch::Stage> s = stitch::stageFromName(name);
  if (!s) return std::nullopt;
  return static_cast<Stage>(*s);
}

std::string stageNames() { return availableStageNames(); }

const char* deviceName(Device device) {
  switch (device) {
    case Device::Cpu: return "cpu";
    case Device::Cuda: return "cuda";
  }
  return "?";
}

std::optional<Device> deviceFromName(std::string_view name) {
  if (name == "cpu") return Device::Cpu;
  if (name == "cuda") return Device::Cuda;
  return std::nullopt;
}

const char* version() { return "0.1.0"; }

}  // namespace stitch::api
