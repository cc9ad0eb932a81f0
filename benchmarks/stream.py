"""From text, side by side in one run: `onlinear train`, `predict` and `evaluate` on a
MNIST-like LIBSVM file (plain and gzip'ed) against Vowpal Wabbit (`vw --oaa 10`, from the
`vowpalwabbit` package) on its VW-format twin, the previous onlinear reader (scikit-learn's
`load_svmlight_file` a chunk) and the in-memory pass; CPU time and peak memory of each process,
and the peak on a file 4x longer (memory does not grow with the stream).  The children read
bytecode as an installed package does (compiled once, into a temporary folder of the run's).

    python benchmarks/stream.py                 # 60,000 rows (254 MiB), 4x for the memory run
    python benchmarks/stream.py --rows 300000   # the 1 GB file of issue [22]
    python benchmarks/stream.py --quick         # 6,000 rows
    python benchmarks/stream.py --pairs 3       # and medians of 3 alternating runs beside VW

The files are written under a temporary folder (``--folder``, default the system's) and
deleted after, or kept in ``--data-folder`` (and read from it by a later run of the same rows).
Each measurement is a fresh process, its CPU (user + system) read with ``wait4`` and its peak
resident memory by itself at exit (Linux's ``VmHWM``: ``wait4``'s ``ru_maxrss`` of a child
spawned by vfork starts at the parent's peak — this script's, which writes the files); the
compiled code is built and imported once before.
"""
import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CLASSES = list(range(1, 11))
PIXELS = 784

TRAIN = """
import sys
from onlinear.cli import main
main(sys.argv[1:])
"""

# The reader before the compiled one (onlinear 0.x up to issue [22]): lines read one at a time,
# each chunk parsed by scikit-learn's load_svmlight_file, then learned.
PREVIOUS = """
import io, sys
import numpy as np
from sklearn.datasets import load_svmlight_file
import onlinear
from onlinear.data._files import open_binary
path, chunk = sys.argv[1], int(sys.argv[2])
model = onlinear.make("pa1")
def learn(lines):
    X, y = load_svmlight_file(io.BytesIO(b"".join(lines)), n_features=%d, zero_based=False)
    model.partial_fit(X, y.astype(np.int64), classes=%r)
lines = []
with open_binary(path) as handle:
    for line in handle:
        if line.split(b"#", 1)[0].strip():
            lines.append(line)
            if len(lines) == chunk:
                learn(lines)
                lines = []
if lines:
    learn(lines)
""" % (PIXELS, CLASSES)

# The compiled reader without reading ahead: parse, then learn, on one thread.
SERIAL = """
import sys
import numpy as np
import onlinear
from onlinear.data.libsvm import _located_chunks
path, chunk = sys.argv[1], int(sys.argv[2])
chunks = ((X, y.astype(np.int64)) for X, y, _, _ in _located_chunks(path, chunk, None))
model = onlinear.learn_stream(onlinear.make("pa1"), chunks, classes=%r)
np.save(sys.argv[3], model.coef_)
""" % (CLASSES,)

AHEAD = """
import sys
import numpy as np
import onlinear
from onlinear.data import iter_libsvm_chunks
path, chunk = sys.argv[1], int(sys.argv[2])
chunks = ((X, y.astype(np.int64)) for X, y in iter_libsvm_chunks(path, chunk, None,
                                                                       read_ahead=True))
model = onlinear.learn_stream(onlinear.make("pa1"), chunks, classes=%r)
np.save(sys.argv[3], model.coef_)
""" % (CLASSES,)

IN_MEMORY = """
import sys, time
import numpy as np
import onlinear
from onlinear.data import load_libsvm
X, y = load_libsvm(sys.argv[1], n_features=%d)
y = y.astype(np.int64)
model = onlinear.make("pa1")  # (the estimators, and scikit-learn, imported before the clock)
start = time.process_time()
model.fit(X, y)
print(time.process_time() - start)
""" % (PIXELS,)

# what `onlinear train` imports before it reads a line (its module, the estimators)
IMPORTS = """
from onlinear.cli.group import cli
from onlinear.cli.imports import import_estimators
cli.get_command(None, "train")
import_estimators()
"""

VW = """
import sys
from vowpalwabbit import Workspace
vw = Workspace(" ".join(sys.argv[1:]))
vw.run_parser()
vw.finish()
"""


# the child's own peak resident memory, told at its exit (see the module's docstring)
PEAK = """
import atexit, sys
def _peak():
    try:
        with open("/proc/self/status") as status:
            kib = next(line.split()[1] for line in status if line.startswith("VmHWM"))
    except (OSError, StopIteration):
        return
    sys.stderr.write(f"\\npeak-kib {kib}\\n")
atexit.register(_peak)
"""


# The children's environment: bytecode read from (and on a first import written to) a folder of
# the run's own, as an installed package reads what pip compiled at install time.  Without it, an
# environment that sets PYTHONDONTWRITEBYTECODE (and a source checkout, which has no bytecode)
# compiles onlinear's ~70 modules from source in every process: ~0.1 s of CPU.
CHILD_ENV = dict(os.environ)


def _run(code, *args):
    """Run in a child and measure it: CPU (user + system) with wait4, peak RSS (MiB) as the
    child tells it (wait4's ru_maxrss where it cannot)."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", PEAK + code, *map(str, args)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=CHILD_ENV)
    out_file, err_file = process.stdout, process.stderr
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    out, err = out_file.read().decode(), err_file.read().decode()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} failed:\n{err}")
    told = [line.split()[1] for line in err.splitlines() if line.startswith("peak-kib ")]
    peak = int(told[-1]) / 1024 if told else usage.ru_maxrss / 1024
    return usage.ru_utime + usage.ru_stime, wall, peak, out


def _prototypes(rng):
    """Ten smooth 28x28 'digit' intensity maps, overlapping enough that the task is not
    separable (a test accuracy near MNIST's for linear learners)."""
    grid = np.stack(np.meshgrid(np.arange(28), np.arange(28), indexing="ij"), -1).reshape(-1, 2)
    maps = []
    for _ in CLASSES:
        centres = rng.uniform(9, 19, size=(4, 2))
        field = sum(np.exp(-((grid - c) ** 2).sum(1) / rng.uniform(8, 30)) for c in centres)
        maps.append(field / field.max())
    return np.array(maps)


def _write(svm_path, vw_path, rows, seed):
    """``rows`` MNIST-like rows: ~20% of 784 pixels lit, values k/255 printed as Python prints
    them (MNIST scaled to [0, 1], as LIBSVM's site ships it)."""
    rng = np.random.default_rng(seed)
    maps = _prototypes(np.random.default_rng(0))
    text = np.array([repr(k / 255) for k in range(256)])
    with open(svm_path, "w") as svm, open(vw_path, "w") as vw:
        for start in range(0, rows, 2000):
            n = min(2000, rows - start)
            labels = rng.integers(0, 10, size=n)
            intensity = maps[labels] * rng.uniform(0.6, 1.4, size=(n, 1)) \
                + rng.normal(0, 0.7, size=(n, PIXELS))
            pixels = np.clip(np.round(intensity * 255), 0, 255).astype(int)
            pixels[intensity < 0.45] = 0
            svm_lines, vw_lines = [], []
            for label, row in zip(labels, pixels):
                lit = np.flatnonzero(row)
                tokens = " ".join(f"{j + 1}:{v}" for j, v in zip(lit, text[row[lit]]))
                svm_lines.append(f"{label + 1} {tokens}\n")
                vw_lines.append(f"{label + 1} | {tokens}\n")
            svm.write("".join(svm_lines))
            vw.write("".join(vw_lines))


def _gzip(path):
    subprocess.run(["gzip", "-k", "-1", "-f", str(path)], check=True)
    return Path(str(path) + ".gz")


def _repeat(source, target, times):
    with open(target, "wb") as out:
        for _ in range(times):
            with open(source, "rb") as handle:
                shutil.copyfileobj(handle, out, 1 << 22)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=60_000)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--chunk-size", type=int, default=4096)
    parser.add_argument("--folder", default=None)
    parser.add_argument("--data-folder", default=None,
                        help="write the files here, kept (a later run of as many rows reads "
                        "them); the 4x files are deleted after use all the same")
    parser.add_argument("--pairs", type=int, default=0, metavar="N",
                        help="also run train (plain, gzip), predict and evaluate and their VW "
                        "counterparts N times each, alternating, and give the medians")
    parser.add_argument("--no-longer", action="store_true",
                        help="skip the run on the file repeated 4 times")
    parser.add_argument("--no-previous", action="store_true",
                        help="skip the previous reader (slow on large files)")
    args = parser.parse_args()
    rows = 6000 if args.quick else args.rows
    try:
        import vowpalwabbit  # noqa: F401
        have_vw = True
    except ImportError:
        have_vw = False
    with _data_folder(args, rows) as folder, \
            tempfile.TemporaryDirectory(prefix="stream-bytecode-", dir=args.folder) as bytecode:
        train, train_vw = folder / "train.svm", folder / "train.vw"
        test, test_vw = folder / "test.svm", folder / "test.vw"
        if not (folder / "written").exists():
            _write(train, train_vw, rows, seed=1)
            _write(test, test_vw, max(rows // 6, 1000), seed=2)
            _gzip(train), _gzip(train_vw)
            (folder / "written").touch()
        train_gz, train_vw_gz = Path(f"{train}.gz"), Path(f"{train_vw}.gz")
        size = os.path.getsize(train) / 2**20
        print(f"{rows:,} rows x {PIXELS} features, {size:,.0f} MiB LIBSVM "
              f"({os.path.getsize(train_gz) / 2**20:,.0f} MiB gzip'ed), 10 classes; "
              f"chunks of {args.chunk_size:,} rows")
        model, vw_model = folder / "m.onlinear", folder / "vw.model"
        classes = ",".join(map(str, CLASSES))
        CHILD_ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        CHILD_ENV["PYTHONPYCACHEPREFIX"] = bytecode
        # every child's code run once on the small test file first: its modules' bytecode
        # written, the compiled cores loaded once (the clock runs after)
        _run(TRAIN, "train", "pa1", test, "--save", model, "--quiet", "--classes", classes)
        _run(TRAIN, "predict", model, test, "--output", folder / "p.txt")
        _run(TRAIN, "evaluate", model, test)
        for code in (SERIAL, AHEAD):
            _run(code, test, args.chunk_size, folder / "warm.npy")
        _run(IN_MEMORY, test)
        if not args.no_previous:
            _run(PREVIOUS, test, args.chunk_size)
        if have_vw:
            _run(VW, "--oaa", "10", "-d", test_vw, "-f", vw_model, "--quiet")
        results = {}

        def row(name, measured):
            cpu, wall, peak, _ = measured
            results[name] = measured
            print(f"  {name:<48} CPU {cpu:7.2f} s  wall {wall:7.2f} s  peak {peak:6.0f} MiB  "
                  f"{rows / cpu:10,.0f} rows/CPU-s", flush=True)

        row("baseline: train's imports (no data)", _run(IMPORTS))
        if have_vw:
            row("baseline: python -c 'import vowpalwabbit'", _run("import vowpalwabbit"))
        row("onlinear train pa1 (--classes)",
            _run(TRAIN, "train", "pa1", train, "--save", model, "--quiet", "--classes", classes,
                 "--chunk-size", args.chunk_size))
        row("onlinear train pa1 (--classes), gzip",
            _run(TRAIN, "train", "pa1", train_gz, "--save", model, "--quiet", "--classes",
                 classes, "--chunk-size", args.chunk_size))
        row("onlinear train pa1 (classes scanned)",
            _run(TRAIN, "train", "pa1", train, "--save", model, "--quiet",
                 "--chunk-size", args.chunk_size))
        row("onlinear predict", _run(TRAIN, "predict", model, train, "--output",
                                     folder / "p.txt", "--chunk-size", args.chunk_size))
        row("onlinear evaluate", _run(TRAIN, "evaluate", model, train,
                                      "--chunk-size", args.chunk_size))
        accuracy = _run(TRAIN, "evaluate", model, test)[3].split()[-1]
        if have_vw:
            row("vw --oaa 10", _run(VW, "--oaa", "10", "-d", train_vw, "-f", vw_model,
                                    "--quiet"))
            row("vw --oaa 10, gzip", _run(VW, "--oaa", "10", "-d", train_vw_gz, "-f",
                                          vw_model, "--quiet", "--compressed"))
            row("vw -t (predict)", _run(VW, "-t", "-i", vw_model, "-d", train_vw, "--quiet",
                                        "-p", folder / "vw.pred"))
            _run(VW, "-t", "-i", vw_model, "-d", test_vw, "--quiet", "-p", folder / "vw.pred")
            predicted = np.loadtxt(folder / "vw.pred")
            truth = np.array([int(line.split(b" ", 1)[0]) for line in open(test_vw, "rb")])
            vw_accuracy = f"{np.mean(predicted == truth):.4f}"
        else:
            print("  (vowpalwabbit not installed: no VW figures)")
        serial_coef, ahead_coef = folder / "serial.npy", folder / "ahead.npy"
        row("compiled reader, serial (learn_stream)",
            _run(SERIAL, train, args.chunk_size, serial_coef))
        row("compiled reader, read ahead (learn_stream)",
            _run(AHEAD, train, args.chunk_size, ahead_coef))
        same = np.array_equal(np.load(serial_coef), np.load(ahead_coef))
        if not args.no_previous:
            row("previous reader (sklearn a chunk) + partial_fit",
                _run(PREVIOUS, train, args.chunk_size))
        in_memory = _run(IN_MEMORY, train)
        print(f"  {'in-memory pass (fit on loaded arrays)':<48} CPU {float(in_memory[3]):7.2f} s"
              f"  (load_libsvm + fit: CPU {in_memory[0]:.2f} s, peak {in_memory[2]:.0f} MiB)")

        ours = results["onlinear train pa1 (--classes)"]
        print("ratios (CPU):")
        if have_vw:
            print(f"  vw / onlinear train, plain: {results['vw --oaa 10'][0] / ours[0]:.2f}"
                  f"   gzip: {results['vw --oaa 10, gzip'][0] / results['onlinear train pa1 (--classes), gzip'][0]:.2f}")
            print(f"  peak memory onlinear / vw: {ours[2] / results['vw --oaa 10'][2]:.2f}")
        if not args.no_previous:
            print(f"  previous reader / onlinear train: "
                  f"{results['previous reader (sklearn a chunk) + partial_fit'][0] / ours[0]:.2f}")
        print(f"  scanned classes / --classes: "
              f"{results['onlinear train pa1 (classes scanned)'][0] / ours[0]:.2f}")
        serial, ahead = results["compiled reader, serial (learn_stream)"], \
            results["compiled reader, read ahead (learn_stream)"]
        print(f"  read ahead vs serial: wall {serial[1] / ahead[1]:.2f}x faster, CPU "
              f"{ahead[0] / serial[0]:.2f}x; models bit-identical: {same}")
        print(f"test accuracy: onlinear pa1 {accuracy}"
              + (f", vw --oaa 10 (its default learner) {vw_accuracy}" if have_vw else ""))

        if args.pairs and have_vw:
            _side_by_side(args.pairs, {
                "train": ((TRAIN, "train", "pa1", train, "--save", model, "--quiet",
                           "--classes", classes, "--chunk-size", args.chunk_size),
                          (VW, "--oaa", "10", "-d", train_vw, "-f", vw_model, "--quiet")),
                "train, gzip": ((TRAIN, "train", "pa1", train_gz, "--save", model, "--quiet",
                                 "--classes", classes, "--chunk-size", args.chunk_size),
                                (VW, "--oaa", "10", "-d", train_vw_gz, "-f", vw_model,
                                 "--quiet", "--compressed")),
                "predict": ((TRAIN, "predict", model, train, "--output", folder / "p.txt",
                             "--chunk-size", args.chunk_size),
                            (VW, "-t", "-i", vw_model, "-d", train_vw, "--quiet", "-p",
                             folder / "vw.pred")),
                "evaluate": ((TRAIN, "evaluate", model, train, "--chunk-size",
                              args.chunk_size),
                             (VW, "-t", "-i", vw_model, "-d", train_vw, "--quiet"))})

        # memory independent of the stream's length: the file and 4 times it, and VW beside
        if args.no_longer:
            return
        longer, longer_vw = folder / "train4.svm", folder / "train4.vw"
        _repeat(train, longer, 4)
        if have_vw:
            _repeat(train_vw, longer_vw, 4)
        print("the file and 4 times it (CPU, peak memory):")
        for name, path, path_vw in (("1x", train, train_vw), ("4x", longer, longer_vw)):
            cpu, wall, peak, _ = _run(TRAIN, "train", "pa1", path, "--save", model, "--quiet",
                                      "--classes", classes, "--chunk-size", args.chunk_size)
            line = (f"  {name} ({os.path.getsize(path) / 2**20:,.0f} MiB): onlinear train "
                    f"CPU {cpu:6.2f} s, peak {peak:4.0f} MiB")
            if have_vw:
                vw_cpu, _, vw_peak, _ = _run(VW, "--oaa", "10", "-d", path_vw, "-f", vw_model,
                                             "--quiet")
                line += (f"   vw --oaa 10 CPU {vw_cpu:6.2f} s, peak {vw_peak:4.0f} MiB   "
                         f"ratio vw / onlinear CPU {vw_cpu / cpu:.2f}")
            print(line, flush=True)
        longer.unlink()
        if have_vw:
            longer_vw.unlink()


def _side_by_side(pairs, commands):
    """Each onlinear command and its VW counterpart run ``pairs`` times, alternating (a load
    that comes and goes falls on both): the median CPU, the largest peak, the ratio of the
    medians."""
    print(f"side by side, {pairs} alternating runs each (median CPU, largest peak):")
    for name, (ours, theirs) in commands.items():
        runs = [(_run(*ours), _run(*theirs)) for _ in range(pairs)]
        cpu = [np.median([run[side][0] for run in runs]) for side in (0, 1)]
        peak = [max(run[side][2] for run in runs) for side in (0, 1)]
        each = ", ".join(f"{a[0] / b[0]:.2f}" for a, b in runs)
        print(f"  {name:<12} onlinear CPU {cpu[0]:6.2f} s, peak {peak[0]:4.0f} MiB   vw CPU "
              f"{cpu[1]:6.2f} s, peak {peak[1]:4.0f} MiB   onlinear / vw CPU "
              f"{cpu[0] / cpu[1]:.2f} (each pair: {each})", flush=True)


@contextlib.contextmanager
def _data_folder(args, rows):
    """The folder of the files: kept under ``--data-folder``, else temporary."""
    if args.data_folder is None:
        with tempfile.TemporaryDirectory(dir=args.folder) as folder:
            yield Path(folder)
        return
    folder = Path(args.data_folder) / f"rows{rows}"
    folder.mkdir(parents=True, exist_ok=True)
    yield folder


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"({time.perf_counter() - start:.0f} s; timings on a shared machine: see README)")
