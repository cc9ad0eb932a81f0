"""A first use compiles nothing: the compiled core is built when the package is installed, so a
fresh process learns with every family at once, and no just-in-time compiler is even imported.
(``benchmarks/cold_start.py`` measures the seconds; this checks the mechanism.)"""
import os
import subprocess
import sys
import textwrap

TINY = "1 1:1 2:0\n-1 1:-1 2:0.5\n1 1:0.8 2:-0.2\n-1 1:-0.7 2:-0.1\n" * 5

EVERY_FAMILY = textwrap.dedent("""
    import sys
    import numpy as np
    import scipy.sparse as sp
    import onlinear

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    y = rng.integers(0, 3, 40)
    Y = rng.integers(0, 2, (40, 4))
    for name, target in (("pa", y), ("aromma", y > 0), ("kernel-pa", y), ("iellip", y),
                         ("cellip", y), ("simproj", y), ("simproj", Y)):
        for rows in (X, sp.csr_matrix(X), X.astype(np.float32)):
            model = onlinear.make(name).fit(rows, target)
            model.predict(rows)
        one = onlinear.make(name)  # (a kernel's default gamma needs nothing from the data)
        one.learn_one(X[0], target[0], classes=np.unique(target, axis=0)
                      if target.ndim == 1 else None)
    grades = onlinear.make("simproj", task="ordinal").fit(X, y)
    print(sorted(m for m in sys.modules if m.split(".")[0] in ("numba", "llvmlite")))
""")


def _run(args, cwd):
    env = dict(os.environ)
    env.pop("ONLINEAR_TRACEBACK", None)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=600)


def test_every_family_learns_in_a_fresh_process_without_a_jit_compiler(tmp_path):
    done = _run(["-c", EVERY_FAMILY], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_command_line_starts_at_once_and_prints_nothing_about_building(tmp_path):
    (tmp_path / "tiny.svm").write_text(TINY)
    library = _run(["-c", "import onlinear, onlinear.harness, onlinear.cli"], tmp_path)
    assert library.returncode == 0 and library.stderr == ""
    first = _run(["-m", "onlinear", "run", "pa1", "tiny.svm"], tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("pa1 on tiny.svm: 20 examples")
    assert "compil" not in first.stderr and "build" not in first.stderr
    # every training command: the streaming one too
    streamed = _run(["-m", "onlinear", "train", "kernel-pa", "tiny.svm", "--save", "m",
                     "--quiet"], tmp_path)
    assert streamed.returncode == 0, streamed.stderr
    assert streamed.stderr == "saved m (20 examples learned)\n"
