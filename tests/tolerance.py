"""The project's tolerance rule (interp/tolerance.h), for the Python suites:
a float element is close to the reference b when

    |a - b| <= atol + rtol * |b| + scale_ulps * eps * max |b|

(NaN matches NaN, inf the same inf), eps the dtype's machine epsilon, the
maximum over the reference's finite elements: float32 kernels round with
the magnitude of the terms they sum, not of the (possibly cancelled)
result."""
import numpy as np

RTOL = 1e-4
ATOL = 1e-5
SCALE_ULPS = 8


def close_mask(got, expected, rtol=RTOL, atol=ATOL, scale_ulps=SCALE_ULPS):
    """Per element: whether got is close to the reference `expected`."""
    got = np.asarray(got)
    expected = np.asarray(expected)
    finite = expected[np.isfinite(expected)]
    largest = float(np.max(np.abs(finite))) if finite.size else 0.0
    slack = scale_ulps * float(np.finfo(expected.dtype).eps) * largest
    g = got.astype(np.float64)
    e = expected.astype(np.float64)
    with np.errstate(invalid="ignore"):
        close = np.abs(g - e) <= atol + rtol * np.abs(e) + slack
    special = ~np.isfinite(e) | ~np.isfinite(g)
    same_special = (np.isnan(e) & np.isnan(g)) | (e == g)
    return np.where(special, same_special, close)
