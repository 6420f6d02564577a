// Kernels of the view ops (real aliasing views), the size queries, and
// FuncTs' immut.* ops: an Access op copies the region its view covers; an
// Assign op (`*_rev`) returns a copy of the base with that region replaced.
#include <optional>

#include "interp/kernel_registry.h"
#include "interp/view_ops.h"
#include "ir/view_shape.h"
#include "ir/shape_util.h"

namespace stitch {

namespace {

std::optional<int64_t> optionalInt(const IValue& v) {
  if (v.isNone()) return std::nullopt;
  return v.toInt();
}

IValue tensorList(const std::vector<Tensor>& ts) {
  IValueList elems(ts.begin(), ts.end());
  return IValue::list(std::move(elems));
}

// A view op applied to `self` with its non-tensor arguments at args[first...]
// (the schema order of both the view op and its immut. twin).
using ViewFn = Tensor (*)(const Tensor& self, const IValueList& args, size_t first);

Tensor selectFn(const Tensor& s, const IValueList& a, size_t i) {
  return views::select(s, a[i].toInt(), a[i + 1].toInt());
}
Tensor sliceFn(const Tensor& s, const IValueList& a, size_t i) {
  return views::slice(s, a[i].toInt(), optionalInt(a[i + 1]), optionalInt(a[i + 2]),
                      a[i + 3].toInt());
}
Tensor viewFn(const Tensor& s, const IValueList& a, size_t i) {
  return views::view(s, a[i].toIntList());
}
Tensor permuteFn(const Tensor& s, const IValueList& a, size_t i) {
  return views::permute(s, a[i].toIntList());
}
Tensor transposeFn(const Tensor& s, const IValueList& a, size_t i) {
  return views::transpose(s, a[i].toInt(), a[i + 1].toInt());
}
Tensor unsqueezeFn(const Tensor& s, const IValueList& a, size_t i) {
  return views::unsqueeze(s, a[i].toInt());
}
Tensor squeezeFn(const Tensor& s, const IValueList& a, size_t i) {
  if (a.size() <= i || a[i].isNone()) return views::squeeze(s);
  return views::squeeze(s, a[i].toInt());
}
Tensor expandFn(const Tensor& s, const IValueList& a, size_t i) {
  return views::expand(s, a[i].toIntList());
}

struct FunctionalView {
  const char* name;
  ViewFn fn;
};

const FunctionalView kFunctionalViews[] = {
    {"select", selectFn},       {"slice", sliceFn},         {"view", viewFn},
    {"permute", permuteFn},     {"transpose", transposeFn}, {"unsqueeze", unsqueezeFn},
    {"squeeze", squeezeFn},     {"expand", expandFn},
};

Kernel viewKernel(ViewFn fn) {
  return [fn](const Node&, const IValueList& args) -> IValueList {
    return {fn(args[0].toTensor(), args, 1)};
  };
}

// immut.X: the region X would view, as a new tensor.
Kernel accessKernel(ViewFn fn) {
  return [fn](const Node&, const IValueList& args) -> IValueList {
    const Tensor& self = args[0].toTensor();
    // A view of a contiguous copy always exists, whatever self's strides.
    if (fn == viewFn) return {fn(self.clone(), args, 1)};
    return {fn(self, args, 1).clone()};
  };
}

// immut.X_rev(self, src, ...): self with the region X(self, ...) replaced by src.
Kernel assignKernel(ViewFn fn) {
  return [fn](const Node&, const IValueList& args) -> IValueList {
    Tensor out = args[0].toTensor().clone();
    fn(out, args, 2).copyFrom(args[1].toTensor());
    return {out};
  };
}

IValueList immutAssign(const Node&, const IValueList& args) {
  const Tensor& self = args[0].toTensor();
  Tensor out = Tensor::empty(self.sizes(), self.dtype());
  out.copyFrom(args[1].toTensor());
  return {out};
}

Tensor setitemValue(const Tensor& t) {
  size_t dropped = *setitemDroppedDims(t.sizes());
  return views::view(t, Shape(t.sizes().begin() + (long)dropped, t.sizes().end()));
}

IValueList sizeKernel(const Node&, const IValueList& args) {
  const Tensor& self = args[0].toTensor();
  if (args.size() == 1) {
    IValueList dims;
    for (int64_t s : self.sizes()) dims.push_back(IValue(s));
    return {IValue::list(std::move(dims))};
  }
  if (self.dim() == 0) throw UserError("Dimension specified as 0 but tensor has no dimensions");
  return {IValue(self.size(normalizeDim(args[1].toInt(), self.dim())))};
}

void registerPlainViews(KernelRegistry& r) {
  for (const FunctionalView& v : kFunctionalViews) r.add(v.name, viewKernel(v.fn));
  r.add("reshape", [](const Node&, const IValueList& a) -> IValueList {
    return {views::reshape(a[0].toTensor(), a[1].toIntList())};
  });
  r.add("view_as", [](const Node&, const IValueList& a) -> IValueList {
    return {views::view(a[0].toTensor(), a[1].toTensor().sizes())};
  });
  r.add("reshape_as", [](const Node&, const IValueList& a) -> IValueList {
    return {views::reshape(a[0].toTensor(), a[1].toTensor().sizes())};
  });
  r.add("expand_as", [](const Node&, const IValueList& a) -> IValueList {
    return {views::expand(a[0].toTensor(), a[1].toTensor().sizes())};
  });
  r.add("t", [](const Node&, const IValueList& a) -> IValueList {
    return {views::t(a[0].toTensor())};
  });
  r.add("prim.setitem_value", [](const Node&, const IValueList& a) -> IValueList {
    return {setitemValue(a[0].toTensor())};
  });
  r.add("immut.setitem_value", [](const Node&, const IValueList& a) -> IValueList {
    return {setitemValue(a[0].toTensor()).clone()};
  });
  r.add("flatten", [](const Node&, const IValueList& a) -> IValueList {
    return {views::flatten(a[0].toTensor(), a[1].toInt(), a[2].toInt())};
  });
  r.add("contiguous", [](const Node&, const IValueList& a) -> IValueList {
    return {views::contiguous(a[0].toTensor())};
  });
  r.add("narrow", [](const Node&, const IValueList& a) -> IValueList {
    return {views::narrow(a[0].toTensor(), a[1].toInt(), a[2].toInt(), a[3].toInt())};
  });
  r.add("movedim", [](const Node&, const IValueList& a) -> IValueList {
    return {views::movedim(a[0].toTensor(), a[1].toInt(), a[2].toInt())};
  });
}

void registerListViews(KernelRegistry& r) {
  r.add("chunk", [](const Node&, const IValueList& a) -> IValueList {
    return {tensorList(views::chunk(a[0].toTensor(), a[1].toInt(), a[2].toInt()))};
  });
  r.add("split", [](const Node&, const IValueList& a) -> IValueList {
    const Tensor& self = a[0].toTensor();
    if (a[1].isList()) return {tensorList(views::splitWithSizes(self, a[1].toIntList(), a[2].toInt()))};
    return {tensorList(views::split(self, a[1].toInt(), a[2].toInt()))};
  });
  r.add("unbind", [](const Node&, const IValueList& a) -> IValueList {
    return {tensorList(views::unbind(a[0].toTensor(), a[1].toInt()))};
  });
}

void registerQueries(KernelRegistry& r) {
  r.add("size", sizeKernel);
  r.add("dim", [](const Node&, const IValueList& a) -> IValueList {
    return {IValue(a[0].toTensor().dim())};
  });
  r.add("numel", [](const Node&, const IValueList& a) -> IValueList {
    return {IValue(a[0].toTensor().numel())};
  });
}

void registerFunctionalViews(KernelRegistry& r) {
  for (const FunctionalView& v : kFunctionalViews) {
    std::string name = std::string("immut.") + v.name;
    r.add(name, accessKernel(v.fn));
    r.add(name + "_rev", assignKernel(v.fn));
  }
  r.add("immut.assign", immutAssign);
}

}  // namespace

void registerViewKernels(KernelRegistry& r) {
  registerPlainViews(r);
  registerListViews(r);
  registerQueries(r);
  registerFunctionalViews(r);
}

}  // namespace stitch
