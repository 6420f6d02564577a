"""TensorStitch: compile PyTorch functions (the TorchScript subset of Python)
into fused kernels and call them on torch tensors or numpy arrays.

    import torch
    import tensorstitch as ts

    @ts.jit
    def gelu_mlp(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x @ w)

    y = gelu_mlp(torch.randn(64, 128), torch.randn(128, 256))

Tensors pass without a copy, results come back as the kind of array that
came in, and writes a function makes into its arguments are seen by the
caller, as under PyTorch. A function compiles at its first call for the
argument types and again for each new signature of types (dtypes, shapes,
list lengths); the generated code is also cached on disk
($STITCH_CACHE_DIR, default ~/.cache/tensorstitch). No autograd: results do
not require grad.
"""

import functools
import threading
import warnings

from . import _source
from ._tensorstitch import CompileError, Function as _Function, __version__
from ._tensorstitch import einsum as _einsum

__all__ = ["compile", "jit", "dump", "einsum", "CompileError", "__version__"]

_MODES = ("compiled", "interp")
_FALLBACKS = ("error", "eager")


def _native(fn, threads, mode, check):
    path, text = _source.function_source(fn)
    return _Function(text, path, fn.__name__, threads or 0, mode, check)


class CompiledFunction:
    """A function compiled by TensorStitch; call it like the original."""

    def __init__(self, fn, threads=None, mode="compiled", check=False, fallback="error"):
        if mode not in _MODES:
            raise ValueError("mode must be one of %s, not %r" % (_MODES, mode))
        if fallback not in _FALLBACKS:
            raise ValueError("fallback must be one of %s, not %r" % (_FALLBACKS, fallback))
        if threads is not None and (not isinstance(threads, int) or threads < 1):
            raise ValueError("threads must be a positive int or None, not %r" % (threads,))
        _source.check_compilable(fn)
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._options = (threads, mode, check)
        self._fallback = fallback
        self._eager_reason = None
        self._lock = threading.Lock()
        self._call = None

    def _load(self):
        with self._lock:
            if self._call is None:
                self._function = _native(self._fn, *self._options)
                self._call = self._function.__call__
        return self._call

    def __call__(self, *args, **kwargs):
        if self._eager_reason is not None:
            return self._fn(*args, **kwargs)
        try:
            return (self._call or self._load())(*args, **kwargs)
        except (CompileError, OSError) as e:
            if self._fallback != "eager":
                raise
            self._eager_reason = str(e)
            warnings.warn("tensorstitch: running %s() as plain PyTorch: %s" % (self._fn.__name__, e),
                          RuntimeWarning, stacklevel=2)
            return self._fn(*args, **kwargs)

    def stitch_stats(self):
        """{'compilations', 'cache_hits', 'kernel_calls', 'code_from', 'eager'}:
        signatures compiled, calls served by a compiled program, kernel
        launches so far, where each compilation's machine code came from
        ({'compiled': n, 'disk': n, 'memory': n, 'none': n}), and why the
        function runs eagerly (None while it does not)."""
        stats = {"compilations": 0, "cache_hits": 0, "kernel_calls": 0, "code_from": {}}
        if self._call is not None:
            stats.update(self._function.stats())
        stats["eager"] = self._eager_reason
        return stats

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)


def compile(fn, *, threads=None, mode="compiled", check=False, fallback="error"):
    """Compiles `fn` (a module-level function in the TorchScript subset; the
    functions of its file that it calls come along).

    threads   OpenMP threads (None: one per core)
    mode      "compiled" (generated kernels) or "interp" (the reference
              interpreter, for debugging)
    check     also run every call through the reference interpreter and
              raise RuntimeError when the results differ
    fallback  "error": a program the compiler refuses raises CompileError;
              "eager": it runs as plain PyTorch, with one warning
    """
    return CompiledFunction(fn, threads=threads, mode=mode, check=check, fallback=fallback)


def jit(fn=None, **options):
    """Decorator form of compile: `@jit` or `@jit(threads=2, ...)`."""
    if fn is None:
        return lambda f: compile(f, **options)
    return compile(fn, **options)


def dump(fn, *args, stage="fused", **kwargs):
    """The compiler's IR of `fn` for these arguments after `stage` (parsed,
    functional, simplified, fused, ugraph, uops, code), or every pass's IR
    with stage="all". Compiles nothing. The schedules are those a call
    runs: for a compiled function's threads, else one thread per core."""
    threads = None
    if isinstance(fn, CompiledFunction):
        threads = fn._options[0]
        fn = fn._fn
    return _native(fn, threads, "compiled", False).dump(args, kwargs, stage)


def einsum(expression, *operands, threads=1):
    """Einsum on the tensor-operation backend (float32 operands, explicit
    output: "acfd,bcef->abed")."""
    return _einsum(expression, *operands, threads=threads)
