"""Beyond one machine: what a Dask cluster costs and buys, on this machine.

    python benchmarks/distributed.py            # the 100-cell USPS grid, then IPM on MNIST-sized
    python benchmarks/distributed.py --quick    # a 24-cell grid, 10,000 rows for IPM

1. An experiment grid of 100 cells on USPS (4 algorithms; 5 values of C searched by one pass
   each, then 20 seeded permutations of the best; once with one epoch per permutation cell,
   once with ten): serial ``harness.compare`` against the same call with ``client=`` on a
   ``LocalCluster`` of 2 worker processes.  Prints both wall times, the speed-up and the
   overhead per cell, ``(2 × parallel wall − serial wall) / cells``: the worker-seconds a cell
   costs beyond its own work (scheduling, the results coming back).  The cluster's start-up
   and the workers' first load of the compiled code are timed apart.  The tables are checked
   equal.
2. Iterative parameter mixing on the MNIST-sized workload (``workloads.make_dense``): the
   serial learner and ``ParameterMixing`` with 1, 2 and 4 shards (a dask array chunked by rows,
   on the same 2 workers): test accuracy after each epoch, seconds per epoch (the first
   includes sending, placing and validating the shards), and the bytes of models moved per
   epoch (the mixed model to each worker, one model back per shard; pickled sizes).

Run it alone on the machine: ``flock /tmp/onlinear-bench.lock python benchmarks/distributed.py``.
"""
import argparse
import importlib.util
import os
import sys
import time

import numpy as np

# This file is named like the package `distributed`: take its folder off the path (Python puts
# it first) so that `import distributed` finds the package, and load the workloads by path.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
_spec = importlib.util.spec_from_file_location("workloads", os.path.join(HERE, "workloads.py"))
workloads = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(workloads)

import onlinear  # noqa: E402
from onlinear import harness  # noqa: E402
from onlinear.data import load_usps  # noqa: E402
from onlinear.distributed import ParameterMixing  # noqa: E402


def grid_benchmark(client, n_workers, quick, epochs):
    X, y, X_test, y_test = load_usps()
    algorithms = ["pa1", "pa2", "spa1", "spa2"]
    values = [0.001, 0.01, 0.1, 1.0, 10.0]
    permutations = 2 if quick else 20
    grid = dict(algorithms=algorithms, grid={"C": values[:4] if quick else values},
                permutations=permutations, random_state=0, X_test=X_test, y_test=y_test,
                epochs=epochs)
    cells = len(algorithms) * (len(grid["grid"]["C"]) + permutations)
    for where in (None, client):  # compile here, load the compiled paths in every worker
        harness.compare(X[:200], y[:200], algorithms, permutations=4, grid={"C": [1.0]},
                        client=where)
    start = time.perf_counter()
    serial = harness.compare(X, y, **grid)
    serial_wall = time.perf_counter() - start
    start = time.perf_counter()
    parallel = harness.compare(X, y, client=client, **grid)
    parallel_wall = time.perf_counter() - start
    equal = all(np.array_equal(a.mistakes, b.mistakes) and a.test_errors == b.test_errors
                for a, b in zip(serial.runs, parallel.runs)) and len(serial.runs) == len(
        parallel.runs)
    overhead = (n_workers * parallel_wall - serial_wall) / cells
    print(f"\n## Grid: {cells} cells on USPS ({X.shape[0]:,} rows), {epochs} epoch"
          f"{'s' * (epochs > 1)} per permutation cell, test set scored after each epoch")
    print(f"serial                 {serial_wall:8.2f} s   ({serial_wall / cells * 1e3:.1f} ms per "
          "cell)")
    print(f"{n_workers} workers              {parallel_wall:8.2f} s   speed-up "
          f"{serial_wall / parallel_wall:.2f}x")
    print(f"overhead per cell      {overhead * 1e3:8.1f} ms   (worker-seconds beyond the serial "
          "work)")
    print(f"tables equal cell by cell: {equal}")


def ipm_benchmark(client, quick, n_epochs, algorithm):
    import warnings

    from dask import array as da

    # the training rows travel inside the graph of `from_array` (the first epoch pays for it);
    # dask warns about such a large graph, which here is the point
    warnings.filterwarnings("ignore", message="Sending large graph")

    n_train = 10_000 if quick else 60_000
    X, y, X_test, y_test = workloads.make_dense(n_train=n_train)
    print(f"\n## IPM: {algorithm}, MNIST-sized ({X.shape[0]:,} x {X.shape[1]} float32, 10 "
          f"classes), {n_epochs} epochs; test accuracy after each epoch, seconds per epoch")
    serial = onlinear.make(algorithm)
    stream = serial.stream(X, y, classes=np.unique(y))
    accuracy, seconds = [], []
    for _ in range(n_epochs):
        start = time.perf_counter()
        stream.learn(np.arange(X.shape[0]))
        seconds.append(time.perf_counter() - start)
        accuracy.append(serial.score(X_test, y_test))
    _row("serial (in process)", accuracy, seconds, None)
    for n_shards in (1, 2, 4):
        data = da.from_array(X, chunks=(-(-X.shape[0] // n_shards), X.shape[1]))
        ipm = ParameterMixing(onlinear.make(algorithm), n_epochs=n_epochs, mixing="uniform",
                              client=client)
        accuracy, seconds = [], []
        epochs = ipm.iter_fit(data, y)
        while True:
            start = time.perf_counter()
            try:
                next(epochs)
            except StopIteration:
                break
            seconds.append(time.perf_counter() - start)
            accuracy.append(ipm.score(X_test, y_test))
        first = ipm.history_.where(epoch=1, shard=0)[0]
        _row(f"IPM, {n_shards} shard{'s' * (n_shards > 1)}", accuracy, seconds,
             first["bytes_sent"] + first["bytes_received"])


def _row(label, accuracy, seconds, moved):
    acc = " ".join(f"{a:.4f}" for a in accuracy)
    secs = " ".join(f"{s:.3f}" for s in seconds)
    traffic = "" if moved is None else f"   models moved per epoch {moved / 1e3:,.1f} kB"
    print(f"{label:22s} accuracy {acc}   s/epoch {secs}{traffic}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small grid and 10,000 rows")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--epochs", type=int, default=5, help="IPM epochs (default 5)")
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    start = time.perf_counter()
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.run(lambda: __import__("onlinear.distributed.grid"))
        print(f"cluster of {args.workers} worker processes up in "
              f"{time.perf_counter() - start:.2f} s (onlinear imported in each)")
        for epochs in (1, 10):
            grid_benchmark(client, args.workers, args.quick, epochs)
        for algorithm in ("perceptron", "pa1"):
            ipm_benchmark(client, args.quick, args.epochs, algorithm)


if __name__ == "__main__":
    main()
