#!/usr/bin/env python3
"""The independent oracle of the reduction ALU (docs/alu.md section 10): MPFR through gmpy2,
cross-checked with NumPy and ml_dtypes, against the C++ ALU (sw/lib/alu.cpp) and the RTL ALU
(rtl/xf_reduce_alu.sv), which tests/alu_oracle_dut.cpp computes side by side.

Floating point (fp32, fp16, bf16; Sum, Max, Min; fp32 ScaleAdd): every pair goes through
  - MPFR (gmpy2) in a context with the format's precision, exponent range and subnormals
    (emin, emax, subnormalize, round to nearest even): correct rounding by construction;
  - NumPy's float32/float16 and ml_dtypes' bfloat16 (np.fmax/np.fmin with the signed-zero rule);
the operands are decoded from their bits and the results encoded to bits by hand (sign,
exponent and fraction fields, no library conversion), every NaN result becomes the canonical NaN,
and the two oracles must agree before the C++ and the RTL are judged against them.
Integers (int8, uint8, int16, int32; Sum wrap and sat, Max, Min, Avg with random shift and
final scale): exact arithmetic on int64 (docs/alu.md section 3).

Pairs are random and structured (docs/alu.md section 10 lists the kinds), in chunks of
CHUNK_PAIRS; chunk k of a configuration depends only on (seed, configuration, k), so one chunk
reruns alone (--only). Every failure prints the command that reproduces its chunk and the one
that shows the pair (--pair).

  alu_oracle.py --dut build/cmake/alu_oracle_dut --pairs 10000000 [--seed S] [--jobs J]
  alu_oracle.py --dut ... --only fp16:sum:12                 (one chunk)
  alu_oracle.py --dut ... --pair fp16:sum:0x7bff:0x5000      (one pair, every result shown)
  alu_oracle.py --dut ... --self-test                        (plants errors: must be caught)
"""
import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time

import gmpy2
import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from progress import Progress  # noqa: E402  (scripts/ is not a package)

CHUNK_PAIRS = 1 << 16
DEFAULT_SEED = 23

# Format: exponent bits, fraction bits (p = fraction bits + 1), bias.
FLOATS = {"fp32": (8, 23), "fp16": (5, 10), "bf16": (8, 7)}
INTS = {"int8": (8, True), "uint8": (8, False), "int16": (16, True), "int32": (32, True)}
SIZE = {"fp32": 4, "fp16": 2, "bf16": 2, "int8": 1, "uint8": 1, "int16": 2, "int32": 4}
NP_FLOAT = {"fp32": np.float32, "fp16": np.float16, "bf16": ml_dtypes.bfloat16}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}

# Every configuration: (dtype, op); an integer Sum is checked both wrapping and saturating.
CONFIGS = [(t, op) for t in ("fp32", "fp16", "bf16") for op in ("sum", "max", "min")]
CONFIGS += [("fp32", "scaleadd")]
CONFIGS += [(t, op) for t in INTS for op in ("sum", "sumsat", "max", "min", "avg")]
ROUNDING = {"nearest": gmpy2.RoundToNearest, "zero": gmpy2.RoundToZero}


def fmt(t):
    e, m = FLOATS[t]
    return e, m, (1 << (e - 1)) - 1


def canonical_nan(t):
    e, m, _ = fmt(t)
    return ((1 << e) - 1) << m | 1 << (m - 1)


def mpfr_context(t, rounding="nearest"):
    """The format as an MPFR context: p bits, x = f * 2^exp with 0.5 <= f < 1, so the largest
    finite exponent is bias + 1 and the smallest subnormal 2^(1 - bias - m) = 0.5 * 2^emin."""
    e, m, bias = fmt(t)
    return gmpy2.context(precision=m + 1, emax=bias + 1, emin=3 - bias - (m + 1),
                         subnormalize=True, round=ROUNDING[rounding])


# ---- bits <-> values, by hand -----------------------------------------------------------------

def decode(t, bits):
    """float64 values of bit patterns (every fp32/fp16/bf16 value is a float64 value)."""
    e, m, bias = fmt(t)
    bits = bits.astype(np.int64)
    sign = (bits >> (e + m)) & 1
    ef = (bits >> m) & ((1 << e) - 1)
    fr = bits & ((1 << m) - 1)
    sub = np.ldexp(fr.astype(np.float64), 1 - bias - m)
    nor = np.ldexp((fr | 1 << m).astype(np.float64), (ef - bias - m).astype(np.int32))
    v = np.where(ef == 0, sub, nor)
    v = np.where(ef == (1 << e) - 1, np.where(fr == 0, np.inf, np.nan), v)
    return np.where(sign == 1, -v, v)


def encode(t, v):
    """Bit patterns of float64 values that the format represents exactly (raises otherwise);
    any NaN gives the canonical NaN."""
    e, m, bias = fmt(t)
    nan = np.isnan(v)
    a = np.abs(np.where(nan, 0.0, v))
    inf = np.isinf(a)
    a = np.where(inf, 0.0, a)
    f, x = np.frexp(a)  # a = f * 2^x, 0.5 <= f < 1 (f = 0 for 0)
    normal = (a != 0) & (x - 1 >= 1 - bias)
    frac = np.where(normal, np.ldexp(f, m + 1) - (1 << m), np.ldexp(a, m + bias - 1))
    ef = np.where(normal, x - 1 + bias, 0)
    if np.any(frac != np.floor(frac)) or np.any(frac >= (1 << m)) or np.any(ef >= (1 << e) - 1):
        bad = np.flatnonzero((frac != np.floor(frac)) | (frac >= (1 << m)) | (ef >= (1 << e) - 1))
        raise AssertionError(f"{t}: {v[bad[0]]!r} is not a value of the format")
    bits = (np.signbit(v).astype(np.int64) << (e + m)) | (ef.astype(np.int64) << m)
    bits |= frac.astype(np.int64)
    bits = np.where(inf, (np.signbit(v).astype(np.int64) << (e + m)) | ((1 << e) - 1) << m, bits)
    return np.where(nan, canonical_nan(t), bits).astype(np.int64)


# ---- the two float oracles -----------------------------------------------------------------------

def oracle_mpfr(t, op, a, b, s=None, rounding="nearest"):
    """MPFR: every operation rounded once in the format's context (ScaleAdd: the product, then the
    sum). maxnum/minnum: the other operand when one is NaN, -0 < +0 (mpfr_max/mpfr_min)."""
    ctx = mpfr_context(t, rounding)
    mp = gmpy2.mpfr
    av = [mp(x) for x in decode(t, a).tolist()]  # exact: 53 bits hold every value
    bv = [mp(x) for x in decode(t, b).tolist()]
    if op == "sum":
        r = [float(ctx.add(x, y)) for x, y in zip(av, bv)]
    elif op == "max":
        r = [float(ctx.maxnum(x, y)) for x, y in zip(av, bv)]
    elif op == "min":
        r = [float(ctx.minnum(x, y)) for x, y in zip(av, bv)]
    else:  # scaleadd: a + s*b, two roundings
        sv = [mp(x) for x in decode(t, s).tolist()]
        r = [float(ctx.add(x, ctx.mul(z, y))) for x, y, z in zip(av, bv, sv)]
    return encode(t, np.array(r, dtype=np.float64))


def oracle_numpy(t, op, a, b, s=None):
    """NumPy float32/float16 and ml_dtypes bfloat16 arithmetic, NaNs made canonical."""
    u = UINT[SIZE[t]]
    x = a.astype(u).view(NP_FLOAT[t])
    y = b.astype(u).view(NP_FLOAT[t])
    with np.errstate(all="ignore"):
        if op == "sum":
            r = x + y
        elif op in ("max", "min"):
            r = np.fmax(x, y) if op == "max" else np.fmin(x, y)
            # C's fmax/fmin leave the zero's sign open; the ALU orders -0 < +0.
            zero = (x == 0) & (y == 0)
            sx, sy = np.signbit(x), np.signbit(y)
            neg = (sx & sy) if op == "max" else (sx | sy)
            r = np.where(zero, np.where(neg, -0.0, 0.0).astype(r.dtype), r)
        else:  # scaleadd: two separate float32 operations, never fused
            z = s.astype(u).view(NP_FLOAT[t])
            r = x + z * y
    bits = r.view(u).astype(np.int64)
    return np.where(np.isnan(r.astype(np.float32)), canonical_nan(t), bits)


# ---- integers: exact ---------------------------------------------------------------------------

def int_range(t):
    n, signed = INTS[t]
    return (-(1 << (n - 1)), (1 << (n - 1)) - 1) if signed else (0, (1 << n) - 1)


def to_int(t, bits):
    n, signed = INTS[t]
    v = bits.astype(np.int64)
    return np.where(signed & (v >= 1 << (n - 1)), v - (1 << n), v)


def oracle_int(t, op, cfg, a, b):
    """docs/alu.md section 3 on int64 (exact: |x * scale| < 2^63)."""
    lo, hi = int_range(t)
    x, y = to_int(t, a), to_int(t, b)
    if op == "sum":
        r = x + y
    elif op == "sumsat":
        r = np.clip(x + y, lo, hi)
    elif op == "max":
        r = np.maximum(x, y)
    elif op == "min":
        r = np.minimum(x, y)
    else:
        r = (x + (y >> cfg["avg_shift"])) >> 1
        if cfg["avg_final"]:
            r = np.clip((r * cfg["avg_scale"]) >> 31, lo, hi)
    return r & ((1 << INTS[t][0]) - 1)


# ---- the pairs ---------------------------------------------------------------------------------

def specials(t):
    """Both zeros, subnormals, min/max normals, ones, infinities, quiet and signalling NaNs with
    payloads, all with both signs."""
    e, m, bias = fmt(t)
    emax = (1 << e) - 1
    mags = [0, 1, 2, 1 << (m - 1), (1 << m) - 1, 1 << m, (1 << m) + 1, (2 << m) - 1,
            bias << m, (bias << m) + 1, ((bias - 1) << m) | ((1 << m) - 1),
            (bias << m) | 1 << (m - 1),
            (bias + 1) << m, (bias - m - 1) << m, (bias - m) << m,
            ((emax - 1) << m) | ((1 << m) - 1), ((emax - 1) << m) | ((1 << m) - 2),
            (emax - 1) << m, (emax - m - 2) << m, ((emax - m - 2) << m) | ((1 << m) - 1),
            emax << m, (emax << m) | 1 << (m - 1), (emax << m) | 1 << (m - 1) | 1,
            (emax << m) | ((1 << m) - 1), (emax << m) | 1, (emax << m) | ((1 << (m - 1)) - 1)]
    sign = 1 << (e + m)
    return np.array(mags + [x | sign for x in mags], dtype=np.int64)


def float_pairs(t, rng, n, chunk):
    """n structured and random pairs; chunk 0 starts with every ordered pair of the specials."""
    e, m, bias = fmt(t)
    emax, mmask, sbit = (1 << e) - 1, (1 << m) - 1, 1 << (e + m)
    sp = specials(t)

    def pack(sign, ef, fr):
        return (sign.astype(np.int64) * sbit) | (np.clip(ef, 0, emax).astype(np.int64) << m) | fr

    def rsign(k):
        return rng.integers(0, 2, k)

    def rfrac(k):
        return rng.integers(0, 1 << m, k, dtype=np.int64)

    raw = rng.integers(0, 1 << (e + m + 1), n, dtype=np.int64)
    a = raw.copy()
    b = rng.integers(0, 1 << (e + m + 1), n, dtype=np.int64)
    kind = rng.integers(0, 10, n)
    # a finite normal with room below it for the partner's alignment range
    ea = rng.integers(1, emax, n)
    an = pack(rsign(n), ea, rfrac(n))
    d = rng.integers(0, m + 5, n)
    # 1: specials against specials and against raw bits (both orders)
    k = kind == 1
    a[k] = rng.choice(sp, k.sum())
    k2 = k & (rng.integers(0, 2, n) == 0)
    b[k2] = rng.choice(sp, k2.sum())
    nan_pay = pack(rsign(n), np.full(n, emax), rng.integers(1, 1 << m, n, dtype=np.int64))
    k3 = k & ~k2 & (rng.integers(0, 2, n) == 0)
    b[k3] = nan_pay[k3]
    # 2: subnormals and the subnormal/normal boundary (exponent fields 0..2)
    k = kind == 2
    a[k] = pack(rsign(n), rng.integers(0, 3, n), rfrac(n))[k]
    b[k] = pack(rsign(n), rng.integers(0, 3, n), rfrac(n))[k]
    # 3: alignment: b's exponent d = 0..m+4 below a's, random fraction and sign
    k = kind == 3
    a[k] = an[k]
    b[k] = pack(rsign(n), ea - d, rfrac(n))[k]
    # 4: ties: b is half an ulp of a (exactly, or one ulp of b above or below), either sign
    k = kind == 4
    eb = ea - m - 1
    half = pack(rsign(n), eb, np.zeros(n, np.int64))
    delta = rng.integers(-1, 2, n)
    a[k] = an[k]
    b[k] = np.where(eb >= 1, half + delta, pack(rsign(n), np.zeros(n), rfrac(n)))[k]
    # 5: cancellation: b = -a plus or minus a few ulps (and one exponent away)
    k = kind == 5
    a[k] = an[k]
    b[k] = ((an ^ sbit) + rng.integers(-3, 4, n) + (rng.integers(-1, 2, n) << m))[k]
    # 6: near overflow: both in the top m + 2 binades, same sign mostly
    k = kind == 6
    top = lambda: rng.integers(max(1, emax - m - 2), emax, n)  # noqa: E731
    sa = rsign(n)
    a[k] = pack(sa, top(), rfrac(n))[k]
    b[k] = pack(np.where(rng.integers(0, 8, n) == 0, 1 - sa, sa), top(), rfrac(n))[k]
    # 7: equal magnitudes (max/min: equal keys, +-x), the same value; a quarter of them zeros
    k = kind == 7
    az = np.where(rng.integers(0, 4, n) == 0, an & sbit, an)
    a[k] = az[k]
    b[k] = (az ^ (rsign(n) * sbit))[k]
    # 8: both operands' exponents close (within 2), every sign combination
    k = kind == 8
    a[k] = an[k]
    b[k] = pack(rsign(n), ea + rng.integers(-2, 3, n), rfrac(n))[k]
    # 0, 9: raw bit patterns (a) against raw bits (b); 9 with a in a random binade
    a[kind == 9] = an[kind == 9]
    a &= (sbit << 1) - 1
    b &= (sbit << 1) - 1
    if chunk == 0:
        sa, sb = np.meshgrid(sp, sp)
        c = min(n, sa.size)
        a[:c], b[:c] = sa.ravel()[:c], sb.ravel()[:c]
    return a, b


def scaleadd_triples(rng, n, chunk):
    """(a, b, s): s per flit of 4 lanes; b often puts s*b near the subnormal or overflow range;
    a built against the rounded product p = s*b (cancellation, ties, alignment) or raw."""
    t = "fp32"
    e, m, bias = fmt(t)
    sbit = 1 << 31
    flits = (n + 3) // 4
    one = bias << m
    sk = rng.integers(0, 5, flits)
    s = np.where(sk == 0, rng.choice(specials(t), flits),
         np.where(sk == 1, one + rng.integers(-8, 9, flits),
         np.where(sk == 2, rng.integers(1, 255, flits) << m | rng.integers(0, 2, flits) << 31,
         np.where(sk == 3, rng.integers(0, 1 << m, flits),
                  rng.integers(0, 1 << 32, flits, dtype=np.int64)))))
    s = np.repeat(s, 4)[:n].astype(np.int64) & 0xFFFFFFFF
    a, b = float_pairs(t, rng, n, chunk)
    es = (s >> m) & 0xFF
    # b such that s*b lands near the bottom (subnormal results) or the top (overflow)
    bk = rng.integers(0, 4, n)
    eb = np.where(bk == 0, 1 - es + bias + rng.integers(-30, 5, n),
                  254 - es + bias + rng.integers(-3, 3, n))
    bb = (rng.integers(0, 2, n) << 31) | (np.clip(eb, 1, 254) << m) | rng.integers(0, 1 << m, n)
    b = np.where(bk <= 1, bb, b)
    with np.errstate(all="ignore"):
        p = (s.astype(np.uint32).view(np.float32) * b.astype(np.uint32).view(np.float32))
    pb = p.view(np.uint32).astype(np.int64)
    ep = (pb >> m) & 0xFF
    ak = rng.integers(0, 4, n)
    cancel = (pb ^ sbit) + rng.integers(-3, 4, n)
    tie = (rng.integers(0, 2, n) << 31) | (np.clip(ep + m + 1, 1, 254) << m) | rng.integers(0, 2, n)
    align = (rng.integers(0, 2, n) << 31) | (np.clip(ep + rng.integers(-26, 27, n), 0, 254) << m)
    align |= rng.integers(0, 1 << m, n)
    a = np.where(ak == 0, cancel, np.where(ak == 1, tie, np.where(ak == 2, align, a)))
    return a & 0xFFFFFFFF, b & 0xFFFFFFFF, s


def int_pairs(t, rng, n):
    lo, hi = int_range(t)
    nb = INTS[t][0]
    ends = np.array([lo, lo + 1, lo + 2, -1, 0, 1, 2, hi - 1, hi, hi // 2, lo // 2], np.int64)
    ends = ends[(ends >= lo) & (ends <= hi)]

    def draw():
        x = rng.integers(lo, hi + 1, n, dtype=np.int64)
        k = rng.integers(0, 4, n)
        x = np.where(k == 1, rng.choice(ends, n), x)
        return x, k
    a, ka = draw()
    b, _ = draw()
    b = np.where(ka == 2, np.clip(a + rng.integers(-3, 4, n), lo, hi), b)  # close pairs
    return a & ((1 << nb) - 1), b & ((1 << nb) - 1)


def int_cfg(rng, op):
    scales = [1 << 31, 0xAAAAAAAA, 0xCCCCCCCC, 1 << 30, 1, 0xFFFFFFFF, 0]
    final = op == "avg" and rng.integers(0, 2) == 1
    return {"avg_shift": int(rng.integers(0, 16)) if op == "avg" else 0, "avg_final": bool(final),
            "avg_scale": int(rng.choice(scales) if rng.integers(0, 2) else rng.integers(0, 1 << 32))
            if final else 1 << 31}


# ---- one chunk -----------------------------------------------------------------------------------

def chunk_rng(seed, t, op, k):
    return np.random.default_rng([seed, CONFIGS.index((t, op)), k])


def make_chunk(seed, t, op, k, n):
    rng = chunk_rng(seed, t, op, k)
    if t in FLOATS:
        if op == "scaleadd":
            a, b, s = scaleadd_triples(rng, n, k)
            return a, b, s, None
        a, b = float_pairs(t, rng, n, k)
        return a, b, None, None
    cfg = int_cfg(rng, op)
    a, b = int_pairs(t, rng, n)
    return a, b, None, cfg


def run_dut(dut, t, op, cfg, a, b, s):
    size = SIZE[t]
    u = UINT[size]
    if s is not None:
        rec = np.stack([a, b, s], axis=1).astype(u)
    else:
        rec = np.stack([a, b], axis=1).astype(u)
    with tempfile.TemporaryDirectory(prefix="alu_oracle") as d:
        fin, fout = os.path.join(d, "in.bin"), os.path.join(d, "out.bin")
        rec.tofile(fin)
        cmd = [dut, "--dtype", t, "--op", "sum" if op == "sumsat" else op, "--in", fin,
               "--out", fout]
        if op == "sumsat":
            cmd.append("--sat")
        if cfg and op == "avg":
            cmd += ["--avg-shift", str(cfg["avg_shift"]), "--avg-scale", str(cfg["avg_scale"])]
            if cfg["avg_final"]:
                cmd.append("--avg-final")
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
        out = np.fromfile(fout, dtype=u).astype(np.int64)
    n = len(a)
    return out[:n], out[n:]


def check_chunk(job):
    """Returns (t, op, k, n, failures): failures lists (what, i, a, b, s, expected, seen)."""
    dut, seed, t, op, k, n, rounding = job
    a, b, s, cfg = make_chunk(seed, t, op, k, n)
    cpp, rtl = run_dut(dut, t, op, cfg, a, b, s)
    fails = []
    if t in FLOATS:
        exp = oracle_mpfr(t, op, a, b, s, rounding)
        npy = oracle_numpy(t, op, a, b, s)
        for i in np.flatnonzero(exp != npy)[:5]:
            fails.append(("MPFR != NumPy", int(i), a[i], b[i], s, int(exp[i]), int(npy[i])))
    else:
        exp = oracle_int(t, op, cfg, a, b)
    for name, got in (("C++", cpp), ("RTL", rtl)):
        for i in np.flatnonzero(got != exp)[:5]:
            fails.append((f"{name} != oracle", int(i), a[i], b[i], s, int(exp[i]), int(got[i])))
    nfail = int(np.count_nonzero(cpp != exp) + np.count_nonzero(rtl != exp))
    if t in FLOATS:
        nfail += int(np.count_nonzero(exp != npy))
    stats = kinds(t, op, a, b, s, exp) if t in FLOATS else {}
    return t, op, k, n, nfail, [(w, i, int(x), int(y), None if z is None else int(z[i]), ev, gv)
                                for (w, i, x, y, z, ev, gv) in fails], cfg, stats


STAT_NAMES = ("NaN in", "NaN out", "sNaN in", "overflow", "subnormal out", "zero out",
              "+-0 pair", "inexact*", "tie*")
STAT_SAMPLE = 4096


def kinds(t, op, a, b, s, exp):
    """How many pairs reached each kind of case (the pairs' coverage); inexact and tie results
    of Sum/ScaleAdd counted on the first STAT_SAMPLE pairs of the chunk (exact sum in 400 bits,
    then rounded toward zero and away from zero)."""
    e, m, _ = fmt(t)
    x, y, r = decode(t, a), decode(t, b), decode(t, exp)
    nan_in = np.isnan(x) | np.isnan(y)
    snan = lambda v: ((v >> m) & ((1 << e) - 1) == (1 << e) - 1) & (v & ((1 << m) - 1) != 0) & (
        (v >> (m - 1)) & 1 == 0)  # noqa: E731
    fin = np.isfinite(x) & np.isfinite(y)
    if s is not None:
        fin &= np.isfinite(decode(t, s))
    tiny = 2.0 ** (2 - 2 ** (e - 1))  # the smallest normal
    st = {"NaN in": nan_in.sum(), "NaN out": np.isnan(r).sum(),
          "sNaN in": (snan(a) | snan(b)).sum(),
          "overflow": (fin & np.isinf(r)).sum(),
          "subnormal out": ((r != 0) & (np.abs(r) < tiny)).sum(),
          "zero out": ((r == 0) & (x != 0) & (y != 0)).sum(),
          "+-0 pair": ((x == 0) & (y == 0)).sum()}
    if op in ("sum", "scaleadd"):
        big = gmpy2.context(precision=400, emin=-10000, emax=10000)
        rz, ra = mpfr_context(t), mpfr_context(t)
        rz.round, ra.round = gmpy2.RoundToZero, gmpy2.RoundAwayZero
        n = min(STAT_SAMPLE, len(a))
        xs, ys = x[:n].tolist(), y[:n].tolist()
        if s is not None:  # the sum a + p of ScaleAdd, with p = s*b rounded
            near = mpfr_context(t)
            ys = [float(near.mul(z, w)) for z, w in zip(decode(t, s)[:n].tolist(), ys)]
        inexact = tie = 0
        for u, v in zip(xs, ys):
            if not (np.isfinite(u) and np.isfinite(v)):
                continue
            ex = big.add(u, v)
            lo, hi = rz.add(u, v), ra.add(u, v)
            if lo != hi:
                inexact += 1
                tie += big.sub(ex, lo) == big.sub(hi, ex)
        st["inexact*"], st["tie*"] = inexact, tie
    return {k: int(v) for k, v in st.items()}


# ---- command line --------------------------------------------------------------------------------

def hx(t, v):
    return f"0x{v:0{2 * SIZE[t]}x}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dut", required=True, help="build/cmake/alu_oracle_dut")
    ap.add_argument("--pairs", type=int, default=CHUNK_PAIRS,
                    help="pairs per configuration, rounded up to whole chunks of %d" % CHUNK_PAIRS)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--configs", default="all",
                    help="comma list of dtype:op (e.g. fp16:sum,int8:sumsat), 'float' or 'all'")
    ap.add_argument("--only", help="one chunk: dtype:op:k")
    ap.add_argument("--pair", help="one pair: dtype:op:a:b[:s], every result printed "
                    "(avg: dtype:avg:a:b:shift[:scale], a scale meaning avg_final)")
    ap.add_argument("--rounding", choices=sorted(ROUNDING), default="nearest",
                    help="the MPFR oracle's rounding (zero: a planted error, --self-test)")
    ap.add_argument("--self-test", action="store_true",
                    help="first prove the check can fail: round toward zero in MPFR must be caught")
    args = ap.parse_args()
    dut = os.path.abspath(args.dut)
    prog = f"{sys.executable} {sys.argv[0]}"
    base = f"{prog} --dut {args.dut} --seed {args.seed}"

    if args.pair:
        return show_pair(dut, args.pair)
    if args.self_test and not self_test(dut, args.seed):
        return 1

    if args.only:
        t, op, k = args.only.split(":")
        jobs = [(dut, args.seed, t, op, int(k), CHUNK_PAIRS, args.rounding)]
        configs = [(t, op)]
    else:
        if args.configs == "all":
            configs = CONFIGS
        elif args.configs == "float":
            configs = [c for c in CONFIGS if c[0] in FLOATS]
        else:
            configs = [tuple(c.split(":")) for c in args.configs.split(",")]
        for c in configs:
            if c not in CONFIGS:
                ap.error(f"{':'.join(c)} is not a configuration; one of "
                         + ", ".join(":".join(x) for x in CONFIGS))
        chunks = max(1, -(-args.pairs // CHUNK_PAIRS))
        jobs = [(dut, args.seed, t, op, k, CHUNK_PAIRS, args.rounding)
                for k in range(chunks) for (t, op) in configs]
    total = sum(j[5] for j in jobs)
    print(f"alu_oracle: seed {args.seed}, {len(configs)} configurations, {len(jobs)} chunks of "
          f"{CHUNK_PAIRS} pairs ({total:,} pairs), {args.jobs} processes; MPFR "
          f"{gmpy2.mpfr_version()} (gmpy2 {gmpy2.version()}), NumPy {np.__version__}, "
          f"ml_dtypes {ml_dtypes.__version__}", flush=True)
    t0 = last = time.time()
    prog = Progress("alu_oracle", total, "pairs")
    done = failed = 0
    per = {}
    shown = 0
    with multiprocessing.Pool(args.jobs) as pool:
        for t, op, k, n, nfail, fails, cfg, st in pool.imap_unordered(check_chunk, jobs):
            done += n
            c = per.setdefault((t, op), [0, 0, {}])
            c[0] += n
            c[1] += nfail
            for name, v in st.items():
                c[2][name] = c[2].get(name, 0) + v
            failed += nfail
            for (what, i, a, b, s, ev, gv) in fails:
                if shown >= 20:
                    break
                shown += 1
                extra = f" s {hx(t, s)}" if s is not None else ""
                extra += f" cfg {cfg}" if cfg and op == "avg" else ""
                pair = f"{t}:{op}:{hx(t, a)}:{hx(t, b)}" + (f":{hx(t, s)}" if s is not None else "")
                if cfg and op == "avg":
                    pair += f":{cfg['avg_shift']}" + (f":0x{cfg['avg_scale']:08x}"
                                                      if cfg["avg_final"] else "")
                print(f"alu_oracle: FAIL {t} {op} chunk {k} pair {i}: {what}: a {hx(t, a)} "
                      f"b {hx(t, b)}{extra}: expected {hx(t, ev)}, seen {hx(t, gv)}\n"
                      f"  reproduce the chunk: {base} --only {t}:{op}:{k}\n"
                      f"  show the pair:       {prog} --dut {args.dut} --pair {pair}",
                      flush=True)
            prog.add(n)
            now = time.time()
            if now - last >= 10 or done == total:
                last = now
                print(prog.line(f"{failed} mismatches"), flush=True)
    el = time.time() - t0
    print(f"alu_oracle: {'dtype:op':14} {'pairs':>12} {'mismatches':>10}   "
          + " ".join(f"{x:>13}" for x in STAT_NAMES))
    for (t, op) in configs:
        if (t, op) in per:
            n, f, st = per[(t, op)]
            print(f"alu_oracle: {t + ':' + op:14} {n:>12,} {f:>10}   "
                  + " ".join(f"{st[x]:>13,}" if x in st else f"{'':>13}" for x in STAT_NAMES))
    print(f"alu_oracle: (* of the first {STAT_SAMPLE} pairs of each chunk)")
    if failed:
        print(f"alu_oracle: FAILED: {failed} mismatches in {total:,} pairs ({el:.0f} s); "
              f"rerun: {base} --pairs {args.pairs}")
        return 1
    print(f"alu_oracle: {total:,} pairs, the C++ ALU and the RTL ALU agree with the oracle "
          f"(MPFR and NumPy for floats, exact integers) on every one ({el:.0f} s)")
    return 0


def show_pair(dut, spec):
    parts = spec.split(":")
    t, op = parts[0], parts[1]
    vals = [int(x, 0) for x in parts[2:]]
    a, b = np.array([vals[0]] * 4, np.int64), np.array([vals[1]] * 4, np.int64)
    s = np.array([vals[2]] * 4, np.int64) if op == "scaleadd" else None
    cfg = None
    if t in INTS:
        cfg = {"avg_shift": vals[2] if len(vals) > 2 else 0,
               "avg_final": len(vals) > 3, "avg_scale": vals[3] if len(vals) > 3 else 1 << 31}
    cpp, rtl = run_dut(dut, t, op, cfg, a, b, s)
    if t in FLOATS:
        print(f"{t} {op} a {hx(t, vals[0])} ({decode(t, a)[0]!r}) b {hx(t, vals[1])} "
              f"({decode(t, b)[0]!r})" + (f" s {hx(t, vals[2])} ({decode(t, s)[0]!r})" if s is
                                           not None else ""))
        res = {"MPFR": oracle_mpfr(t, op, a, b, s)[0], "NumPy": oracle_numpy(t, op, a, b, s)[0]}
    else:
        print(f"{t} {op} a {hx(t, vals[0])} ({to_int(t, a)[0]}) b {hx(t, vals[1])} "
              f"({to_int(t, b)[0]})" + (f" {cfg}" if op == "avg" else ""))
        res = {"exact": oracle_int(t, op, cfg, a, b)[0]}
    res.update({"C++": cpp[0], "RTL": rtl[0]})
    for name, v in res.items():
        val = f" ({decode(t, np.array([v]))[0]!r})" if t in FLOATS else ""
        print(f"  {name:6} {hx(t, int(v))}{val}")
    ok = len(set(int(v) for v in res.values())) == 1
    print("  agree" if ok else "  DISAGREE")
    return 0 if ok else 1


def self_test(dut, seed):
    """The check must be able to fail: MPFR rounding toward zero (a planted misreading of
    IEEE-754) must disagree with NumPy, the C++ ALU and the RTL ALU on fp32, fp16 and bf16 Sum,
    and a planted one-ulp error in the encoder must be seen; then the true oracle must agree."""
    ok = True
    for t in FLOATS:
        _, _, _, n, nfail, fails, _, _ = check_chunk((dut, seed, t, "sum", 1, 1 << 12, "zero"))
        kinds = {f[0] for f in fails}
        caught = {"MPFR != NumPy", "C++ != oracle", "RTL != oracle"} <= kinds
        print(f"alu_oracle: self-test {t} sum with MPFR rounding toward zero: {nfail} mismatches "
              f"in {n} pairs ({'caught' if caught else 'NOT CAUGHT'})")
        ok &= caught and nfail > 0
    # the signed-zero rule: max(-0, +0) must be +0 in both oracles, min -0
    for t in FLOATS:
        e, m, _ = fmt(t)
        nz, pz = np.array([1 << (e + m)], np.int64), np.array([0], np.int64)
        for op, want in (("max", 0), ("min", 1 << (e + m))):
            got = {oracle_mpfr(t, op, nz, pz)[0], oracle_numpy(t, op, nz, pz)[0],
                   oracle_mpfr(t, op, pz, nz)[0], oracle_numpy(t, op, pz, nz)[0]}
            if got != {want}:
                print(f"alu_oracle: self-test {t} {op}(-0, +0): {got}, want {want}")
                ok = False
    if not ok:
        print("alu_oracle: self-test FAILED: the oracle cannot tell a wrong rounding apart")
    return ok


if __name__ == "__main__":
    sys.exit(main())
