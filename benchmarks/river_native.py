"""onlinear inside river: accuracy and examples/s of progressive validation, next to river's own
linear classifiers and to onlinear through river's scikit-learn compat wrapper.

Every model runs as ``preprocessing.StandardScaler() | model`` in
``evaluate.progressive_val_score`` with ``metrics.Accuracy()`` on river's bundled streams
(Phishing, ImageSegments and the 49,097-example Shuttle; nothing is downloaded).  The streams are
read into lists first (CSV parsing is not timed), every model makes one untimed warm-up pass over
a short slice (numba's compilation, once per process), and the timed runs are interleaved: repeat
r runs every model once before repeat r + 1.  Reported: accuracy (deterministic), the median
examples/s (the scaler's cost, shared by all, included), and the ratios of the adapter's speed to
river's OvR(PA) and to the compat wrapper.

    python benchmarks/river_native.py            # 3 repeats, a few minutes
    python benchmarks/river_native.py --quick    # 1 repeat, Shuttle cut to 10,000 examples
"""
import argparse
import itertools
import statistics
import time

from river import (compat, compose, datasets, evaluate, linear_model, metrics, multiclass,
                   preprocessing)

import onlinear
from onlinear.river_adapter import RiverClassifier


def _with_constant(x):
    return {**x, "constant": 1.0}


def models(labels, dataset):
    """name → factory of a fresh model."""
    out = {f"onlinear {name}": (lambda name=name: RiverClassifier(name))
           for name in ("pa", "pa1", "mira")}
    if dataset != "Shuttle":  # the support set grows with the stream: the small streams only
        out["onlinear kernel-pa (rbf)"] = lambda: RiverClassifier(
            # after the scaler every feature has unit variance: "scale" is 1/n_features, "auto"
            # (a stream's first call takes no "scale": it is a statistic of the whole data)
            onlinear.make("kernel-pa", kernel="rbf", gamma="auto"))
    out["onlinear pa, hashed 2^10"] = lambda: RiverClassifier("pa", n_features=2 ** 10)
    # river's PAClassifier learns an intercept by default; onlinear's pa has none: a constant
    # feature gives it one (it matters on Shuttle, 93% of one class)
    out["onlinear pa + constant 1"] = lambda: compose.FuncTransformer(_with_constant) | \
        RiverClassifier("pa")
    out["river OvR(PAClassifier)"] = lambda: multiclass.OneVsRestClassifier(
        linear_model.PAClassifier())
    out["river SoftmaxRegression"] = linear_model.SoftmaxRegression
    out["onlinear pa via compat"] = lambda: compat.convert_sklearn_to_river(
        onlinear.make("pa"), classes=labels)
    return out


def run(stream, factory):
    pipeline = preprocessing.StandardScaler() | factory()
    start = time.perf_counter()
    accuracy = evaluate.progressive_val_score(stream, pipeline, metrics.Accuracy()).get()
    return accuracy, len(stream) / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true",
                        help="1 repeat, Shuttle cut to 10,000 examples")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    streams = {"Phishing": list(datasets.Phishing()),
               "ImageSegments": list(datasets.ImageSegments()),
               "Shuttle": list(itertools.islice(datasets.Shuttle(),
                                                10_000 if args.quick else None))}
    for dataset, stream in streams.items():
        labels = sorted({y for _, y in stream})
        candidates = models(labels, dataset)
        for factory in candidates.values():  # warm-up: compilation, imports
            run(stream[:200], factory)
        speeds = {name: [] for name in candidates}
        accuracy = {}
        for _ in range(repeats):
            for name, factory in candidates.items():
                accuracy[name], speed = run(stream, factory)
                speeds[name].append(speed)
        median = {name: statistics.median(s) for name, s in speeds.items()}
        print(f"\n{dataset}: {len(stream):,} examples, {len(labels)} classes, "
              f"{len(stream[0][0])} features; median of {repeats} interleaved runs")
        print(f"  {'model':<28} {'accuracy':>9} {'examples/s':>11}")
        for name in candidates:
            print(f"  {name:<28} {accuracy[name]:>9.4f} {median[name]:>11,.0f}")
        ours = median["onlinear pa"]
        print(f"  adapter pa / river OvR(PA): {ours / median['river OvR(PAClassifier)']:.2f}x; "
              f"/ SoftmaxRegression: {ours / median['river SoftmaxRegression']:.2f}x; "
              f"/ onlinear pa via compat: {ours / median['onlinear pa via compat']:.2f}x")


if __name__ == "__main__":
    main()
