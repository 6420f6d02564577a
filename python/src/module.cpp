// The `tensorstitch._tensorstitch` extension: the public C++ API
// (stitch/stitch.h, stitch/tensorop.h) for Python. Arrays cross through
// DLPack without a copy (nanobind's ndarray): arguments are borrowed for a
// call (their Python objects kept alive by the tensors made of them), and
// results are handed to torch or numpy with an owner that keeps the
// runtime's buffer alive. The GIL is released while compiling and running.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>

#include "stitch/stitch.h"
#include "stitch/tensorop.h"
#include "torch_interop.h"

namespace nb = nanobind;
namespace api = stitch::api;
using namespace tensorstitch;

namespace {

// Which kind of array results come back as: that of the first array
// argument (torch in, torch out), torch when there is none and torch is
// loaded, else numpy.
enum class Framework { None, Torch, Numpy };

std::optional<api::DType> fromDlpack(nb::dlpack::dtype dt) {
  using Code = nb::dlpack::dtype_code;
  if (dt.lanes != 1) return std::nullopt;
  if (dt.code == (uint8_t)Code::Float && dt.bits == 32) return api::DType::f32;
  if (dt.code == (uint8_t)Code::Float && dt.bits == 64) return api::DType::f64;
  if (dt.code == (uint8_t)Code::Int && dt.bits == 32) return api::DType::i32;
  if (dt.code == (uint8_t)Code::Int && dt.bits == 64) return api::DType::i64;
  if (dt.code == (uint8_t)Code::Bool && dt.bits == 8) return api::DType::b8;
  return std::nullopt;
}

nb::dlpack::dtype toDlpack(api::DType dtype) {
  switch (dtype) {
    case api::DType::f32: return nb::dtype<float>();
    case api::DType::f64: return nb::dtype<double>();
    case api::DType::i32: return nb::dtype<int32_t>();
    case api::DType::i64: return nb::dtype<int64_t>();
    case api::DType::b8: return nb::dtype<bool>();
  }
  return nb::dtype<float>();
}

class ArgumentConverter {
 public:
  Framework framework = Framework::None;
  std::vector<std::shared_ptr<const void>> owners;  // dropped with the GIL held

  api::Value value(nb::handle obj) {
    if (obj.is_none()) return api::Value();
    if (PyBool_Check(obj.ptr())) return api::Value(obj.ptr() == Py_True);
    if (PyLong_Check(obj.ptr())) return api::Value((int64_t)nb::cast<int64_t>(obj));
    if (PyFloat_Check(obj.ptr())) return api::Value(PyFloat_AS_DOUBLE(obj.ptr()));
    if (PyList_Check(obj.ptr())) return api::Value::list(items(obj));
    if (PyTuple_Check(obj.ptr())) return api::Value::tuple(items(obj));
    return api::Value(tensor(obj));
  }

 private:
  std::vector<api::Value> items(nb::handle seq) {
    std::vector<api::Value> out;
    for (nb::handle item : seq) out.push_back(value(item));
    return out;
  }

  api::Tensor tensor(nb::handle obj) {
    if (isTorchTensor(obj)) {
      if (framework == Framework::None) framework = Framework::Torch;
      owners.emplace_back();
      return borrowTorchTensor(obj, owners.back());
    }
    nb::ndarray<> array;
    if (!nb::try_cast(obj, array)) {
      badArgument(std::string("cannot pass a value of type '") + Py_TYPE(obj.ptr())->tp_name +
                  "' (expected a tensor, an array, a Python scalar, a list or a tuple)");
    }
    if (array.device_type() != nb::device::cpu::value)
      badArgument("arrays on a GPU need the CUDA backend, which this build does not have; pass CPU arrays");
    std::optional<api::DType> dtype = fromDlpack(array.dtype());
    if (!dtype) badArgument("unsupported array dtype (supported: float32, float64, int32, int64, bool)");
    if (framework == Framework::None) framework = Framework::Numpy;
    api::Tensor t;
    t.data = array.data();
    t.dtype = *dtype;
    t.sizes.resize(array.ndim());
    t.strides.resize(array.ndim());
    for (size_t d = 0; d < array.ndim(); ++d) {
      t.sizes[d] = (int64_t)array.shape(d);
      t.strides[d] = array.stride(d);
    }
    t.owner = pythonOwner(nb::cast(array));
    owners.push_back(t.owner);
    return t;
  }
};

// Owns a result's buffer for the array handed to Python.
nb::capsule ownerCapsule(const std::shared_ptr<const void>& owner) {
  auto* held = new std::shared_ptr<const void>(owner);
  return nb::capsule(held, [](void* p) noexcept { delete static_cast<std::shared_ptr<const void>*>(p); });
}

nb::object toArray(const api::Tensor& t, Framework framework) {
  if (framework != Framework::Numpy) return toTorch(t);
  std::vector<size_t> shape(t.sizes.begin(), t.sizes.end());
  return nb::ndarray<nb::numpy>(t.data, shape.size(), shape.data(), ownerCapsule(t.owner), t.strides.data(),
                                toDlpack(t.dtype))
      .cast();
}

nb::object toPython(const api::Value& v, Framework framework) {
  switch (v.kind()) {
    case api::Value::Kind::None: return nb::none();
    case api::Value::Kind::Bool: return nb::bool_(v.toBool());
    case api::Value::Kind::Int: return nb::int_(v.toInt());
    case api::Value::Kind::Float: return nb::float_(v.toDouble());
    case api::Value::Kind::Tensor: return toArray(v.tensor(), framework);
    case api::Value::Kind::List: {
      nb::list out;
      for (const api::Value& e : v.items()) out.append(toPython(e, framework));
      return out;
    }
    case api::Value::Kind::Tuple: {
      nb::list out;
      for (const api::Value& e : v.items()) out.append(toPython(e, framework));
      return nb::tuple(out);
    }
  }
  return nb::none();
}

Framework defaultFramework(Framework seen) {
  if (seen != Framework::None) return seen;
  return torchModule().is_valid() ? Framework::Torch : Framework::Numpy;
}

api::Mode modeFromName(const std::string& mode) {
  if (mode == "compiled") return api::Mode::Compiled;
  if (mode == "interp") return api::Mode::Interp;
  badArgument("mode must be 'compiled' or 'interp', not '" + mode + "'");
}

api::Stage stageFromName(const std::string& stage) {
  std::optional<api::Stage> s = api::stageFromName(stage);
  if (!s) badArgument("unknown stage '" + stage + "' (stages: " + api::stageNames() + ")");
  return *s;
}

// One function of a module with the options it runs under, and the calls'
// kernel count.
class PyFunction {
 public:
  PyFunction(const std::string& source, const std::string& path, const std::string& name, int threads,
             const std::string& mode, bool check)
      : function_(api::Module::fromSource(source, path).function(name)) {
    if (threads < 0) badArgument("threads must be positive");
    options_.threads = threads;
    options_.mode = modeFromName(mode);
    options_.check = check;
  }

  nb::object call(nb::args args, nb::kwargs kwargs) {
    ArgumentConverter convert;
    std::vector<api::Value> positional;
    positional.reserve(args.size());
    for (nb::handle a : args) positional.push_back(convert.value(a));
    std::vector<std::pair<std::string, api::Value>> keywords;
    for (auto [key, value] : kwargs) keywords.emplace_back(nb::cast<std::string>(key), convert.value(value));
    std::vector<api::Value> results;
    api::RunInfo info;
    {
      nb::gil_scoped_release release;
      results = function_.call(std::move(positional), std::move(keywords), options_, &info);
    }
    kernelCalls_ += info.kernelCalls;
    if (info.check && !info.check->ok)
      throw api::RunError("stitch: error: check failed: " + info.check->mismatch + " (" + info.check->reference +
                          ")");
    Framework framework = defaultFramework(convert.framework);
    if (results.empty()) return nb::none();
    if (results.size() == 1 && !function_.returnsTuple()) return toPython(results[0], framework);
    nb::list out;
    for (const api::Value& v : results) out.append(toPython(v, framework));
    return nb::tuple(out);
  }

  std::string dump(nb::tuple args, nb::dict kwargs, std::optional<std::string> stage) {
    ArgumentConverter convert;
    std::vector<api::Value> positional;
    for (nb::handle a : args) positional.push_back(convert.value(a));
    std::vector<std::pair<std::string, api::Value>> keywords;
    for (auto [key, value] : kwargs) keywords.emplace_back(nb::cast<std::string>(key), convert.value(value));
    std::optional<api::Stage> at;
    if (stage && *stage != "all") at = stageFromName(*stage);
    std::vector<api::Value> bound = function_.bind(std::move(positional), std::move(keywords));
    std::vector<std::optional<api::Value>> given(bound.begin(), bound.end());
    nb::gil_scoped_release release;
    return function_.dump(given, at, api::Device::Cpu, options_.threads);
  }

  nb::dict stats() const {
    api::Function::Stats s = function_.stats();
    nb::dict d;
    d["compilations"] = s.compilations;
    d["cache_hits"] = s.cacheHits;
    d["kernel_calls"] = kernelCalls_.load();
    nb::dict from;
    for (const auto& [outcome, count] : s.codeFrom) from[outcome.c_str()] = count;
    d["code_from"] = from;
    return d;
  }

  std::vector<std::pair<std::string, bool>> parameters() const {
    std::vector<std::pair<std::string, bool>> out;
    for (const api::Parameter& p : function_.parameters()) out.emplace_back(p.name, p.hasDefault);
    return out;
  }

 private:
  api::Function function_;
  api::Options options_;
  std::atomic<int64_t> kernelCalls_{0};
};

// Einsum on the tensor-operation backend, one compiled tree per
// expression, operand shapes and thread count.
class EinsumCache {
 public:
  nb::object run(const std::string& expression, nb::args operands, int threads) {
    ArgumentConverter convert;
    std::vector<api::Tensor> tensors;
    for (nb::handle o : operands) {
      api::Value v = convert.value(o);
      if (v.kind() != api::Value::Kind::Tensor) badArgument("einsum takes tensors");
      if (v.tensor().dtype != api::DType::f32) badArgument("einsum runs on float32 tensors");
      tensors.push_back(v.tensor());
    }
    std::map<std::string, int64_t> sizes = dimensionSizes(expression, tensors);
    std::vector<std::vector<float>> dense(tensors.size());
    std::vector<const float*> inputs;
    for (size_t i = 0; i < tensors.size(); ++i) inputs.push_back(denseData(tensors[i], dense[i]));
    api::Tensor out;
    {
      nb::gil_scoped_release release;
      const stitch::tensorop::EinsumTree& tree = treeFor(expression, sizes, threads);
      out = api::Tensor::empty(api::DType::f32, tree.outputShape());
      tree.execute(inputs, static_cast<float*>(out.data));
    }
    return toArray(out, defaultFramework(convert.framework));
  }

 private:
  // Letters of each operand (standard notation) bound to its sizes.
  static std::map<std::string, int64_t> dimensionSizes(const std::string& expression,
                                                      const std::vector<api::Tensor>& tensors) {
    size_t arrow = expression.find("->");
    if (arrow == std::string::npos) badArgument("einsum needs an explicit output ('ab,bc->ac')");
    std::vector<std::string> terms(1);
    for (char c : expression.substr(0, arrow)) {
      if (c == ',') terms.emplace_back();
      else if (c != ' ') terms.back().push_back(c);
    }
    if (terms.size() != tensors.size())
      badArgument("einsum expression has " + std::to_string(terms.size()) + " operands but " +
                  std::to_string(tensors.size()) + " tensors were given");
    std::map<std::string, int64_t> sizes;
    for (size_t i = 0; i < terms.size(); ++i) {
      if (terms[i].size() != tensors[i].sizes.size())
        badArgument("einsum operand " + std::to_string(i) + " has " + std::to_string(tensors[i].sizes.size()) +
                    " dims but its term '" + terms[i] + "' names " + std::to_string(terms[i].size()));
      for (size_t d = 0; d < terms[i].size(); ++d) {
        std::string letter(1, terms[i][d]);
        auto [it, fresh] = sizes.emplace(letter, tensors[i].sizes[d]);
        if (!fresh && it->second != tensors[i].sizes[d])
          badArgument("einsum dimension '" + letter + "' has sizes " + std::to_string(it->second) + " and " +
                      std::to_string(tensors[i].sizes[d]));
      }
    }
    return sizes;
  }

  static const float* denseData(const api::Tensor& t, std::vector<float>& copy) {
    if (t.contiguous()) return static_cast<const float*>(t.data);
    copy.resize((size_t)t.numel());
    std::vector<int64_t> index(t.sizes.size(), 0);
    for (size_t n = 0; n < copy.size(); ++n) {
      int64_t off = 0;
      for (size_t d = 0; d < index.size(); ++d) off += index[d] * t.strides[d];
      copy[n] = static_cast<const float*>(t.data)[off];
      for (size_t d = index.size(); d-- > 0;) {
        if (++index[d] < t.sizes[d]) break;
        index[d] = 0;
      }
    }
    return copy.data();
  }

  const stitch::tensorop::EinsumTree& treeFor(const std::string& expression, const std::map<std::string, int64_t>& sizes,
                                              int threads) {
    std::string key = expression + "|" + std::to_string(threads);
    for (const auto& [letter, size] : sizes) key += "|" + letter + "=" + std::to_string(size);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = trees_.find(key);
    if (it == trees_.end())
      it = trees_.emplace(key, std::make_unique<stitch::tensorop::EinsumTree>(expression, sizes, threads)).first;
    return *it->second;
  }

  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<stitch::tensorop::EinsumTree>> trees_;
};

}  // namespace

NB_MODULE(_tensorstitch, m) {
  m.doc() = "TensorStitch's compiler and runtime (use the tensorstitch package).";
  static nb::exception<api::CompileError> compileError(m, "CompileError");
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const api::ArgumentError& e) {
      // Arguments that do not fit the signature: Python's own error, with
      // its own wording (no "stitch: error: " prefix).
      std::string what = e.what();
      const std::string prefix = "stitch: error: ";
      if (what.rfind(prefix, 0) == 0) what = what.substr(prefix.size());
      PyErr_SetString(PyExc_TypeError, what.c_str());
    } catch (const api::RunError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const api::InternalError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const stitch::tensorop::Error& e) {
      PyErr_SetString(compileError.ptr(), (std::string("stitch: error: ") + e.what()).c_str());
    }
  });

  nb::class_<PyFunction>(m, "Function")
      .def(nb::init<const std::string&, const std::string&, const std::string&, int, const std::string&, bool>(),
           nb::arg("source"), nb::arg("path"), nb::arg("name"), nb::arg("threads") = 0,
           nb::arg("mode") = "compiled", nb::arg("check") = false)
      .def("__call__", &PyFunction::call)
      .def("dump", &PyFunction::dump, nb::arg("args"), nb::arg("kwargs"), nb::arg("stage").none())
      .def("stats", &PyFunction::stats)
      .def("parameters", &PyFunction::parameters);

  static EinsumCache einsumCache;
  m.def(
      "einsum", [](const std::string& expression, nb::args operands, int threads) {
        return einsumCache.run(expression, operands, threads);
      },
      nb::arg("expression"), nb::arg("operands"), nb::kw_only(), nb::arg("threads") = 1);
  m.attr("__version__") = api::version();
}
