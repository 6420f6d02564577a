// End to end on small models written in the source language: box decoding
// over a list of scales, softmax and layer norm through inlined calls.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "frontend/frontend.h"
#include "interp/interpreter.h"
#include "ir/verifier.h"

namespace stitch {
namespace {

std::mt19937_64& rng() {
  static std::mt19937_64 gen{std::random_device{}()};
  return gen;
}

int64_t randInt(int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng());
}

double randReal(double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng());
}

Tensor randomTensor(const Shape& shape) {
  Tensor t = Tensor::empty(shape, DType::f32);
  for (int64_t i = 0; i < t.numel(); ++i) t.setDouble(i, randReal(-1, 1));
  return t;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v((size_t)t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) v[(size_t)i] = t.getDouble(i);
  return v;
}

IValueList run(const std::string& src, const IValueList& inputs) {
  std::unique_ptr<Graph> g = SourceModule::parse(src, "model.py")->emit("");
  verifyGraph(*g);
  return interpret(*g, inputs);
}

void expectNear(const Tensor& t, const std::vector<double>& expected, double tol) {
  ASSERT_EQ(t.numel(), (int64_t)expected.size());
  for (int64_t i = 0; i < t.numel(); ++i)
    ASSERT_NEAR(t.getDouble(i), expected[(size_t)i], tol * (1 + std::fabs(expected[(size_t)i])))
        << "element " << i;
}

const char* kBoxDecoding = R"(import torch
from typing import List

def decode_bboxes(bboxes, pred_bboxes, stride: float):
    xy_centers = (bboxes[..., :2] + bboxes[..., 2:]) * 0.5 + (
        pred_bboxes[..., :2] - 0.5
    ) * stride
    whs = (bboxes[..., 2:] - bboxes[..., :2]) * 0.5 * pred_bboxes[..., 2:].exp()
    decoded_bboxes = torch.stack(
        (
            xy_centers[..., 0] - whs[..., 0],
            xy_centers[..., 1] - whs[..., 1],
            xy_centers[..., 0] + whs[..., 0],
            xy_centers[..., 1] + whs[..., 1],
        ),
        dim=-1,
    )
    return decoded_bboxes.clone()

def forward(bboxes_list: List[torch.Tensor], pred_bboxes_list: List[torch.Tensor],
            stride_list: List[float]):
    outs = []
    for bboxes, pred_bboxes, stride in zip(
        bboxes_list, pred_bboxes_list, stride_list
    ):
        out = decode_bboxes(bboxes, pred_bboxes, stride)
        outs.append(out)
    return outs
)";

TEST(FrontendModels, BoxDecodingOverThreeScales) {
  IValueList boxes, preds, strides;
  std::vector<std::vector<double>> expected;
  for (int scale = 0; scale < 3; ++scale) {
    int64_t n = randInt(1, 6);
    Tensor b = randomTensor({n, 4}), p = randomTensor({n, 4});
    double stride = (double)(8 << scale);
    boxes.push_back(b);
    preds.push_back(p);
    strides.push_back(stride);
    std::vector<double> bv = values(b), pv = values(p), out;
    for (int64_t i = 0; i < n; ++i) {
      const double* r = &bv[(size_t)(i * 4)];
      const double* q = &pv[(size_t)(i * 4)];
      double xy[2], wh[2];
      for (int k = 0; k < 2; ++k) {
        xy[k] = (r[k] + r[k + 2]) * 0.5 + (q[k] - 0.5) * stride;
        wh[k] = (r[k + 2] - r[k]) * 0.5 * std::exp(q[k + 2]);
      }
      out.insert(out.end(), {xy[0] - wh[0], xy[1] - wh[1], xy[0] + wh[0], xy[1] + wh[1]});
    }
    expected.push_back(out);
  }
  IValueList out =
      run(kBoxDecoding, {IValue::list(boxes), IValue::list(preds), IValue::list(strides)});
  const IValueList& decoded = out.at(0).toList();
  ASSERT_EQ(decoded.size(), 3u);
  for (size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(decoded[s].toTensor().sizes(), Shape({(int64_t)expected[s].size() / 4, 4}));
    expectNear(decoded[s].toTensor(), expected[s], 1e-4);
  }
}

const char* kNorms = R"(import torch
import math

def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    m = x.amax(dim, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim, keepdim=True)

def layernorm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    y = (x - mean) / torch.sqrt(var + eps)
    return y * w + b

def both(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor):
    s = softmax(x, dim=1)
    return s, layernorm(x, w, b) * math.sqrt(4.0)
)";

TEST(FrontendModels, SoftmaxAndLayerNormThroughInlinedCalls) {
  int64_t rows = randInt(1, 5), cols = randInt(2, 7);
  Tensor x = randomTensor({rows, cols}), w = randomTensor({cols}), b = randomTensor({cols});
  IValueList out = run(kNorms, {x, w, b});
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> xv = values(x), wv = values(w), bv = values(b), soft, norm;
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = &xv[(size_t)(r * cols)];
    double mx = *std::max_element(row, row + cols), sum = 0, mean = 0, var = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(row[c] - mx);
    for (int64_t c = 0; c < cols; ++c) soft.push_back(std::exp(row[c] - mx) / sum);
    for (int64_t c = 0; c < cols; ++c) mean += row[c] / (double)cols;
    for (int64_t c = 0; c < cols; ++c) var += (row[c] - mean) * (row[c] - mean) / (double)cols;
    for (int64_t c = 0; c < cols; ++c)
      norm.push_back(((row[c] - mean) / std::sqrt(var + 1e-5) * wv[(size_t)c] + bv[(size_t)c]) *
                     2.0);
  }
  expectNear(out[0].toTensor(), soft, 1e-5);
  expectNear(out[1].toTensor(), norm, 1e-4);
}

}  // namespace
}  // namespace stitch
