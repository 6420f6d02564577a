"""The examples and the differential programs called through tensorstitch
on torch tensors and on numpy arrays, compared with PyTorch on fresh random
inputs: results, and the arguments afterwards (writes to them must match).
STITCH_PY_FAMILIES (comma-separated) limits the differential families."""
import atexit
import importlib.util
import os
import shutil
import sys
import tempfile

import numpy as np
import pytest
import torch

import tensorstitch as ts

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "differential"))
sys.path.insert(0, os.path.join(ROOT, "tests", "examples"))
import run_differential as diff  # noqa: E402
import check_examples as examples  # noqa: E402

# The programs are written to files because the package reads a function's
# source through inspect; the folder goes when the test process ends.
WORKDIR = tempfile.mkdtemp(prefix="tensorstitch-programs-")
atexit.register(shutil.rmtree, WORKDIR, ignore_errors=True)


def load(path, module_name):
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def differential_cases():
    wanted = os.environ.get("STITCH_PY_FAMILIES")
    families = wanted.split(",") if wanted else diff.discover_families()
    for family in families:
        for case in diff.load_cases(family):
            yield pytest.param(family, case, id="%s/%s" % (family, case["name"]))


def torch_copy(value):
    if isinstance(value, np.ndarray):
        return torch.from_numpy(value.copy())
    if isinstance(value, (list, tuple)):
        return type(value)(torch_copy(v) for v in value)
    return value


def numpy_copy(value):
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return [numpy_copy(v) for v in value]
    return value


def flat(value):
    """Results of either kind as run_differential flattens torch results."""
    return diff.flatten_result(torch_copy(value), [])


def kinds(value):
    """The structure of a result: sequences and leaf types. A list may stand
    for a tuple: results of chunk / split / unbind and shapes are lists (as
    under TorchScript) where eager PyTorch gives tuples (README)."""
    if isinstance(value, (list, tuple)):
        return ("sequence", [kinds(v) for v in value])
    return type(value).__name__


def same(expected, got, tol):
    expected, got = flat(expected), flat(got)
    diff.compare([np.asarray(e) for e in expected], [np.asarray(g) for g in got], tol)


def check_call(fn, inputs, tol, kind):
    """Calls PyTorch and the compiled function on separate copies of the
    inputs (torch tensors or numpy arrays) and compares results and inputs."""
    reference_args = [torch_copy(v) for v in inputs.values()]
    expected = fn(*reference_args)
    copy = torch_copy if kind == "torch" else numpy_copy
    args = [copy(v) for v in inputs.values()]
    compiled = ts.compile(fn)
    got = compiled(*args)
    if kind == "torch":
        assert kinds(got) == kinds(expected)
    same(expected, got, tol)
    for name, ref, arg in zip(inputs, reference_args, args):
        if isinstance(ref, (torch.Tensor, list)):
            same(ref, arg, tol)
    return compiled


@pytest.mark.parametrize("family,case", list(differential_cases()))
@pytest.mark.parametrize("kind", ["torch", "numpy"])
def test_differential_program(family, case, kind):
    rng = np.random.default_rng()
    inputs = {name: diff.make_input(spec, rng) for name, spec in case["inputs"].items()}
    path = os.path.join(WORKDIR, "%s_%s.py" % (family, case["name"]))
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(diff.PRELUDE + case["src"].strip("\n") + "\n")
    module = load(path, "prog_%s_%s_%s" % (family, case["name"], kind))
    check_call(getattr(module, case["fn"]), inputs, case.get("tol", diff.DEFAULT_TOL), kind)


@pytest.mark.parametrize("name", sorted(examples.EXAMPLES))
@pytest.mark.parametrize("kind", ["torch", "numpy"])
def test_example(name, kind):
    rng = np.random.default_rng()
    inputs = examples.EXAMPLES[name](rng)
    module = load(os.path.join(ROOT, "examples", name + ".py"), "example_%s_%s" % (name, kind))
    compiled = check_call(getattr(module, name), inputs, diff.DEFAULT_TOL, kind)
    assert compiled.stitch_stats()["kernel_calls"] > 0
