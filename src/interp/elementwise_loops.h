// Typed elementwise loops over operands already broadcast to the output's
// shape (stride 0 on broadcast dims). The common cases (every operand
// contiguous in the row, or one operand a broadcast scalar) get their own
// counted loops so the compiler vectorizes them.
#pragma once
#include "interp/strided_loop.h"

namespace stitch {

template <typename O, typename A, typename F>
void unaryLoop(const Tensor& out, const Tensor& a, F f) {
  O* po = elemPtr<O>(out, 0);
  const A* pa = elemPtr<const A>(a, 0);
  forEachRow<2>(out.sizes(), {&out.strides(), &a.strides()}, {out.offset(), a.offset()},
                [=](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
                  O* o = po + off[0];
                  const A* x = pa + off[1];
                  if (st[0] == 1 && st[1] == 1) {
                    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<O>(f(x[i]));
                    return;
                  }
                  for (int64_t i = 0; i < n; ++i) o[i * st[0]] = static_cast<O>(f(x[i * st[1]]));
                });
}

template <typename O, typename A, typename B, typename F>
void binaryLoop(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  O* po = elemPtr<O>(out, 0);
  const A* pa = elemPtr<const A>(a, 0);
  const B* pb = elemPtr<const B>(b, 0);
  forEachRow<3>(
      out.sizes(), {&out.strides(), &a.strides(), &b.strides()},
      {out.offset(), a.offset(), b.offset()},
      [=](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& st) {
        O* o = po + off[0];
        const A* x = pa + off[1];
        const B* y = pb + off[2];
        if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
          for (int64_t i = 0; i < n; ++i) o[i] = static_cast<O>(f(x[i], y[i]));
          return;
        }
        if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
          const B yv = y[0];
          for (int64_t i = 0; i < n; ++i) o[i] = static_cast<O>(f(x[i], yv));
          return;
        }
        if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
          const A xv = x[0];
          for (int64_t i = 0; i < n; ++i) o[i] = static_cast<O>(f(xv, y[i]));
          return;
        }
        for (int64_t i = 0; i < n; ++i)
          o[i * st[0]] = static_cast<O>(f(x[i * st[1]], y[i * st[2]]));
      });
}

template <typename O, typename A, typename B, typename C, typename F>
void ternaryLoop(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, F f) {
  O* po = elemPtr<O>(out, 0);
  const A* pa = elemPtr<const A>(a, 0);
  const B* pb = elemPtr<const B>(b, 0);
  const C* pc = elemPtr<const C>(c, 0);
  forEachRow<4>(
      out.sizes(), {&out.strides(), &a.strides(), &b.strides(), &c.strides()},
      {out.offset(), a.offset(), b.offset(), c.offset()},
      [=](const std::array<int64_t, 4>& off, int64_t n, const std::array<int64_t, 4>& st) {
        O* o = po + off[0];
        const A* x = pa + off[1];
        const B* y = pb + off[2];
        const C* z = pc + off[3];
        if (st[0] == 1 && st[1] == 1 && st[2] == 1 && st[3] == 1) {
          for (int64_t i = 0; i < n; ++i) o[i] = static_cast<O>(f(x[i], y[i], z[i]));
          return;
        }
        for (int64_t i = 0; i < n; ++i)
          o[i * st[0]] = static_cast<O>(f(x[i * st[1]], y[i * st[2]], z[i * st[3]]));
      });
}

}  // namespace stitch
