"""`onlinear train` on a LIBSVM file of the news20-sized sparse workload, next to reading the
whole file with `onlinear.data.load_libsvm` and one `fit`; and the peak memory of a streamed
training on a file 10× longer than the chunk, next to one 10× longer still.

    python benchmarks/stream.py            # 20,000 rows × 60,000 features, 20 classes
    python benchmarks/stream.py --quick    # 4,000 rows

Each measurement runs in a fresh interpreter (so peak memory is its own), alternating the two
ways `--repeats` times; the ratios of the medians are printed.  The numba cache is warmed first.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import workloads  # noqa: E402

WHOLE = """
import resource, sys, time
import onlinear
from onlinear.data import load_libsvm
start = time.perf_counter()
X, y = load_libsvm(sys.argv[1])
onlinear.make("pa").fit(X, y.astype(int))
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

STREAMED = """
import resource, sys, time
from onlinear.cli import main
start = time.perf_counter()
try:
    main(["train", "pa", sys.argv[1], "--save", sys.argv[2], "--chunk-size", sys.argv[3],
          "--quiet", "--classes", ",".join(str(c) for c in range(20))])
except SystemExit as done:
    assert done.code in (0, None), done.code
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _run(code, *args):
    out = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                         text=True, check=True)
    seconds, peak_kb = out.stdout.split()
    return float(seconds), int(peak_kb) / 1024


def _write(path, X, y, repeat=1):
    from sklearn.datasets import dump_svmlight_file

    with open(path, "wb") as handle:
        for _ in range(repeat):
            dump_svmlight_file(X, y, handle, zero_based=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--chunk-size", type=int, default=2000)
    args = parser.parse_args()
    data = workloads.load("sparse", quick=args.quick)
    X, y = data.X_train, data.y_train
    with tempfile.TemporaryDirectory() as folder:
        train = Path(folder) / "train.svm"
        _write(train, X, y)
        model = Path(folder) / "m.onlinear"
        _run(STREAMED, train, model, args.chunk_size)  # warm the numba cache
        whole, streamed = [], []
        for _ in range(args.repeats):  # interleaved
            whole.append(_run(WHOLE, train))
            streamed.append(_run(STREAMED, train, model, args.chunk_size))
        n = X.shape[0]
        t_whole = statistics.median(t for t, _ in whole)
        t_stream = statistics.median(t for t, _ in streamed)
        print(f"{n:,} rows x {X.shape[1]:,} features ({X.nnz:,} non-zeros), "
              f"{os.path.getsize(train) / 2**20:,.0f} MiB LIBSVM; median of {args.repeats}")
        print(f"  load_libsvm + fit : {t_whole:7.2f} s  {n / t_whole:10,.0f} examples/s  "
              f"peak {statistics.median(m for _, m in whole):7.0f} MiB")
        print(f"  onlinear train    : {t_stream:7.2f} s  {n / t_stream:10,.0f} examples/s  "
              f"peak {statistics.median(m for _, m in streamed):7.0f} MiB")
        print(f"  ratio train / (load + fit) examples/s: {t_whole / t_stream:.2f}")

        # memory does not grow with the stream: 10x and 100x the chunk
        rows = 10 * args.chunk_size
        short, long = Path(folder) / "short.svm", Path(folder) / "long.svm"
        _write(short, X[:rows], y[:rows])
        _write(long, X[:rows], y[:rows], repeat=10)
        peaks = {name: statistics.median(_run(STREAMED, path, model, args.chunk_size)[1]
                                         for _ in range(args.repeats))
                 for name, path in (("10x chunk", short), ("100x chunk", long))}
        for name, peak in peaks.items():
            print(f"  peak memory, stream of {name:>10}: {peak:7.0f} MiB")
        print(f"  ratio of peaks (100x / 10x): {peaks['100x chunk'] / peaks['10x chunk']:.2f}")


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"({time.perf_counter() - start:.0f} s)")
