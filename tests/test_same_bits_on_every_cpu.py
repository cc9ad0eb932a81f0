"""The vectorized kernels of the second-order and adaptive learners (``_core/gaussian_simd.h``:
a full covariance's u = Σx and congruence, a diagonal layout's step of two classes;
``_core/adaptive_simd.h``: AdaGrad's and FTRL's
per-class steps, AdaGrad-RDA's scores; ``_core/simd.h``: a dense row's non-zeros) sum in one
order and contract no multiply-add: the version this CPU runs (AVX2 or AVX-512 where it has
them) gives the same bits as the baseline that ``ONLINEAR_CPU=generic`` forces, which a fresh
process computes here.  (On a CPU with neither extension both sides run the baseline.)"""
import hashlib
import os
import subprocess
import sys
from pathlib import Path

# The runs, as a script for both processes: each prints the digest of its states' bytes.
RUNS = r"""
import hashlib
import numpy as np
import scipy.sparse as sp
from onlinear._core import adaptive as A, confidence as C
from onlinear.rules.confidence_table import GaussianRule, parameter_vector

rng = np.random.default_rng(19)
T, d, K = 120, 37, 5   # (d and K not multiples of any vector width: the remainders run too)
X = rng.normal(size=(T, d)) * (rng.random((T, d)) < 0.6)
y = np.argmax(X @ rng.normal(size=(d, K)) + 0.5 * rng.normal(size=(T, K)), 1).astype(np.int64)
order = np.concatenate([np.arange(T), np.arange(T)[::-1]])
digest = hashlib.sha256()
def keep(*arrays):
    for a in arrays:
        digest.update(np.ascontiguousarray(a).tobytes())
for rule, layout, diagonal in [("AROW", "per-class", "drop"), ("AROW", "per-class", "project"),
                               ("SCW_I", "per-class", "drop"), ("SCW_II", "per-class", "drop"),
                               ("NHERD", "per-class", "drop"), ("SHARED_AROW", "shared", "drop"),
                               ("CW_STD", "per-class", "project"), ("AROW", "diagonal", "project")]:
    r = GaussianRule[rule]
    for labels, outputs in ((y, K), ((y % 2).astype(np.int64), 1)):   # multiclass, binary
        if outputs == 1 and layout == "shared":
            continue
        mean, cov = C.initial_state(layout, d, outputs)
        keep(C.learn_pass(int(r), X, labels, order, mean, cov, parameter_vector(r),
                          layout=layout, diagonal=diagonal), mean, cov)
# float32 rows: their non-zeros gathered 16 a block with AVX-512, 8 with AVX2, one by one in
# the baseline (simd_body.h's nonzeros)
for rule in ("AROW", "SCW_I"):
    r = GaussianRule[rule]
    mean, cov = C.initial_state("diagonal", d, K)
    keep(C.learn_pass(int(r), X.astype(np.float32), y, order, mean, cov, parameter_vector(r),
                      layout="diagonal"), mean, cov)
for options in [dict(loss="log"), dict(loss="log", l1=1e-3, l2=1e-2), dict(loss="hinge", l1=1e-3),
                dict(loss="hinge"), dict(loss="log", weight=0.3)]:
    state = A.adagrad_state(d, K)
    keep(A.adagrad_pass(X, y, order, *state, **options), *state)
    A.adagrad_catch_up(*state, **{k: v for k, v in options.items() if k in ("l1", "l2")})
    keep(*state)
for options in [dict(loss="log"), dict(loss="log", l1=1e-2, l2=1e-1), dict(loss="hinge", l1=1e-2),
                dict(loss="hinge", l2=0.3, weight=0.4)]:
    state = (np.zeros((d, K)), np.zeros((d, K)), np.zeros(1, np.int64))  # (AdaGrad-RDA's u, G, t)
    keep(A.rda_pass(X, y, order, *state, **options), *state)
    keep(A.rda_row(np.flatnonzero(X[5]), X[5][X[5] != 0], int(y[5]), *state, **options), *state)
for options in [dict(loss="log"), dict(loss="log", l1=0.2, l2=0.1), dict(loss="log", weight=2.5),
                dict(loss="hinge", l1=0.2)]:
    state = A.ftrl_state(d, K)
    keep(A.ftrl_pass(X, y, order, *state, **options), *state)       # (a long pass: √n kept)
    keep(A.ftrl_pass(sp.csr_matrix(X[:3]), y[:3], np.arange(3), *state, **options), *state)
    keep(A.ftrl_row(np.flatnonzero(X[5]), X[5][X[5] != 0], int(y[5]), *state, **options),
         *state)
# rows of more non-zeros than the diagonal two-class step takes side by side (64): its chunks
wide = rng.normal(size=(60, 150)) * (rng.random((60, 150)) < 0.8)
wide_y = np.argmax(wide @ rng.normal(size=(150, K)), 1).astype(np.int64)
for rule in ("AROW", "SCW_I", "CW_VARIANCE"):
    r = GaussianRule[rule]
    mean, cov = C.initial_state("diagonal", 150, K)
    keep(C.learn_pass(int(r), wide, wide_y, np.arange(60), mean, cov, parameter_vector(r),
                      layout="diagonal"), mean, cov)
# rows whose features lie farther apart than a cache holds (the scores and the steps ask for
# the values ahead there): 40,000 features, 10 classes (a vector's worth and more)
far = sp.random(40, 40000, density=0.002, format="csr", random_state=7, dtype=np.float64)
far_y = (np.arange(40) % 10).astype(np.int64)
for options in [dict(loss="hinge"), dict(loss="hinge", l1=1e-3), dict(loss="log"),
                dict(loss="log", l1=1e-3, l2=1e-2)]:
    state = A.adagrad_state(40000, 10)
    keep(A.adagrad_pass(far, far_y, np.arange(40), *state, **options), *state)
    A.adagrad_catch_up(*state, **{k: v for k, v in options.items() if k in ("l1", "l2")})
    keep(*state)
    state = A.ftrl_state(40000, 10)
    keep(A.ftrl_pass(far, far_y, np.arange(40), *state, **options), *state)
for options in [dict(loss="hinge"), dict(loss="log"), dict(loss="log", l1=1e-3, l2=1e-2)]:
    state = (np.zeros((40000, 10)), np.zeros((40000, 10)), np.zeros(1, np.int64))
    keep(A.rda_pass(far, far_y, np.arange(40), *state, **options), *state)
mean, cov = C.initial_state("diagonal", 40000, 10)
keep(C.learn_pass(int(GaussianRule["AROW"]), far, far_y, np.arange(40), mean, cov,
                  parameter_vector(GaussianRule["AROW"]), layout="diagonal"), mean, cov)
print(digest.hexdigest())
"""


def _digest(cpu=None):
    env = dict(os.environ)
    env.pop("ONLINEAR_CPU", None)
    if cpu is not None:
        env["ONLINEAR_CPU"] = cpu
    src = str(Path(__import__("onlinear").__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", RUNS], capture_output=True, text=True,
                          check=True, env=env).stdout.strip()


def test_the_vector_kernels_give_the_baselines_bits():
    native, generic = _digest(), _digest("generic")
    assert len(native) == len(hashlib.sha256().hexdigest())
    assert native == generic
