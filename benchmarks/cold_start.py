#!/usr/bin/env python
"""A first use from a fresh process: how much CPU the first call of each kind costs (issue [17],
"instant start"), next to the bare compiled loop's own compile in the same run.

    python benchmarks/cold_start.py                  # every registered learner: a few minutes
    python benchmarks/cold_start.py --quick          # one learner per family
    python benchmarks/cold_start.py --baseline-src /path/to/an/older/checkout/src

Each figure is one fresh Python process (``subprocess``), with an empty numba cache of its own
(``NUMBA_CACHE_DIR`` a new temporary folder: the bare loop compiles, and an older onlinear that
compiled with numba would too) and, for onlinear, nothing else to warm: its core is compiled when
the package is installed.  The CPU time of a figure is the child's user + system time
(``getrusage(RUSAGE_CHILDREN)``), its import included; the child also reports the CPU of its
import alone and of the timed action alone.  The figures:

* ``import onlinear``;
* the first dense ``fit`` of each registered learner (200 USPS rows; ``--quick``: one learner
  per family: primal, kernel, ellipsoid, blocks), the goal being ≤ 5 s CPU and about 3× the bare
  loop's compile;
* ``fit`` + CSR ``fit`` + ``learn_one`` + ``predict_one`` of one learner per family (≤ 12 s);
* ``onlinear.load(path).predict(X)`` of a saved model of each family (≤ 3 s: serving from a
  fresh container);
* the README's main job, ``onlinear compare`` (every algorithm, one pass over USPS; ≤ 60 s CPU,
  its progress bars and plots included);
* the bare loop: ``../shared/bench/peers.py``'s dense PA kernel (copied in ``bare_loop.py``),
  compiled by numba from an empty cache and run on the same rows.

The goals bound the timed call (``import onlinear`` is its own figure: scikit-learn's import
is most of it); the table prints the whole process's CPU beside it.

``--baseline-src DIR`` times the same figures for another source tree as well (an older
checkout's ``src``, put first on ``PYTHONPATH``; it must be importable with this interpreter's
packages, numba included if it needs it).  ``--out FILE`` writes every figure as JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
FAMILIES = {"primal": "pa", "kernel": "kernel-pa", "ellipsoid": "iellip", "blocks": "simproj"}

PRELUDE = textwrap.dedent("""
    import json, sys, time
    start = time.process_time()
    import numpy as np
    import onlinear
    from onlinear.data import load_usps
    imported = time.process_time()
    X, y, X_test, y_test = load_usps()
    X, y = X[:200], y[:200]
    if not onlinear.describe(NAME).handles_multiclass:
        y = np.where(y > 5, 1, -1)  # (a binary learner: two classes of the digits)
    t0 = time.process_time()
""")
REPORT = textwrap.dedent("""
    done = time.process_time()
    print(json.dumps({"import": imported - start, "action": done - t0}))
""")

ACTIONS = {
    "import": "",
    "fit": "onlinear.make(NAME).fit(X, y)\n",
    "fit+csr+one": textwrap.dedent("""
        import scipy.sparse as sp
        onlinear.make(NAME).fit(X, y)
        onlinear.make(NAME).fit(sp.csr_matrix(X), y)
        one = onlinear.make(NAME)
        for i in range(20):
            one.learn_one(X[i], y[i], classes=np.unique(y))
        one.predict_one(X[20])
    """),
    "load+predict": "onlinear.load(PATH).predict(X_test)\n",
}

BARE = textwrap.dedent("""
    import json, sys, time
    start = time.process_time()
    import numpy as np
    sys.path.insert(0, HERE)
    from bare_loop import pa_dense
    from onlinear.data import load_usps
    imported = time.process_time()
    X, y, _, _ = load_usps()
    X, y = np.ascontiguousarray(X[:200], np.float32), (y[:200] - 1).astype(np.int64)
    t0 = time.process_time()
    pa_dense(X, y, np.zeros((10, X.shape[1]), np.float32))
    done = time.process_time()
    print(json.dumps({"import": imported - start, "action": done - t0}))
""")


def child(code, src=None, cwd=None, args=()):
    """Run ``code`` (or ``args``) in a fresh interpreter with an empty numba cache; returns
    ``(its CPU seconds, its own report or None)``."""
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        env["NUMBA_CACHE_DIR"] = cache
        if src is not None:
            env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")])
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        command = [sys.executable, "-c", code] if code is not None else list(args)
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{command[:3]} failed:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    report = None
    if code is not None:
        report = json.loads(done.stdout.strip().splitlines()[-1])
    return cpu, report


def onlinear_figure(kind, name=None, path=None, src=None):
    code = (PRELUDE.replace("NAME", repr(name or "pa")) + ACTIONS[kind].replace("NAME", repr(name))
            .replace("PATH", repr(path)) + REPORT)
    return child(code, src)


def saved_models(folder, names, src=None):
    """Save a fitted model of each of ``names`` (in a process of its own: not timed)."""
    paths = {}
    for name in names:
        path = str(Path(folder) / f"{name}.onlinear")
        code = (PRELUDE.replace("NAME", repr(name))
                + f"onlinear.save(onlinear.make({name!r}).fit(X, y), {path!r})\n" + REPORT)
        child(code, src)
        paths[name] = path
    return paths


def measure(src, quick, label):
    """Every figure for the onlinear of ``src`` (None: the installed one)."""
    import onlinear  # (the names only)

    names = (list(FAMILIES.values()) if quick
             else onlinear.available() + onlinear.available(kernel=True))
    rows = []

    def add(what, name, cpu, report, goal):
        rows.append({"version": label, "what": what, "learner": name, "cpu_s": cpu,
                     "import_s": report["import"] if report else None,
                     "action_s": report["action"] if report else None, "goal_s": goal})
        print(f"  {label:9s} {what:28s} {name or '':22s} {cpu:7.2f} s CPU"
              + (f"  (import {report['import']:.2f}, call {report['action']:.2f})"
                 if report else ""), flush=True)

    add("import onlinear", None, *onlinear_figure("import", src=src), None)
    for name in dict.fromkeys(names):
        add("first dense fit", name, *onlinear_figure("fit", name, src=src), 5.0)
    for family, name in FAMILIES.items():
        add("fit+CSR fit+learn_one+predict_one", name,
            *onlinear_figure("fit+csr+one", name, src=src), 12.0)
    with tempfile.TemporaryDirectory() as folder:
        paths = saved_models(folder, FAMILIES.values(), src)
        for name, path in paths.items():
            add("load(path).predict(X)", name,
                *onlinear_figure("load+predict", path=path, src=src), 3.0)
    with tempfile.TemporaryDirectory() as work:
        cpu, _ = child(None, src, cwd=work, args=[sys.executable, "-m", "onlinear", "compare"])
        add("onlinear compare (README)", None, cpu, None, 60.0)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one learner per family")
    parser.add_argument("--baseline-src", help="an older source tree to time as well")
    parser.add_argument("--out", help="write every figure as JSON")
    args = parser.parse_args(argv)

    bare_cpu, bare = child(BARE.replace("HERE", repr(str(HERE))))
    print(f"  bare loop (numba, empty cache): {bare_cpu:.2f} s CPU "
          f"(import {bare['import']:.2f}, compile + pass {bare['action']:.2f})", flush=True)
    rows = measure(None, args.quick, "onlinear")
    if args.baseline_src:
        rows += measure(str(Path(args.baseline_src).resolve()), args.quick, "baseline")

    print("\nCPU seconds, the worst learner of each figure: the timed call alone (what the goal"
          "\nbounds) and the whole fresh process (interpreter, imports, USPS, the call)")
    print(f"  {'':9s} {'figure':34s} {'call':>7s} {'process':>8s} {'goal':>5s} "
          f"{'call / bare compile':>20s}  met")
    for label in dict.fromkeys(row["version"] for row in rows):
        for what in dict.fromkeys(row["what"] for row in rows):
            chosen = [r for r in rows if r["version"] == label and r["what"] == what]
            if not chosen:
                continue
            key = "action_s" if chosen[0]["action_s"] is not None else "cpu_s"
            worst = max(chosen, key=lambda r: r[key])
            goal = worst["goal_s"]
            call = worst[key]
            met = "" if goal is None else ("yes" if call <= goal else "NO")
            print(f"  {label:9s} {what:34s} {call:7.2f} {worst['cpu_s']:8.2f} {goal or '':>5} "
                  f"{call / bare['action']:20.2f}  {met}  ({worst['learner'] or '-'})")
    if args.out:
        Path(args.out).write_text(json.dumps({"bare": {"cpu_s": bare_cpu, **bare},
                                              "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
