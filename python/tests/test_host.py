"""xfabric.host: the C++ library's generator and the C library's float functions, which
examples/train.py needs to draw and round as fabric train does.

Space covered: std::mt19937_64's 10000th value for the default seed (fixed by the C++
standard), shuffle as a permutation that the seed fixes, normal draws' moments and repeatability,
expf/logf within one ulp of the double-precision functions, and the argument checks.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from xfabric.host import HostRng, expf, logf


def test_mt19937_64_is_the_standard_one() -> None:
    r = HostRng(5489)  # the C++ standard: the 10000th invocation gives 9981545732273789042
    for _ in range(9999):
        r.next()
    assert r.next() == 9981545732273789042


def test_shuffle_is_a_permutation_fixed_by_the_seed() -> None:
    a, b = np.arange(1000, dtype=np.int32), np.arange(1000, dtype=np.int32)
    HostRng(3).shuffle(a)
    HostRng(3).shuffle(b)
    assert (a == b).all() and sorted(a.tolist()) == list(range(1000))
    assert (a != np.arange(1000)).sum() > 900
    with pytest.raises(TypeError, match="int32"):
        HostRng(3).shuffle(np.arange(10))


def test_normal() -> None:
    v = HostRng(1).normal(20000, 2.0, 0.5)
    assert v.dtype == np.float32 and v.shape == (20000,)
    assert abs(float(v.mean()) - 2.0) < 0.02 and abs(float(v.std()) - 0.5) < 0.02
    assert v.tobytes() == HostRng(1).normal(20000, 2.0, 0.5).tobytes()


def test_expf_logf_within_an_ulp() -> None:
    x = np.linspace(-80, 80, 4001, dtype=np.float32)
    e = expf(x)
    want = np.array([math.exp(float(v)) for v in x], dtype=np.float32)
    assert e.dtype == np.float32 and e.shape == x.shape
    assert (np.abs(e.view(np.int32) - want.view(np.int32)) <= 1).all()
    p = np.abs(x) + np.float32(1e-3)
    lg = logf(p)
    want = np.array([math.log(float(v)) for v in p], dtype=np.float32)
    assert (np.abs(lg.view(np.int32) - want.view(np.int32)) <= 1).all()
