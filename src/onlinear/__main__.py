"""``python -m onlinear``: the main job — every registered algorithm trained online for one pass
on the USPS data shipped with the package, with the online mistake rate, the number of updates,
the test error and the time of each."""
import time

from .datasets import load_usps
from .registry import available, make


def compare_on_usps():
    X, y, X_test, y_test = load_usps()
    rows = []
    for name in available("multiclass"):
        make(name).fit(X[:50], y[:50])  # compile (or load the cache) outside the timing
        model = make(name)
        start = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - start
        rows.append((name, model.n_mistakes_ / model.n_seen_, model.n_updates_,
                     1.0 - model.score(X_test, y_test), seconds))
    return rows


def main():
    print("USPS (7,291 training / 2,007 test rows, 10 classes), one online pass, default parameters")
    print(f"{'algorithm':<20} {'online mistakes':>15} {'updates':>8} {'test error':>10} {'seconds':>8}")
    for name, mistake_rate, updates, test_error, seconds in compare_on_usps():
        print(f"{name:<20} {mistake_rate:>15.2%} {updates:>8d} {test_error:>10.2%} {seconds:>8.3f}")


if __name__ == "__main__":
    main()
