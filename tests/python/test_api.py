"""tensorstitch from Python: compile, call, results, in-place writes,
signatures, errors, fallback, threads, dump, einsum."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
import torch

import tensorstitch as ts

import programs_for_tests as p

HERE = os.path.dirname(os.path.abspath(__file__))


def fresh(*shape):
    return torch.rand(*shape) * 2 - 1


def test_torch_in_torch_out_and_defaults():
    f = ts.compile(p.scale_shift)
    x = fresh(7, 5)
    y = f(x)
    assert isinstance(y, torch.Tensor) and y.dtype == torch.float32
    torch.testing.assert_close(y, x * 2.0 + 0.5)
    torch.testing.assert_close(f(x, shift=-1.0), x * 2.0 - 1.0)
    torch.testing.assert_close(f(x, 3.0, shift=0.0), x * 3.0)
    torch.testing.assert_close(f(scale=0.5, x=x), x * 0.5 + 0.5)


def test_numpy_in_numpy_out():
    f = ts.compile(p.scale_shift)
    a = np.random.default_rng().standard_normal((4, 6)).astype(np.float32)
    y = f(a, 1.5)
    assert isinstance(y, np.ndarray) and y.dtype == np.float32
    np.testing.assert_allclose(y, a * 1.5 + 0.5, rtol=1e-6)


def test_arguments_that_do_not_fit_raise_type_error_as_python_does():
    f = ts.compile(p.scale_shift)
    x = fresh(3)
    with pytest.raises(TypeError, match="^scale_shift\\(\\) got an unexpected keyword argument 'scael'$"):
        f(x, scael=1.0)
    with pytest.raises(TypeError, match="multiple values for argument 'scale'"):
        f(x, 1.0, scale=2.0)
    with pytest.raises(TypeError, match="missing required argument 'x'"):
        f()
    with pytest.raises(TypeError, match="takes 3 arguments but 4 were given"):
        f(x, 1.0, 2.0, 3.0)
    # The same call errors in plain Python: eager fallback does not hide them.
    g = ts.compile(p.scale_shift, fallback="eager")
    with pytest.raises(TypeError):
        g()


def test_arguments_of_the_wrong_type_raise_compile_error():
    f = ts.compile(p.scale_shift)
    with pytest.raises(ts.CompileError, match="must be Tensor"):
        f(1.0)


def test_writes_to_arguments_reach_the_caller():
    f = ts.compile(p.write_row)
    x = fresh(4, 3)
    expected = x.clone()
    expected[2] = 7.0
    sums = f(x, 2, 7.0)
    torch.testing.assert_close(x, expected)
    torch.testing.assert_close(sums, expected.sum(1))


def test_writes_through_a_strided_view_reach_the_base_storage():
    f = ts.compile(p.write_row)
    base = fresh(4, 8)
    view = base[:, ::2]
    assert not view.is_contiguous()
    expected = base.clone()
    expected[1, ::2] = -3.0
    f(view, 1, -3.0)
    torch.testing.assert_close(base, expected)
    n = base.numpy()
    expected_n = n.copy()
    expected_n[::-1][0, 1::2] = 5.0
    f(n[::-1, 1::2], 0, 5.0)  # a numpy view with a negative stride
    np.testing.assert_array_equal(n, expected_n)


def test_in_place_result_is_the_argument():
    f = ts.compile(p.add_in_place)
    x, y = fresh(5), fresh(5)
    before = x.clone()
    out = f(x, y)
    torch.testing.assert_close(x, before + y)
    assert out.data_ptr() == x.data_ptr()


def test_returned_argument_is_not_copied():
    f = ts.compile(p.identity)
    x = fresh(1000)
    assert f(x).data_ptr() == x.data_ptr()
    a = np.arange(10, dtype=np.float32)
    assert f(a).ctypes.data == a.ctypes.data


def test_results_are_not_copied_on_the_way_out():
    # A 256 MB result: a copy on the way to Python would raise the peak
    # resident memory by another 256 MB.
    code = (
        "import resource, sys, torch\n"
        "sys.path.insert(0, %r)\n"
        "import tensorstitch as ts, programs_for_tests as p\n"
        "f = ts.compile(p.large_double)\n"
        "x = torch.ones(64 * 1024 * 1024)\n"
        "f(torch.ones(4))\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "y = f(x)\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "assert float(y[12345]) == 2.0\n"
        "print((peak - base) / 1024.0)\n" % HERE)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    grown_mb = float(out.stdout.strip().splitlines()[-1])
    assert grown_mb < 256 * 1.5, "peak grew by %.0f MB for a 256 MB result" % grown_mb


def test_helpers_of_the_file_come_along():
    f = ts.compile(p.uses_helper)
    x = fresh(3, 3)
    torch.testing.assert_close(f(x), torch.tanh(x) * 0.5 + torch.tanh(x * 2.0) * 0.5)


def test_lists_tuples_and_scalars():
    f = ts.compile(p.list_sum)
    xs = [fresh(2, 3) for _ in range(3)]
    torch.testing.assert_close(f(xs, 0.5), sum(xs) * 0.5)
    g = ts.compile(p.two_results)
    x = fresh(4, 2)
    m, n = g(x, 21)
    torch.testing.assert_close(m, x.amax(0))
    assert n == 42 and isinstance(n, int)
    one = ts.compile(p.one_tuple)(x)
    assert isinstance(one, tuple) and len(one) == 1
    torch.testing.assert_close(one[0], x + 1.0)


def test_one_compilation_per_signature():
    f = ts.compile(p.scale_shift)
    f(fresh(8))
    f(fresh(8), 4.0)
    f(fresh(8).numpy())
    stats = f.stitch_stats()
    assert stats["compilations"] == 1 and stats["cache_hits"] == 2
    assert stats["kernel_calls"] >= 3
    f(fresh(9))
    f(fresh(8, 1))
    f(fresh(8).double())
    assert f.stitch_stats()["compilations"] == 4


def test_second_process_loads_from_the_disk_cache(tmp_path):
    code = (
        "import sys, torch\n"
        "sys.path.insert(0, %r)\n"
        "import tensorstitch as ts, programs_for_tests as p\n"
        "x = torch.ones(33, 17)\n"
        "f = ts.compile(p.uses_helper)\n"
        "print(float(f(x).sum()), f.stitch_stats()['code_from'])\n" % HERE)
    env = dict(os.environ, STITCH_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
            for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    first, second = (r.stdout.split(" ", 1) for r in runs)
    assert first[0] == second[0]
    assert first[1].strip() == "{'compiled': 1}" and second[1].strip() == "{'disk': 1}"


def test_compile_error_has_file_line_and_column():
    f = ts.compile(p.bad_program)
    with pytest.raises(ts.CompileError) as e:
        f(fresh(2))
    message = str(e.value)
    assert message.startswith(p.__file__ + ":"), message
    line = int(message.split(":")[1])
    with open(p.__file__) as src:
        assert "frobnicate" in src.read().splitlines()[line - 1]


def test_runtime_failures_raise_runtime_error():
    f = ts.compile(p.index_from_data)
    with pytest.raises(RuntimeError, match="out of range|index"):
        f(fresh(3, 2), torch.tensor([7]))


def test_eager_fallback_warns_once_and_runs_pytorch():
    f = ts.compile(p.unsupported_op, fallback="eager")
    x = fresh(8)
    with pytest.warns(RuntimeWarning, match="running unsupported_op"):
        y = f(x)
    torch.testing.assert_close(y, torch.fft.fft(x).real)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(x)
    assert f.stitch_stats()["eager"]
    with pytest.raises(ts.CompileError):
        ts.compile(p.unsupported_op)(x)


def test_decorators():
    x = fresh(4)
    torch.testing.assert_close(p.decorated(x), x * x)
    torch.testing.assert_close(p.decorated_with_options(x), x - 1.0)
    assert p.decorated.__name__ == "decorated"


def test_interp_mode_and_check():
    x = fresh(16, 4)
    torch.testing.assert_close(ts.compile(p.scale_shift, mode="interp")(x), x * 2.0 + 0.5)
    torch.testing.assert_close(ts.compile(p.uses_helper, check=True)(x), p.uses_helper(x))


def test_concurrent_calls_from_threads():
    f = ts.compile(p.scale_shift, threads=1)
    errors = []

    def work(seed):
        g = torch.Generator().manual_seed(seed)
        for _ in range(50):
            x = torch.rand(64, generator=g)
            if not torch.allclose(f(x, 3.0), x * 3.0 + 0.5):
                errors.append(seed)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert f.stitch_stats()["compilations"] == 1


def test_dump_every_stage():
    x = fresh(8, 9)
    assert ts.dump(p.scale_shift, x, stage="parsed").startswith("graph scale_shift(")
    assert "f32[8,9]" in ts.dump(p.scale_shift, x, stage="simplified")
    assert ts.dump(p.scale_shift, x).startswith("group g0")
    assert "void k0" in ts.dump(p.scale_shift, x, stage="code") or "k0" in ts.dump(p.scale_shift, x, stage="code")
    assert "== after emit (" in ts.dump(p.scale_shift, x, stage="all")
    with pytest.raises(ts.CompileError, match="unknown stage"):
        ts.dump(p.scale_shift, x, stage="nope")


def test_dump_shows_the_schedules_of_the_compiled_functions_threads():
    x = fresh(64, 1000)
    one = ts.dump(ts.compile(p.row_softmax, threads=1), x)
    two = ts.dump(ts.compile(p.row_softmax, threads=2), x)
    assert "sword=1," in one and one != two
    cores = os.cpu_count() or 1
    assert ts.dump(p.row_softmax, x) == ts.dump(ts.compile(p.row_softmax, threads=cores), x)


def test_einsum_matches_torch():
    a, b = fresh(3, 4, 5, 6), fresh(7, 4, 8, 5)
    torch.testing.assert_close(ts.einsum("acfd,bcef->abed", a, b), torch.einsum("acfd,bcef->abed", a, b),
                               rtol=1e-4, atol=1e-5)
    m, n = fresh(5, 6).numpy(), fresh(6, 8).numpy()
    y = ts.einsum("ab,bc->ac", m, n)
    assert isinstance(y, np.ndarray)
    np.testing.assert_allclose(y, m @ n, rtol=1e-4, atol=1e-5)
    with pytest.raises(ts.CompileError, match="dimension 'b'"):
        ts.einsum("ab,bc->ac", m, m)


def test_version_and_bad_options():
    assert ts.__version__
    with pytest.raises(ValueError):
        ts.compile(p.scale_shift, mode="fast")
    with pytest.raises(ValueError):
        ts.compile(p.scale_shift, threads=0)
    with pytest.raises(TypeError):
        ts.compile(lambda x: x)
