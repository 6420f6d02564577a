// Every op TensorStitch knows, as TorchScript-like signatures. Names follow
// PyTorch so the source language maps 1:1; FuncTs' functional ops live under
// `immut.` and `tssa.`; control flow and containers under `prim.`, `list.`
// and Python scalar arithmetic under `scalar.`; ops the compiler forms from
// chains of user ops under `fused.`.
#include "ir/op_registry.h"

namespace stitch {

namespace {

constexpr uint32_t P = kPure;
constexpr uint32_t PX = kPure | kExpensive;
constexpr uint32_t V = kView;
constexpr uint32_t I = kInPlace;

const char* kUnaryFloatOps[] = {"exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh",
                                "sigmoid", "silu", "erf", "reciprocal", "log1p", "expm1",
                                "log2", "exp2", "tan", "asin", "acos", "atan", "sinh", "cosh"};
const char* kUnaryKeepTypeOps[] = {"neg", "abs", "relu", "floor", "ceil", "sign", "round",
                                   "trunc", "square"};
const char* kCompareOps[] = {"eq", "ne", "lt", "le", "gt", "ge"};
const char* kScalarBinary[] = {"add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                               "min", "max"};
const char* kScalarCompare[] = {"eq", "ne", "lt", "le", "gt", "ge"};

void addCreation(OpRegistry& r) {
  for (const char* n : {"zeros", "ones", "empty"})
    r.add(std::string(n) + "(int[] size, *, ScalarType? dtype=None) -> Tensor", P);
  r.add("full(int[] size, Scalar fill_value, *, ScalarType? dtype=None) -> Tensor", P);
  r.add("arange(Scalar end, *, ScalarType? dtype=None) -> Tensor", P);
  r.add("arange(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None) -> Tensor", P);
  for (const char* n : {"zeros_like", "ones_like", "empty_like"})
    r.add(std::string(n) + "(Tensor self, *, ScalarType? dtype=None) -> Tensor", P);
  r.add("full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None) -> Tensor", P);
  r.add("rand_like(Tensor self, *, ScalarType? dtype=None) -> Tensor", kExpensive);
  r.add("scalar_tensor(Scalar s, *, ScalarType? dtype=None) -> Tensor", P);
}

void addElementwise(OpRegistry& r) {
  for (const char* n : {"add", "sub"}) {
    r.add(std::string(n) + "(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", P);
    r.add(std::string(n) + "(Tensor self, Scalar other, *, Scalar alpha=1) -> Tensor", P);
  }
  // `2 - x`: other - alpha * self.
  r.add("rsub(Tensor self, Scalar other, *, Scalar alpha=1) -> Tensor", P);
  r.add("rsub(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", P);
  for (const char* n : {"mul", "div", "floor_divide", "remainder", "pow", "atan2"}) {
    r.add(std::string(n) + "(Tensor self, Tensor other) -> Tensor", P);
    r.add(std::string(n) + "(Tensor self, Scalar other) -> Tensor", P);
  }
  // Scalar first (`2 / x`, `2 ** x`) keeps PyTorch's rounding exactly.
  for (const char* n : {"rdiv", "rpow", "rfloor_divide", "rremainder"})
    r.add(std::string(n) + "(Tensor self, Scalar other) -> Tensor", P);
  for (const char* n : {"maximum", "minimum"})
    r.add(std::string(n) + "(Tensor self, Tensor other) -> Tensor", P);
  for (const char* n : kCompareOps) {
    r.add(std::string(n) + "(Tensor self, Tensor other) -> Tensor", P);
    r.add(std::string(n) + "(Tensor self, Scalar other) -> Tensor", P);
  }
  for (const char* n : {"logical_and", "logical_or", "logical_xor", "bitwise_and",
                        "bitwise_or", "bitwise_xor"})
    r.add(std::string(n) + "(Tensor self, Tensor other) -> Tensor", P);
  for (const char* n : {"bitwise_and", "bitwise_or", "bitwise_xor"})
    r.add(std::string(n) + "(Tensor self, Scalar other) -> Tensor", P);
  r.add("logical_not(Tensor self) -> Tensor", P);
  r.add("bitwise_not(Tensor self) -> Tensor", P);
  for (const char* n : kUnaryFloatOps) r.add(std::string(n) + "(Tensor self) -> Tensor", P);
  for (const char* n : kUnaryKeepTypeOps) r.add(std::string(n) + "(Tensor self) -> Tensor", P);
  r.add("gelu(Tensor self, *, str approximate=\"none\") -> Tensor", P);
  r.add("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", P);
  r.add("clamp(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", P);
  r.add("where(Tensor condition, Tensor self, Tensor other) -> Tensor", P);
  r.add("where(Tensor condition, Tensor self, Scalar other) -> Tensor", P);
  r.add("where(Tensor condition, Scalar self, Tensor other) -> Tensor", P);
  r.add("where(Tensor condition, Scalar self, Scalar other) -> Tensor", P);
  r.add("masked_fill(Tensor self, Tensor mask, Scalar value) -> Tensor", P);
  r.add("masked_fill(Tensor self, Tensor mask, Tensor value) -> Tensor", P);
  r.add("lerp(Tensor self, Tensor end, Scalar weight) -> Tensor", P);
  r.add("isnan(Tensor self) -> Tensor", P);
}

void addReductions(OpRegistry& r) {
  for (const char* n : {"sum", "mean"}) {
    r.add(std::string(n) + "(Tensor self, *, ScalarType? dtype=None) -> Tensor", P);
    r.add(std::string(n) +
              "(Tensor self, int[]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
          P);
  }
  r.add("prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", P);
  r.add("prod(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", P);
  for (const char* n : {"amax", "amin"})
    r.add(std::string(n) + "(Tensor self, int[] dim=[], bool keepdim=False) -> Tensor", P);
  for (const char* n : {"max", "min"}) {
    r.add(std::string(n) + "(Tensor self) -> Tensor", P);
    r.add(std::string(n) + "(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", P);
    r.add(std::string(n) + "(Tensor self, Tensor other) -> Tensor", P);
  }
  for (const char* n : {"argmax", "argmin"})
    r.add(std::string(n) + "(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", P);
  for (const char* n : {"var", "std"}) {
    r.add(std::string(n) + "(Tensor self, bool unbiased=True) -> Tensor", P);
    r.add(std::string(n) + "(Tensor self, int[]? dim, bool unbiased=True, bool keepdim=False) -> Tensor", P);
  }
  for (const char* n : {"softmax", "log_softmax"})
    r.add(std::string(n) + "(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", P);
  r.add("logsumexp(Tensor self, int[] dim, bool keepdim=False) -> Tensor", P);
  r.add("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", P);
  r.add("cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", P);
  r.add("all(Tensor self) -> Tensor", P);
  r.add("all(Tensor self, int dim, bool keepdim=False) -> Tensor", P);
  r.add("any(Tensor self) -> Tensor", P);
  r.add("any(Tensor self, int dim, bool keepdim=False) -> Tensor", P);
  r.add("norm(Tensor self, Scalar p=2) -> Tensor", P);
}

void addContractions(OpRegistry& r) {
  r.add("matmul(Tensor self, Tensor other) -> Tensor", PX);
  r.add("mm(Tensor self, Tensor mat2) -> Tensor", PX);
  r.add("bmm(Tensor self, Tensor mat2) -> Tensor", PX);
  r.add("einsum(str equation, Tensor[] tensors) -> Tensor", PX);
  r.add("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", PX);
  // softmax(q @ k^T * scale, -1) @ v (passes/attention_chains.h).
  r.add("fused.attention(Tensor q, Tensor k, Tensor v, float scale) -> Tensor", PX);
}

void addShapeAndViews(OpRegistry& r) {
  r.add("view(Tensor self, int[] size) -> Tensor", V);
  r.add("reshape(Tensor self, int[] shape) -> Tensor", V);  // view when possible
  r.add("view_as(Tensor self, Tensor other) -> Tensor", V);
  r.add("reshape_as(Tensor self, Tensor other) -> Tensor", V);
  r.add("permute(Tensor self, int[] dims) -> Tensor", V);
  r.add("transpose(Tensor self, int dim0, int dim1) -> Tensor", V);
  r.add("t(Tensor self) -> Tensor", V);
  r.add("unsqueeze(Tensor self, int dim) -> Tensor", V);
  r.add("squeeze(Tensor self) -> Tensor", V);
  r.add("squeeze(Tensor self, int dim) -> Tensor", V);
  r.add("expand(Tensor self, int[] size) -> Tensor", V);
  r.add("expand_as(Tensor self, Tensor other) -> Tensor", V);
  r.add("flatten(Tensor self, int start_dim=0, int end_dim=-1) -> Tensor", V);
  r.add("contiguous(Tensor self) -> Tensor", V);  // the same tensor when contiguous
  r.add("select(Tensor self, int dim, int index) -> Tensor", V);
  r.add("slice(Tensor self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor", V);
  r.add("narrow(Tensor self, int dim, int start, int length) -> Tensor", V);
  r.add("chunk(Tensor self, int chunks, int dim=0) -> Tensor[]", V);
  r.add("split(Tensor self, int split_size, int dim=0) -> Tensor[]", V);
  r.add("split(Tensor self, int[] split_size, int dim=0) -> Tensor[]", V);
  r.add("unbind(Tensor self, int dim=0) -> Tensor[]", V);
  r.add("movedim(Tensor self, int source, int destination) -> Tensor", V);
  // The value stored by `x[i] = v`: v without its leading size-1 dims
  // (PyTorch eager's setitem), so [1, 4] goes into a row of 4.
  r.add("prim.setitem_value(Tensor self) -> Tensor", V);
  r.add("size(Tensor self) -> int[]", P);
  r.add("size(Tensor self, int dim) -> int", P);
  r.add("dim(Tensor self) -> int", P);
  r.add("numel(Tensor self) -> int", P);
  // x.dtype when the dtype is not known while emitting.
  r.add("prim.dtype(Tensor self) -> ScalarType", P);
}

void addCopies(OpRegistry& r) {
  r.add("clone(Tensor self) -> Tensor", P);
  r.add("cat(Tensor[] tensors, int dim=0) -> Tensor", P);
  r.add("stack(Tensor[] tensors, int dim=0) -> Tensor", P);
  r.add("index_select(Tensor self, int dim, Tensor index) -> Tensor", P);
  r.add("gather(Tensor self, int dim, Tensor index) -> Tensor", P);
  r.add("to(Tensor self, ScalarType dtype) -> Tensor", P);
  r.add("repeat(Tensor self, int[] repeats) -> Tensor", P);
  r.add("flip(Tensor self, int[] dims) -> Tensor", P);
  r.add("tril(Tensor self, int diagonal=0) -> Tensor", P);
  r.add("triu(Tensor self, int diagonal=0) -> Tensor", P);
}

// Ops that pick elements by value or by an index tensor. `x[idx]`,
// `x[mask]` and `x[idx] = v` become index.get / index.put_ with the index
// tensor's dim (the emitter's spelling of aten::index / index_put_ for one
// index tensor).
void addSelection(OpRegistry& r) {
  r.add("sort(Tensor self, int dim=-1, bool descending=False, *, bool stable=False) -> (Tensor values, Tensor indices)", P);
  r.add("argsort(Tensor self, int dim=-1, bool descending=False, *, bool stable=False) -> Tensor", P);
  r.add("topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)", P);
  r.add("nonzero(Tensor self) -> Tensor", P);
  r.add("masked_select(Tensor self, Tensor mask) -> Tensor", P);
  r.add("index.get(Tensor self, int dim, Tensor index) -> Tensor", P);
  r.add("index.put(Tensor self, int dim, Tensor index, Tensor values, bool accumulate=False) -> Tensor", P);
  r.add("index.put_(Tensor self, int dim, Tensor index, Tensor values, bool accumulate=False) -> Tensor", I);
  for (const char* n : {"scatter", "scatter_add"}) {
    r.add(std::string(n) + "(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", P);
    r.add(std::string(n) + "_(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", I);
  }
  r.add("scatter(Tensor self, int dim, Tensor index, Scalar value) -> Tensor", P);
  r.add("scatter_(Tensor self, int dim, Tensor index, Scalar value) -> Tensor", I);
}

void addInPlace(OpRegistry& r) {
  r.add("copy_(Tensor self, Tensor src) -> Tensor", I);
  for (const char* n : {"add_", "sub_"}) {
    r.add(std::string(n) + "(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", I);
    r.add(std::string(n) + "(Tensor self, Scalar other, *, Scalar alpha=1) -> Tensor", I);
  }
  for (const char* n : {"mul_", "div_", "pow_", "floor_divide_", "remainder_", "bitwise_and_",
                        "bitwise_or_", "bitwise_xor_"}) {
    r.add(std::string(n) + "(Tensor self, Tensor other) -> Tensor", I);
    r.add(std::string(n) + "(Tensor self, Scalar other) -> Tensor", I);
  }
  r.add("clamp_(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", I);
  for (const char* n : {"relu_", "sigmoid_", "tanh_", "exp_", "neg_", "abs_", "sqrt_", "zero_"})
    r.add(std::string(n) + "(Tensor self) -> Tensor", I);
  r.add("fill_(Tensor self, Scalar value) -> Tensor", I);
  r.add("fill_(Tensor self, Tensor value) -> Tensor", I);
  r.add("masked_fill_(Tensor self, Tensor mask, Scalar value) -> Tensor", I);
  r.add("masked_fill_(Tensor self, Tensor mask, Tensor value) -> Tensor", I);
}

// FuncTs: Access ops are the immutable twins of views (they copy); Assign
// ops (`*_rev`) return a new base with the view region replaced by `src`.
void addFunctional(OpRegistry& r) {
  r.add("immut.select(Tensor self, int dim, int index) -> Tensor", P);
  r.add("immut.select_rev(Tensor self, Tensor src, int dim, int index) -> Tensor", P);
  r.add("immut.slice(Tensor self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor", P);
  r.add("immut.slice_rev(Tensor self, Tensor src, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor", P);
  r.add("immut.view(Tensor self, int[] size) -> Tensor", P);
  r.add("immut.view_rev(Tensor self, Tensor src, int[] size) -> Tensor", P);
  r.add("immut.permute(Tensor self, int[] dims) -> Tensor", P);
  r.add("immut.permute_rev(Tensor self, Tensor src, int[] dims) -> Tensor", P);
  r.add("immut.transpose(Tensor self, int dim0, int dim1) -> Tensor", P);
  r.add("immut.transpose_rev(Tensor self, Tensor src, int dim0, int dim1) -> Tensor", P);
  r.add("immut.unsqueeze(Tensor self, int dim) -> Tensor", P);
  r.add("immut.unsqueeze_rev(Tensor self, Tensor src, int dim) -> Tensor", P);
  r.add("immut.squeeze(Tensor self, int? dim=None) -> Tensor", P);
  r.add("immut.squeeze_rev(Tensor self, Tensor src, int? dim=None) -> Tensor", P);
  r.add("immut.expand(Tensor self, int[] size) -> Tensor", P);
  r.add("immut.expand_rev(Tensor self, Tensor src, int[] size) -> Tensor", P);
  r.add("immut.assign(Tensor self, Tensor src) -> Tensor", P);
  // prim.setitem_value's Access twin, for values whose shape is not static.
  r.add("immut.setitem_value(Tensor self) -> Tensor", P);
  r.add("tssa.update(Tensor new, Tensor old) -> ()", 0);
}

void addScalarAndContainers(OpRegistry& r) {
  r.add("prim.constant() -> Any", P);
  r.add("prim.param() -> ()", kControl | kVarRets);
  r.add("prim.return() -> ()", kControl | kVarArgs);
  r.add("prim.loop(int max_trip_count, bool cond) -> ()", kControl | kVarArgs | kVarRets);
  r.add("prim.if(bool cond) -> ()", kControl | kVarRets);
  r.add("prim.list_construct() -> Any[]", P | kVarArgs);
  r.add("prim.list_unpack(Any[] list) -> ()", P | kVarRets);
  r.add("prim.tuple_construct() -> Any", P | kVarArgs);
  r.add("prim.tuple_unpack(Any tuple) -> ()", P | kVarRets);
  r.add("prim.tuple_index(Any tuple, int index) -> Any", P);
  r.add("prim.raise(str message) -> ()", 0);
  // A placeholder whose type the emitter fixes (the return value carried
  // through a loop before any `return` inside it has run).
  r.add("prim.uninitialized() -> Any", P);
  r.add("list.get(Any[] list, int index) -> Any", P);
  r.add("list.set(Any[] list, int index, Any value) -> Any[]", P);  // a new list
  r.add("list.append(Any[] list, Any value) -> Any[]", P);          // a new list
  r.add("list.len(Any[] list) -> int", P);
  r.add("list.slice(Any[] list, int? start=None, int? end=None, int step=1) -> Any[]", P);
  r.add("list.add(Any[] a, Any[] b) -> Any[]", P);
  for (const char* n : kScalarBinary)
    r.add(std::string("scalar.") + n + "(Scalar a, Scalar b) -> Scalar", P);
  for (const char* n : kScalarCompare)
    r.add(std::string("scalar.") + n + "(Scalar a, Scalar b) -> bool", P);
  r.add("scalar.neg(Scalar a) -> Scalar", P);
  r.add("scalar.abs(Scalar a) -> Scalar", P);
  r.add("scalar.not(bool a) -> bool", P);
  r.add("scalar.and(bool a, bool b) -> bool", P);
  r.add("scalar.or(bool a, bool b) -> bool", P);
  r.add("scalar.to_int(Scalar a) -> int", P);
  r.add("scalar.to_float(Scalar a) -> float", P);
  r.add("scalar.to_bool(Scalar a) -> bool", P);
  r.add("scalar.is_none(Any a) -> bool", P);
  // Math on Python floats (math.sqrt, math.exp, ...).
  for (const char* n : {"sqrt", "exp", "log", "sin", "cos", "tanh"})
    r.add(std::string("scalar.") + n + "(Scalar a) -> float", P);
  r.add("scalar.floor(Scalar a) -> int", P);
  r.add("scalar.ceil(Scalar a) -> int", P);
  // Tensor -> Python scalar: int(t), float(t), bool(t), t.item().
  r.add("item.int(Tensor self) -> int", P);
  r.add("item.float(Tensor self) -> float", P);
  r.add("item.bool(Tensor self) -> bool", P);
}

}  // namespace

void registerAllOps(OpRegistry& r) {
  addCreation(r);
  addElementwise(r);
  addReductions(r);
  addContractions(r);
  addShapeAndViews(r);
  addCopies(r);
  addSelection(r);
  addInPlace(r);
  addFunctional(r);
  addScalarAndContainers(r);
}

}  // namespace stitch
