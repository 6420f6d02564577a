"""Whole programs of the kind the compiler targets (detection post-processing,
normalization, recurrent cells, attention), written as real code is: some
parameters unannotated (Tensor by default), two-space indentation, loops over
zipped lists of tensors and floats; and the benchmark's workloads
(bench/workloads), each at its small test size."""
import importlib.util
import os

from case_builders import case

WORKLOADS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                             "workloads")

CASES = [
    case("increment_rows_two_space_indent", """
def func(a: torch.Tensor, b: torch.Tensor, n: int):
  a = a.clone()
  b = b.clone()
  for i in range(n):
    b[i] = b[i] + 1
  return b
""", {"a": ("f32", [4, 3]), "b": ("f32", [5, 3]), "n": 3}, fn="func"),
    # The class scores first, a few box columns after them: the scores'
    # loop runs over a block's rows back to back and computes the box
    # columns too, which their own loops then write again.
    case("head_scores_then_box_columns_in_place", """
def f(p: torch.Tensor, anchors: torch.Tensor):
    y = p.clone()
    y[..., :40].sigmoid_()
    y[..., 40:42] = y[..., 40:42].exp() * anchors
    y[..., 42:] = torch.tanh(y[..., 42:])
    return y
""", {"p": ("f32", [2, 12, 12, 45]), "anchors": ("f32", [2, 12, 12, 2])}),
    case("multi_scale_bbox_decode", """
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


def forward(
    bboxes_list: List[torch.Tensor],
    pred_bboxes_list: List[torch.Tensor],
    stride_list: List[float],
):
    outs = []
    for bboxes, pred_bboxes, stride in zip(
        bboxes_list, pred_bboxes_list, stride_list
    ):
        out = decode_bboxes(bboxes, pred_bboxes, stride)
        outs.append(out)
    return outs


def f(b0: torch.Tensor, b1: torch.Tensor, b2: torch.Tensor, p0: torch.Tensor,
      p1: torch.Tensor, p2: torch.Tensor) -> List[torch.Tensor]:
    return forward([b0, b1, b2], [p0, p1, p2], [8.0, 16.0, 32.0])
""", {"b0": ("f32", [6, 4]), "b1": ("f32", [3, 4]), "b2": ("f32", [2, 4]),
      "p0": ("f32", [6, 4]), "p1": ("f32", [3, 4]), "p2": ("f32", [2, 4])}),
    case("box_iou_and_suppress", """
def iou(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    lt = torch.maximum(a[:, None, :2], b[None, :, :2])
    rb = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0.0)
    inter = wh[..., 0] * wh[..., 1]
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def f(xy: torch.Tensor, wh: torch.Tensor, scores: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    boxes = torch.cat([xy, xy + wh], 1)
    overlaps = iou(boxes, boxes)
    keep = torch.ones(boxes.shape[0], dtype=torch.bool)
    for i in range(boxes.shape[0]):
        if bool(keep[i]):
            worse = (overlaps[i] > 0.3) & (scores < scores[i])
            keep = keep & ~worse
    return overlaps, keep
""", {"xy": ("f32", [12, 2], 0.0, 4.0), "wh": ("f32", [12, 2], 0.5, 2.0),
      "scores": ("f32", [12], 0.0, 1.0)}),
    case("layer_norm_residual_blocks", """
def layer_norm(x: torch.Tensor, g: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    return (x - mu) * torch.rsqrt(var + 1e-5) * g + b


def f(x: torch.Tensor, w: torch.Tensor, g: torch.Tensor, b: torch.Tensor, n: int) -> torch.Tensor:
    h = x
    for i in range(n):
        y = torch.nn.functional.gelu(layer_norm(h, g, b) @ w[i])
        h = h + y
    return h
""", {"x": ("f32", [2, 5, 8]), "w": ("f32", [3, 8, 8]), "g": ("f32", [8]), "b": ("f32", [8]),
      "n": 3}),
    case("causal_attention_masked", """
def f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    t = q.shape[1]
    s = torch.einsum('bqd,bkd->bqk', [q, k]) / float(q.shape[-1]) ** 0.5
    mask = torch.ones(t, t).triu(1) > 0
    s = s.masked_fill(mask, -1e9)
    return torch.softmax(s, -1) @ v
""", {"q": ("f32", [2, 5, 4]), "k": ("f32", [2, 5, 4]), "v": ("f32", [2, 5, 3])}),
    case("gru_sequence_collect", """
def f(xs: torch.Tensor, wx: torch.Tensor, wh: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    h = torch.zeros(xs.shape[1], wh.shape[0])
    outs = []
    for x in xs.unbind(0):
        r, z, n = (x @ wx).chunk(3, -1)
        hr, hz, hn = (h @ wh).chunk(3, -1)
        r = torch.sigmoid(r + hr)
        z = torch.sigmoid(z + hz)
        n = torch.tanh(n + r * hn)
        h = (1.0 - z) * n + z * h
        outs.append(h)
    return torch.stack(outs), h
""", {"xs": ("f32", [4, 2, 3]), "wx": ("f32", [3, 15]), "wh": ("f32", [5, 15])}),
    case("histogram_by_loops", """
def f(v: torch.Tensor, bins: int) -> torch.Tensor:
    counts = torch.zeros(bins, dtype=torch.int64)
    idx = (v * bins).long().clamp(0, bins - 1)
    for i in range(v.shape[0]):
        b = int(idx[i])
        counts[b] += 1
    return counts
""", {"v": ("f32", [40], 0.0, 1.0), "bins": 6}),
    case("top_rows_data_dependent", """
def f(x: torch.Tensor, thresh: float) -> Tuple[torch.Tensor, int]:
    scores = x.amax(1)
    order: List[int] = []
    n = 0
    for i in range(x.shape[0]):
        if float(scores[i]) > thresh:
            order.append(i)
            n += 1
    out = torch.zeros(n, x.shape[1])
    for j in range(n):
        out[j] = x[order[j]]
    return out, n
""", {"x": ("f32", [10, 3]), "thresh": 0.5}),
    case("image_channel_ops", """
def f(img: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    x = img.permute(2, 0, 1).float() / 255.0
    x = (x - mean[:, None, None]) / std[:, None, None]
    x = x.flip(-1)
    x[:, :, :2] = 0.0
    return x.unsqueeze(0).contiguous()
""", {"img": ("i64", [6, 5, 3], 0, 256), "mean": ("f32", [3]), "std": ("f32", [3], 0.5, 1.5)}),
]


def bench_workload_cases():
    spec = importlib.util.spec_from_file_location(
        "workload_catalog", os.path.join(WORKLOADS_DIR, "catalog.py"))
    catalog = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(catalog)
    cases = []
    for name, workload in catalog.WORKLOADS.items():
        with open(os.path.join(WORKLOADS_DIR, name + ".py")) as f:
            cases.append(case("bench_" + name, f.read(), workload["test_inputs"], fn=name,
                              bench_inputs=workload["inputs"]))
    return cases


CASES += bench_workload_cases()
