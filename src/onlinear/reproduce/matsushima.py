"""Matsushima, Shimizu, Yoshida, Ninomiya & Nakagawa 2010, §5: Table 4 (online error in a
10-fold cross-validation, USPS row) and Fig. 1 (online progression on USPS at C = 0.001).

Not reproduced here: Table 4's twenty-newsgroup subsets (sb/ob/ol, from a UCD collection that is
not in our data), its Reuters and News20 rows, and Tables 5–6 (40 epochs with batch baselines).
"""
import numpy as np

from ..datasets import load_usps
from ..harness import Table
from ..registry import MATSUSHIMA
from ._framework import Claim, Experiment, Outcome
from ._protocol import cell, figure, make, mean, rng, subset

# Column names of the paper's tables → registered algorithms.  "Perc" is not defined in the
# paper; the standard multiclass Perceptron (promote y, demote the predicted class) is the
# additive family's max scheme with β = 0.
ALGORITHMS = {"Perc": "perceptron-max", "PA": "pa", "SPA": "spa", "PA-I": "pa1",
              "SPA-I": "spa1", "PA-II": "pa2", "SPA-II": "spa2"}
PAIRS = (("PA", "SPA"), ("PA-I", "SPA-I"), ("PA-II", "SPA-II"))

# Table 4, row USPS: test error (%) "according to online situation for 10-fold cross validation".
TABLE4_USPS = {"Perc": 11.74, "PA": 14.02, "SPA": 9.15, "PA-I": 11.05, "SPA-I": 8.68,
               "PA-II": 11.74, "SPA-II": 6.89}
C_GRID = (1e-3, 1e-2, 1e-1, 1.0, 10.0)
FOLDS = 10


def _has_c(name):
    return name.endswith(("-I", "-II"))


def table4_usps(quick, seeds):
    """Table 4 of Matsushima et al., USPS row: one online pass, 10-fold cross-validation.

    * Data: the 7,291 USPS training examples (the LIBSVM copy shipped in the package, as the
      paper's footnote points to; features in [−1, 1]), split at random into 10 parts per seed.
    * Per fold (§5: "one partition was used for determining the hyperparameter (C)"): part f is
      the test set, part f + 1 (mod 10) the validation set, the other 8 parts the training
      stream, seen once in a random order.  PA-I/II and SPA-I/II pick C from
      {0.001, 0.01, 0.1, 1, 10} (the paper gives no grid) by the validation error of the model
      after the pass; the test error of that same model is the fold's error.  Perc, PA and SPA
      have no C.  The cell is the mean over the 10 folds; the spread is over the seeds (random
      partitions and orders).
    * Exact updates (``variant="exact"``): the printed SPA-I/SPA-II formulas do not solve the
      paper's problems (see ``matsushima-fig1``).
    * Quick mode: a seeded subset of 1,500 examples.
    """
    X, y, _, _ = load_usps()
    if quick:
        X, y = subset(X, y, 1500, "matsushima-table4")
    classes = np.unique(y)
    per_seed = {name: [] for name in ALGORITHMS}
    chosen = []
    for seed in seeds:
        generator = rng("matsushima-table4", seed)
        parts = np.array_split(generator.permutation(X.shape[0]), FOLDS)
        fold_errors = {name: [] for name in ALGORITHMS}
        for f in range(FOLDS):
            test, validation = parts[f], parts[(f + 1) % FOLDS]
            train = np.concatenate([parts[g] for g in range(FOLDS)
                                    if g not in (f, (f + 1) % FOLDS)])
            train = train[generator.permutation(train.size)]
            for name, algorithm in ALGORITHMS.items():
                best = None
                for C in (C_GRID if _has_c(name) else (None,)):
                    model = make(algorithm, **({} if C is None else {"C": C}))
                    model.partial_fit(X[train], y[train], classes=classes)
                    val = 1.0 - model.score(X[validation], y[validation])
                    if best is None or val < best[0]:
                        best = (val, C, 1.0 - model.score(X[test], y[test]))
                fold_errors[name].append(100.0 * best[2])
                chosen.append({"seed": seed, "fold": f, "algorithm": name, "C": best[1],
                               "validation_error": 100.0 * best[0],
                               "test_error": 100.0 * best[2]})
        for name in ALGORITHMS:
            per_seed[name].append(mean(fold_errors[name]))
    cells = [cell("error % (USPS)", name, "test error %", TABLE4_USPS[name], per_seed[name],
                  "Table 4, row USPS", test_size=None if quick else X.shape[0])
             for name in ALGORITHMS]
    ours = {name: mean(values) for name, values in per_seed.items()}
    claims = [
        Claim(f"{spa} has a lower error than {pa}", "§5, Table 4",
              ours[spa] < ours[pa], f"{ours[spa]:.2f} vs {ours[pa]:.2f} (paper "
              f"{TABLE4_USPS[spa]} vs {TABLE4_USPS[pa]})") for pa, spa in PAIRS]
    ratio = np.mean([ours[spa] / ours[pa] for pa, spa in PAIRS])
    paper_ratio = np.mean([TABLE4_USPS[spa] / TABLE4_USPS[pa] for pa, spa in PAIRS])
    claims += [
        Claim("SPA-II has the lowest error of the online learners", "§5, Table 4",
              ours["SPA-II"] == min(ours.values()),
              ", ".join(f"{n} {v:.2f}" for n, v in ours.items())),
        Claim("the SPA family's error is about 0.5–0.8 × the PA family's", "§5, Table 4",
              0.5 <= ratio <= 0.8, f"mean SPA-x/PA-x ratio {ratio:.2f} (paper "
              f"{paper_ratio:.2f})"),
    ]
    notes = [
        "Trace of the 'off' cells: our PA, PA-I and PA-II solve the paper's own problems "
        "exactly (the test suite checks them against a generic QP solver) and run in the very "
        "protocol in which our SPA cells agree with the paper; the paper's PA baselines are "
        f"{min(TABLE4_USPS[pa] - ours[pa] for pa, _ in PAIRS):.1f}–"
        f"{max(TABLE4_USPS[pa] - ours[pa] for pa, _ in PAIRS):.1f} points worse than the same "
        "algorithms here, so the paper's SPA/PA error ratio "
        f"({paper_ratio:.2f}) becomes {ratio:.2f}. The paper prints neither its PA code nor its "
        "C grid; its printed PA-I/PA-II formulas use C/2 in place of C, a rescaling of C that "
        "the grid search absorbs, so the C convention does not explain the gap. The SPA "
        "formulas it prints cannot be what it ran (see matsushima-fig1).",
    ]
    return Outcome(cells, claims, {"folds": Table(chosen)}, notes)


TICK = 200


def fig1_usps(quick, seeds):
    """Fig. 1 of Matsushima et al. (and the success-rate panel of Fig. 2): one online pass over
    USPS at C = 0.001, cumulative mistakes and updates every 200 examples.

    * Data: the 7,291 USPS training examples (shipped LIBSVM copy), one random order per seed
      (the paper does not state its order).
    * C = 0.001 for every learner that has one, as printed.  Besides the exact learners, the
      SPA-I and SPA-II formulas as printed in the paper's Table 2 (``variant="printed"``) and
      PA-I/PA-II as printed (C/2 in place of C) are run, to show what the printed formulas do.
    * Fig. 2's accumulated-loss panel is not reproduced (it needs the pre-update loss of every
      round); its success-rate panel is 1 − cumulative mistakes / examples.
    * The paper's figure has no readable numbers: only its claims are checked.
    * Quick mode: 1,500 examples.
    """
    X, y, _, _ = load_usps()
    if quick:
        X, y = subset(X, y, 1500, "matsushima-fig1")
    classes = np.unique(y)
    learners = {name: (algorithm, {} if name in ("Perc", "PA", "SPA") else
                       {"C": 1e-3, "variant": "exact"})
                for name, algorithm in ALGORITHMS.items()}
    for name in ("PA-I", "PA-II", "SPA-I", "SPA-II"):
        learners[f"{name} (printed)"] = (ALGORITHMS[name], {"C": 1e-3, "variant": "printed"})
    stops = list(range(TICK, X.shape[0], TICK)) + [X.shape[0]]
    rows = []
    for seed in seeds:
        order = rng("matsushima-fig1", seed).permutation(X.shape[0])
        for name, (algorithm, params) in learners.items():
            model = make(algorithm, **params)
            start = 0
            for stop in stops:
                part = order[start:stop]
                model.partial_fit(X[part], y[part], classes=classes)
                rows.append({"algorithm": name, "seed": seed, "examples": stop,
                             "mistakes": int(model.n_mistakes_),
                             "updates": int(model.n_updates_),
                             "success_rate": 1.0 - model.n_mistakes_ / stop})
                start = stop
    curves = Table(rows)
    final = {name: {q: mean([r[q] for r in rows if r["algorithm"] == name
                             and r["examples"] == X.shape[0]])
                    for q in ("mistakes", "updates")} for name in learners}
    claims = []
    for pa, spa in PAIRS:
        claims.append(Claim(f"{spa} makes fewer cumulative mistakes than {pa} and Perc",
                            "§5, Fig. 1", final[spa]["mistakes"] < min(
                                final[pa]["mistakes"], final["Perc"]["mistakes"]),
                            f"{final[spa]['mistakes']:.0f} vs {final[pa]['mistakes']:.0f} "
                            f"and {final['Perc']['mistakes']:.0f}"))
        claims.append(Claim(f"{spa}'s cumulative updates end lower than {pa}'s", "§5, Fig. 1",
                            final[spa]["updates"] < final[pa]["updates"],
                            f"{final[spa]['updates']:.0f} vs {final[pa]['updates']:.0f}"))
    for name in ("SPA-I", "SPA-II"):
        printed = final[f"{name} (printed)"]
        claims.append(Claim(f"{name} as printed (Table 2) learns at C = 0.001", "§3, Table 2",
                            printed["updates"] > 0,
                            f"{printed['updates']:.0f} updates, {printed['mistakes']:.0f} "
                            f"mistakes (exact {name}: {final[name]['updates']:.0f} updates)"))
    notes = ["Trace: the SPA-I and SPA-II formulas printed in the paper's Table 2 make no update "
             "at all from W = 0 at C = 0.001 (their support condition is never met), so a "
             "learner built from the print predicts one class for ever; the paper's Fig. 1 "
             "curves must come from other formulas (the exact solutions of its problems, which "
             "we run as SPA-I and SPA-II)."]

    def draw(axes):
        for ax, quantity in zip(axes, ("mistakes", "updates")):
            for i, name in enumerate(learners):
                if "printed" in name and quantity == "updates":
                    continue
                xs = stops
                ys = [mean([r[quantity] for r in rows if r["algorithm"] == name
                            and r["examples"] == s]) for s in stops]
                ax.plot(xs, ys, label=name, color=f"C{i % 10}",
                        linestyle="--" if "printed" in name else "-")
            ax.set_xlabel("examples")
            ax.set_ylabel(f"cumulative {quantity}")
            if quantity == "mistakes":
                ax.set_ylim(0, 1.3 * max(final[n]["mistakes"] for n in ALGORITHMS))
        axes[0].legend(fontsize=7)

    return Outcome([], claims, {"curves": curves}, notes,
                   figure(draw, panels=(1, 2), title="Matsushima et al. Fig. 1 (USPS, C = 0.001)"))


EXPERIMENTS = [
    Experiment("matsushima-table4", MATSUSHIMA, "Table 4 (USPS row)",
               "Perc, PA, PA-I, PA-II and SPA, SPA-I, SPA-II: one-pass test error in a 10-fold "
               "cross-validation on USPS", table4_usps, ("usps",), default_seeds=5),
    Experiment("matsushima-fig1", MATSUSHIMA, "Fig. 1 (and Fig. 2's success rate)",
               "Cumulative mistakes and updates of one pass over USPS at C = 0.001, exact and "
               "printed formulas", fig1_usps, ("usps",), default_seeds=5),
]
