"""Inputs and roof counts of the workloads (see README.md).

The programs cannot carry these themselves: `stitch` reads a whole file and
refuses module-level assignments, and the programs must run unchanged.

WORKLOADS[name] (the program is NAME.py, its entry function NAME):
  inputs       {arg: spec}, the benchmark's shapes; spec as in
               tests/differential/run_differential.py: ("f32", shape[, lo, hi]),
               ("i64", shape, lo, hi), a Python scalar, or a list of specs for
               a List[Tensor] argument
  test_inputs  the same program at sizes the differential suite runs quickly
  counts       shapes {arg: shape or [shapes]} -> (flops, bytes) at those shapes

Counting: 2 flops per multiply-add of a contraction, 1 per element of every
other op (exp and tanh included, so the flop roof is optimistic for
transcendental-heavy programs); bytes: every input read once, every output
(and every input the program writes) written once, float32 throughout.
"""
import math

F32 = 4


def f32(shape, bound=1.0):
    return ("f32", shape, -bound, bound)


def init(fan_in):
    # PyTorch's default range for linear layers keeps activations O(1).
    return 1.0 / math.sqrt(fan_in)


def numel(shape):
    return math.prod(shape)


def all_bytes(shapes):
    """Bytes of every tensor argument (scalars take none)."""
    total = 0
    for v in shapes.values():
        if isinstance(v, list):
            total += sum(numel(s) for s in v) if v and isinstance(v[0], list) else numel(v)
    return F32 * total


def nasrnn_inputs(steps, hidden):
    w = init(hidden)
    return {"xs": f32([steps, 1, hidden]), "h": f32([1, hidden]), "c": f32([1, hidden]),
            "w_x": f32([8, hidden, hidden], w), "w_h": f32([8, hidden, hidden], w)}


def nasrnn_counts(s):
    steps, batch, hidden = s["xs"]
    gemv = 2 * batch * hidden * hidden
    elementwise = 31 * batch * hidden  # the cell's adds, products and activations
    return steps * (16 * gemv + elementwise), all_bytes(s) + 2 * F32 * batch * hidden


def lstm_inputs(steps, layers, batch, hidden):
    w = init(hidden)
    return {"xs": f32([steps, batch, hidden]),
            "w_ih": f32([layers, 4 * hidden, hidden], w), "w_hh": f32([layers, 4 * hidden, hidden], w),
            "b_ih": f32([layers, 4 * hidden], w), "b_hh": f32([layers, 4 * hidden], w),
            "h": f32([layers, batch, hidden]), "c": f32([layers, batch, hidden])}


def lstm_counts(s):
    steps, batch, hidden = s["xs"]
    layers = s["h"][0]
    gates = 2 * 2 * batch * 4 * hidden * hidden + 3 * batch * 4 * hidden
    cell = 9 * batch * hidden  # 3 sigmoid, 2 tanh, 3 products, 1 add
    written = F32 * (numel(s["h"]) + numel(s["c"]) + steps * batch * hidden)
    return steps * layers * (gates + cell), all_bytes(s) + written


def attention_inputs(steps, batch, heads, positions, dim, start):
    token = [steps, batch, heads, dim]
    cache = [batch, heads, positions, dim]
    return {"q": f32(token), "k": f32(token), "v": f32(token), "cache_k": f32(cache),
            "cache_v": f32(cache), "start": start}


def attention_counts(s):
    steps, batch, heads, dim = s["q"]
    start = s["start"]
    flops = 0
    for t in range(steps):
        keys = start + t + 1
        # q k^T and p v, the scale, and softmax's max, subtract, exp, sum, divide
        flops += batch * heads * (4 * keys * dim + 6 * keys)
    written = F32 * (numel(s["cache_k"]) + numel(s["cache_v"]) + numel(s["q"]))
    return flops, all_bytes(s) + written


def gqa_inputs(kv_heads, group, positions, dim):
    return {"q": f32([kv_heads, group, dim]), "k": f32([kv_heads, positions, dim]),
            "v": f32([kv_heads, positions, dim])}


def gqa_counts(s):
    kv_heads, group, dim = s["q"]
    positions = s["k"][1]
    scores = kv_heads * group * positions
    return scores * (4 * dim + 6), all_bytes(s) + F32 * numel(s["q"])


def yolo_inputs(ny, nx):
    field = [1, 3, ny, nx, 2]
    return {"x": f32([1, 3, ny, nx, 85], 4.0), "grid": ("f32", field, 0.0, float(nx)),
            "anchor_grid": ("f32", field, 10.0, 120.0), "stride": 8.0}


def yolo_counts(s):
    rows = numel(s["x"][:-1])
    per_row = 2 * 3 + 2 * 2 + (s["x"][-1] - 4)  # xy: sigmoid, add, mul; wh: exp, mul
    return rows * per_row, all_bytes(s) + F32 * numel(s["x"])


def greedy_inputs(vocab, hidden, max_steps):
    w = init(hidden)
    # Logits spread wider than the init range: no near-ties for the argmax,
    # whose order float rounding could flip.
    return {"emb": f32([vocab, hidden]), "w_h": f32([hidden, hidden], w),
            "w_out": f32([hidden, vocab], 4 * w), "h": f32([1, hidden]), "start": 1, "end": 2,
            "max_steps": max_steps}


def greedy_counts(s):
    vocab, hidden = s["emb"]
    # Every step counted: with run.py's default seed the decode never meets the end token.
    step = 2 * hidden * hidden + 2 * hidden * vocab + 2 * hidden + vocab
    # Only the embedding rows looked up are read.
    touched = F32 * (hidden * hidden + hidden * vocab + hidden + s["max_steps"] * hidden)
    return s["max_steps"] * step, touched


def box_inputs(sizes, classes):
    # sizes: locations per level (80 x 80, 40 x 40, 20 x 20 for a 640 x 640 image).
    return {"points": [("f32", [n, 2], 0.0, 640.0) for n in sizes],
            "regs": [("f32", [n, 4], -1.0, 3.0) for n in sizes],
            "cls": [("f32", [n, classes], -6.0, 2.0) for n in sizes],
            "ctr": [("f32", [n, 1], -3.0, 3.0) for n in sizes]}


def box_counts(s):
    locations = sum(p[0] for p in s["points"])
    classes = s["cls"][0][1]
    per_location = 12 + 1 + 3 * classes  # box: exp, mul, sub, add; scores: sigmoid, mul, sqrt
    return locations * per_location, all_bytes(s) + F32 * locations * (4 + classes)


def layernorm_inputs(tokens, model, hidden):
    return {"x": f32([tokens, model]), "gamma": f32([model]), "beta": f32([model]),
            "w": f32([model, hidden], init(model)), "b": f32([hidden], init(model))}


def layernorm_counts(s):
    tokens, model = s["x"]
    hidden = s["w"][1]
    flops = 8 * tokens * model + 2 * tokens * model * hidden + 2 * tokens * hidden
    return flops, all_bytes(s) + F32 * tokens * hidden


def swiglu_inputs(tokens, model, hidden):
    return {"x": f32([tokens, model]), "norm_w": f32([model]),
            "w_gate": f32([model, hidden], init(model)), "w_up": f32([model, hidden], init(model)),
            "w_down": f32([hidden, model], init(hidden))}


def swiglu_counts(s):
    tokens, model = s["x"]
    hidden = s["w_gate"][1]
    flops = 5 * tokens * model + 3 * 2 * tokens * model * hidden + 2 * tokens * hidden
    return flops, all_bytes(s) + F32 * tokens * model


def softmax_counts(s):
    return 5 * numel(s["x"]), 2 * all_bytes(s)


def normalize_inputs(height, width):
    return {"img": ("f32", [height, width, 3], 0.0, 255.0), "mean": ("f32", [3], 0.4, 0.5),
            "std": ("f32", [3], 0.2, 0.3)}


def normalize_counts(s):
    return 3 * numel(s["img"]), all_bytes(s) + F32 * numel(s["img"])


WORKLOADS = {
    "nasrnn": dict(inputs=nasrnn_inputs(50, 256), test_inputs=nasrnn_inputs(3, 16),
                   counts=nasrnn_counts),
    "lstm": dict(inputs=lstm_inputs(20, 3, 4, 64), test_inputs=lstm_inputs(3, 2, 2, 8),
                 counts=lstm_counts),
    "attention_decode": dict(inputs=attention_inputs(18, 2, 12, 50, 64, 32),
                             test_inputs=attention_inputs(3, 1, 2, 8, 4, 5),
                             counts=attention_counts),
    "gqa_decode": dict(inputs=gqa_inputs(8, 4, 4096, 64), test_inputs=gqa_inputs(2, 3, 16, 8),
                       counts=gqa_counts),
    "yolo_head": dict(inputs=yolo_inputs(40, 40), test_inputs=yolo_inputs(3, 4),
                      counts=yolo_counts),
    "greedy_decode": dict(inputs=greedy_inputs(1000, 128, 40), test_inputs=greedy_inputs(12, 8, 10),
                          counts=greedy_counts),
    "box_decode": dict(inputs=box_inputs([6400, 1600, 400], 80),
                       test_inputs=box_inputs([16, 4, 1], 3), counts=box_counts),
    "layernorm_gelu_mlp": dict(inputs=layernorm_inputs(512, 768, 768),
                               test_inputs=layernorm_inputs(6, 16, 24), counts=layernorm_counts),
    "rmsnorm_swiglu_mlp": dict(inputs=swiglu_inputs(16, 256, 512),
                               test_inputs=swiglu_inputs(4, 8, 12), counts=swiglu_counts),
    "softmax": dict(inputs={"x": f32([256, 4096])}, test_inputs={"x": f32([5, 37])},
                    counts=softmax_counts),
    "normalize": dict(inputs=normalize_inputs(800, 1333), test_inputs=normalize_inputs(6, 5),
                      counts=normalize_counts),
}


def shapes(inputs):
    """{arg: spec} -> {arg: shape, [shapes] or the scalar} for `counts`."""
    def one(spec):
        if isinstance(spec, list):
            return [one(s) for s in spec]
        return list(spec[1]) if isinstance(spec, tuple) else spec
    return {k: one(v) for k, v in inputs.items()}
