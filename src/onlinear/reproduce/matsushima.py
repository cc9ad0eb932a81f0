"""Matsushima, Shimizu, Yoshida, Ninomiya & Nakagawa 2010, §5: Table 4 (online error in a
10-fold cross-validation: rows USPS, reut20 and News20), Table 5 (run time of 40 epochs, rows
USPS, Reuter and News20), Table 6 (peak error over 40 epochs, same rows), the batch columns of
Tables 5 and 6 (logistic regression, the Crammer–Singer SVM), Figs. 1 and 2 (online progression
on USPS at C = 0.001) and Fig. 3 (accuracy through 40 epochs on 20 Newsgroups).

Not reproduced here: Table 4's twenty-newsgroup subsets (sb/ob/ol, from a UCD collection that is
not in our data).
"""
import numpy as np

from ..tables import Table
from ..registry import MATSUSHIMA
from ._framework import CAPTION_ONLY, Claim, Experiment, Outcome, paired_test, weakest
from ._protocol import cell, figure, make, mean, require, rng, shipped, subset

# Column names of the paper's tables → registered algorithms.  "Perc" is not defined in the
# paper; the standard multiclass Perceptron (promote y, demote the predicted class) is the
# additive family's max scheme with β = 0.
ALGORITHMS = {"Perc": "perceptron-max", "PA": "pa", "SPA": "spa", "PA-I": "pa1",
              "SPA-I": "spa1", "PA-II": "pa2", "SPA-II": "spa2"}
PAIRS = (("PA", "SPA"), ("PA-I", "SPA-I"), ("PA-II", "SPA-II"))

def printed_values(printed):
    """The numbers of a transcribed table kept as the strings printed (``"20.50"``): a float
    per string, ints and nesting kept (``{"PA": ("3.80", 14)}`` → ``{"PA": (3.8, 14)}``)."""
    if isinstance(printed, dict):
        return {key: printed_values(value) for key, value in printed.items()}
    if isinstance(printed, tuple):
        return tuple(printed_values(value) for value in printed)
    return float(printed) if isinstance(printed, str) else printed


# Tables 4–6 as printed (§5; tests/paper_tables.txt holds the paper's lines): the strings are
# the transcription, the numbers below are read from them.
# Table 4: test error (%) "according to online situation for 10-fold cross validation".
TABLE4_PRINTED = {
    "USPS": {"Perc": "11.74", "PA": "14.02", "SPA": "9.15", "PA-I": "11.05", "SPA-I": "8.68",
             "PA-II": "11.74", "SPA-II": "6.89"},
    "reut20": {"Perc": "7.88", "PA": "7.69", "SPA": "5.32", "PA-I": "7.44", "SPA-I": "5.46",
               "PA-II": "7.95", "SPA-II": "5.29"},
    "News20": {"Perc": "31.96", "PA": "27.03", "SPA": "20.50", "PA-I": "24.62",
               "SPA-I": "18.85", "PA-II": "25.82", "SPA-II": "17.23"},
}
# Table 5: seconds of 40 training iterations (Xeon 3.0 GHz), online and batch learners.
TABLE5_PRINTED = {
    "USPS": {"PA": "5.5", "PA-I": "5.5", "PA-II": "5.5", "SPA": "5.9", "SPA-I": "5.9",
             "SPA-II": "5.9", "Perc": "1.5", "LR": "53.6", "M-SVM": "68.5"},
    "reut20": {"PA": "6.2", "PA-I": "6.2", "PA-II": "6.2", "SPA": "6.4", "SPA-I": "6.4",
               "SPA-II": "6.4", "Perc": "1.0", "LR": "92.5", "M-SVM": "34.3"},
    "News20": {"PA": "15.7", "PA-I": "15.9", "PA-II": "15.8", "SPA": "16.8", "SPA-I": "17.1",
               "SPA-II": "17.2", "Perc": "7.9", "LR": "405.6", "M-SVM": "75.7"},
}
# Table 6: the peak test error (%) of the online learners and the iteration it is reached at.
TABLE6_PRINTED = {
    "USPS": {"Perc": ("6.45", 30), "PA": ("6.82", 34), "SPA": ("6.02", 34),
             "PA-I": ("6.83", 34), "SPA-I": ("5.73", 39), "PA-II": ("6.82", 40),
             "SPA-II": ("4.95", 35)},
    "reut20": {"PA": ("3.80", 14), "PA-I": ("3.80", 14), "PA-II": ("3.81", 15),
               "SPA": ("3.01", 14), "SPA-I": ("3.03", 39), "SPA-II": ("2.96", 32),
               "Perc": ("3.99", 25)},
    "News20": {"PA": ("22.98", 4), "PA-I": ("21.49", 7), "PA-II": ("21.02", 8),
               "SPA": ("20.01", 1), "SPA-I": ("16.84", 5), "SPA-II": ("15.83", 11),
               "Perc": ("22.63", 26)},
}
# Table 6, the batch columns: test error (%) of LR and M-SVM.
BATCH_PRINTED = {"USPS": {"LR": "4.98", "M-SVM": "4.83"},
                 "reut20": {"LR": "3.50", "M-SVM": "3.18"},
                 "News20": {"LR": "17.79", "M-SVM": "15.94"}}
ONLINE = ("PA", "PA-I", "PA-II", "SPA", "SPA-I", "SPA-II", "Perc")
TABLE4_USPS = printed_values(TABLE4_PRINTED["USPS"])
C_GRID = (1e-3, 1e-2, 1e-1, 1.0, 10.0)
QUICK_GRID = (1e-3, 1.0)
FOLDS = 10


def _has_c(name):
    return name.endswith(("-I", "-II"))


def _folds(generator, n):
    """§5's layout: the n examples split at random into 10 parts; fold f tests on part f,
    validates on part f + 1 (mod 10) and trains on the other 8.  Yields
    ``(f, test, validation, train)`` index arrays (``train`` in part order)."""
    parts = np.array_split(generator.permutation(n), FOLDS)
    for f in range(FOLDS):
        train = np.concatenate([parts[g] for g in range(FOLDS)
                                if g not in (f, (f + 1) % FOLDS)])
        yield f, parts[f], parts[(f + 1) % FOLDS], train


def mistake_driven_pass(model, X, y, classes):
    """One online pass of ``model`` over ``(X, y)`` that learns only the rows it mispredicts:
    the reading of Matsushima et al.'s problem (2.3), whose constraint involves the predicted
    class p_i and so is void when p_i = y_i.  On a mistake the predicted class is the one of
    largest loss, so the update is the model's own (max-loss) one."""
    stream = model.stream(X, y, classes=classes)
    stream.learn([0])  # W = 0 predicts no class: the first row is a mistake
    i, n = 1, X.shape[0]
    while i < n:
        # predict a window at once; the weights change only at its first mistake
        stop = min(i + 64, n)
        wrong = np.flatnonzero(model.predict(X[i:stop]) != y[i:stop])
        if wrong.size == 0:
            i = stop
            continue
        stream.learn([i + int(wrong[0])])
        i += int(wrong[0]) + 1
    return model


def _cross_validation(key, X, y, seeds, grid=C_GRID, algorithms=ALGORITHMS,
                      mistake_driven=False):
    """§5's 10-fold protocol on ``(X, y)``: per seed, the mean test error (%) over the folds of
    every learner of ``algorithms`` (with ``mistake_driven``, each learning only the rows it
    mispredicts: :func:`mistake_driven_pass`), and the table of the C chosen on each fold from
    ``grid``.  The folds and orders depend on ``key`` and the seed only, so that runs of other
    learners on the same key are paired with these."""
    classes = np.unique(y)
    per_seed = {name: [] for name in algorithms}
    chosen = []
    for seed in seeds:
        generator = rng(key, seed)
        fold_errors = {name: [] for name in algorithms}
        for f, test, validation, train in _folds(generator, X.shape[0]):
            train = train[generator.permutation(train.size)]
            X_train, y_train = X[train], y[train]
            for name, algorithm in algorithms.items():
                best = None
                for C in (grid if _has_c(name) else (None,)):
                    model = make(algorithm, **({} if C is None else {"C": C}))
                    if mistake_driven:
                        mistake_driven_pass(model, X_train, y_train, classes)
                    else:
                        model.partial_fit(X_train, y_train, classes=classes)
                    val = 1.0 - model.score(X[validation], y[validation])
                    if best is None or val < best[0]:
                        best = (val, C, 1.0 - model.score(X[test], y[test]))
                fold_errors[name].append(100.0 * best[2])
                chosen.append({"seed": seed, "fold": f, "algorithm": name, "C": best[1],
                               "validation_error": 100.0 * best[0],
                               "test_error": 100.0 * best[2]})
        for name in algorithms:
            per_seed[name].append(mean(fold_errors[name]))
    return per_seed, Table(chosen)


def below_test(per_seed, lower, higher):
    """Whether every learner of ``lower`` is below every learner of ``higher`` on our means
    (``per_seed``: learner → per-seed values, the learners run on the same seeds), and the
    weakest of the one-sided paired tests over seeds: ``(holds, p_value, text)``."""
    ours = {name: mean(values) for name, values in per_seed.items()}
    p_value, test = weakest([paired_test(per_seed[a], per_seed[b])
                             for a in lower for b in higher])
    return all(ours[a] < ours[b] for a in lower for b in higher), p_value, test


def below_claim(statement, source, per_seed, lower, higher, paper=None):
    """The claim of :func:`below_test`; ``paper``, learner → printed number, is quoted beside
    our means."""
    holds, p_value, test = below_test(per_seed, lower, higher)
    quoted = ", ".join(f"{n} {mean(per_seed[n]):.2f}" + (f" (paper {paper[n]})" if paper else "")
                       for n in (*lower, *higher))
    return Claim(statement, source, holds, f"{quoted}; weakest pair: {test}", p_value)


def pair_claims(label, quantity, source, per_seed, paper):
    """SPA-x below PA-x for the three pairs (:func:`below_claim`), ``label`` heading each."""
    return [below_claim(f"{label}{spa}'s {quantity} is below {pa}'s", source, per_seed,
                        (spa,), (pa,), paper) for pa, spa in PAIRS]


def lowest_claim(label, quantity, source, per_seed, name="SPA-II"):
    """The claim that ``name`` has the lowest ``quantity`` of the online learners
    (:func:`below_claim` against each other learner)."""
    return below_claim(f"{label}{name} has the lowest {quantity} of the online learners",
                       source, per_seed, (name,), [n for n in per_seed if n != name])


def _table4_outcome(rows, quick):
    """Cells, claims and the trace note of Table 4's rows ``{row: (printed, per_seed, n)}``."""
    cells, claims = [], []
    ratios, paper_ratios, gaps = [], [], []
    for row, (printed, per_seed, n) in rows.items():
        cells += [cell(f"error % ({row})", name, "test error %", TABLE4_PRINTED[row][name],
                       per_seed[name],
                       f"Table 4, row {row}", test_size=None if quick else n)
                  for name in ALGORITHMS]
        ours = {name: mean(values) for name, values in per_seed.items()}
        for pa, spa in PAIRS:
            p_value, test = paired_test(per_seed[spa], per_seed[pa])
            claims.append(Claim(f"{row}: {spa} has a lower error than {pa}", "§5, Table 4",
                                ours[spa] < ours[pa], f"{ours[spa]:.2f} vs {ours[pa]:.2f} "
                                f"(paper {printed[spa]} vs {printed[pa]}); {test}", p_value))
        claims.append(lowest_claim(f"{row}: ", "error", "§5, Table 4", per_seed))
        ratios += [ours[spa] / ours[pa] for pa, spa in PAIRS]
        paper_ratios += [printed[spa] / printed[pa] for pa, spa in PAIRS]
        gaps += [printed[pa] - ours[pa] for pa, _ in PAIRS]
    ratio, paper_ratio = float(np.mean(ratios)), float(np.mean(paper_ratios))
    claims.append(Claim("the SPA family's error is about 0.5–0.8 × the PA family's",
                        "§5, Table 4", 0.5 <= ratio <= 0.8,
                        f"mean SPA-x/PA-x ratio {ratio:.2f} (paper {paper_ratio:.2f})"))
    if quick:
        return cells, claims, []
    notes = [
        "Trace of the cells far off: our PA, PA-I and PA-II solve the max-loss problem of "
        "Crammer et al. exactly (the test suite checks them against a generic QP solver), "
        "updating on every round with a positive loss, and run in the very protocol in which "
        "our SPA cells are close to the paper's. The paper's own problem (2.3) constrains the "
        "predicted class p_i instead, a reading under which its PA is mistake-driven; that "
        "variant is not run here and may explain part of the gap. The paper's PA baselines "
        f"are {min(gaps):.1f}–{max(gaps):.1f} points worse than the same algorithms here, so "
        f"the paper's SPA/PA error ratio ({paper_ratio:.2f}) becomes {ratio:.2f}. The paper "
        "prints neither its PA code nor its C grid; its printed PA-I/PA-II formulas use C/2 in "
        "place of C, a rescaling of C that the grid search absorbs, so the C convention does "
        "not explain the gap. The SPA formulas it prints cannot be what it ran (see "
        "matsushima-fig1).",
    ]
    return cells, claims, notes


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
    * Variant beside the main cells: PA, PA-I and PA-II learning only the rows they mispredict
      (the paper's problem (2.3) constrains the predicted class p_i, void when p_i = y_i), on
      the same folds, orders and C grid, compared with the same printed numbers.
    * Quick mode: a seeded subset of 1,500 examples, C ∈ {0.001, 1}.
    """
    X, y, _, _ = shipped("usps")
    if quick:
        X, y = subset(X, y, 1500, "matsushima-table4")
    grid = QUICK_GRID if quick else C_GRID
    per_seed, chosen = _cross_validation("matsushima-table4", X, y, seeds, grid)
    cells, claims, notes = _table4_outcome({"USPS": (TABLE4_USPS, per_seed, X.shape[0])}, quick)
    # the variant beside the main cells: the PA family read as mistake-driven ((2.3)), on the
    # same folds and orders
    family = {name: ALGORITHMS[name] for name in ("PA", "PA-I", "PA-II")}
    driven, _ = _cross_validation("matsushima-table4", X, y, seeds, grid, family,
                                  mistake_driven=True)
    cells += [cell("error % (USPS), variant: mistake-driven PA of (2.3)", f"{name} (mistakes)",
                   "test error %", TABLE4_PRINTED["USPS"][name], driven[name],
                   "Table 4, row USPS", test_size=None if quick else X.shape[0])
              for name in family]
    notes.append("Variant (the mistake-driven reading of (2.3), same folds and orders): "
                 + ", ".join(f"{name} {mean(per_seed[name]):.2f} → {mean(driven[name]):.2f}"
                             for name in family)
                 + " (paper " + ", ".join(f"{TABLE4_USPS[name]:.2f}" for name in family) + ").")
    return Outcome(cells, claims, {"folds": chosen}, notes)


# Table 4, rows reut20 and News20, and the 20 topics of the paper's Reuters (its Table 3).
TABLE4_TEXT = {row: printed_values(TABLE4_PRINTED[row]) for row in ("reut20", "News20")}
REUTERS_TOPICS = ("acq", "alum", "cocoa", "coffee", "copper", "cpi", "crude", "earn", "gnp",
                  "gold", "grain", "interest", "jobs", "money-fx", "money-supply", "reserves",
                  "rubber", "ship", "sugar", "trade")


def _text_corpora(vectorizer):
    """reut20 and News20 (train and test splits pooled) with ``vectorizer``'s features."""
    import scipy.sparse as sp

    from ..data import load_reuters21578

    reuters = require("reuters21578")[0]
    X1, y1, X2, y2 = load_reuters21578(reuters, labels="single", vectorizer=vectorizer())[:4]
    X, y = sp.vstack([X1, X2]).tocsr(), np.concatenate([y1, y2])
    keep = np.isin(y, REUTERS_TOPICS)
    return {"reut20": (X[keep], y[keep]), "News20": news20(vectorizer())}


def news20(vectorizer):
    """``X, y`` of 20 Newsgroups "bydate" (training and test splits pooled), ``vectorizer``
    (an instance, fitted here on the training split) giving the features."""
    import scipy.sparse as sp

    from ..data import load_20newsgroups

    X1, y1, X2, y2 = load_20newsgroups(require("news20")[0], vectorizer=vectorizer)[:4]
    return sp.vstack([X1, X2]).tocsr(), np.concatenate([y1, y2])


def _slug(representation):
    """A representation's name in a file name (``"counts, no headers"`` →
    ``"counts-no-headers"``)."""
    return "-".join(representation.replace(",", " ").split())


def without_headers(message):
    """A 20 Newsgroups message without its header block, lower-cased (``CountVectorizer``'s
    own preprocessing): the "bydate" messages keep their From, Subject, Organization and
    Lines headers, whose words name the sender and often the group; the body starts after the
    first blank line (a message without one is kept whole)."""
    _, blank, body = message.partition("\n\n")
    return (body if blank else message).lower()


def table4_text(quick, seeds):
    """Table 4 of Matsushima et al., rows reut20 and News20, by the protocol of
    ``matsushima-table4``.

    * reut20: Reuters-21578 (ModApte, documents with exactly one topic, training and test
      splits pooled) restricted to the paper's 20 topics (its Table 3); the paper has 7,800
      documents and 34,488 features after an unstated preprocessing.
    * News20: the 20 Newsgroups "bydate" training and test splits pooled (18,846 messages, with
      their remaining headers; the paper has 15,935 and 60,345 features, source uncertain).
    * Features: raw word counts, as the paper says ("raw word frequencies"; scikit-learn's
      ``CountVectorizer`` fitted on the training split) for the compared cells, and, as
      variants beside them (their own tables and notes, on the same folds and orders):
      unit-norm tf-idf rows (our loaders' default), and News20's messages without their
      header block (:func:`without_headers`; the headers name senders and often the group).
    * Quick mode: a synthetic 600-document corpus of word counts (as in ``amit-text``),
      compared with the reut20 row, C ∈ {0.001, 1}; no tf-idf table.
    """
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

    grid = QUICK_GRID if quick else C_GRID
    if quick:
        from .amit import _synthetic_corpus

        representations = {"counts": {
            "reut20": _synthetic_corpus(rng("matsushima-table4-text/corpus", 0))}}
    else:
        representations = {
            "counts": _text_corpora(CountVectorizer),
            "tf-idf": _text_corpora(TfidfVectorizer),
            # a reading of the gap on News20: the paper's 60,345 features suggest messages
            # without their headers
            "counts, no headers": {"News20": news20(CountVectorizer(
                preprocessor=without_headers))}}
    tables, sizes, other = {}, [], []
    for representation, corpora in representations.items():
        rows = {}
        for row, (X, y) in corpora.items():
            per_seed, chosen = _cross_validation(f"matsushima-table4-text/{row}", X, y, seeds,
                                                 grid)
            rows[row] = (TABLE4_TEXT[row], per_seed, X.shape[0])
            tables[f"folds-{row.lower()}-{_slug(representation)}"] = chosen
            if representation == "counts":
                sizes.append(f"{row}: {X.shape[0]:,} documents, {X.shape[1]:,} features, "
                             f"{len(np.unique(y))} classes")
        if representation == "counts":
            cells, claims, notes = _table4_outcome(rows, quick)
        else:
            other.append((representation, rows))
    readings = {"tf-idf": "With unit-norm tf-idf rows instead of raw counts",
                "counts, no headers": "With News20's messages stripped of their headers "
                                      "(raw counts)"}
    for representation, rows in other:
        variant = [cell(f"error % ({row}, {representation})", name, "test error %",
                        TABLE4_PRINTED[row][name], per_seed[name], f"Table 4, row {row}")
                   for row, (_, per_seed, _) in rows.items() for name in ALGORITHMS]
        tables[_slug(representation)] = Table(variant)
        notes.append(readings[representation] + ": " + "; ".join(
            f"{row}: " + ", ".join(f"{c['item']} {c['ours']:.2f}" for c in variant
                                   if c["group"] == f"error % ({row}, {representation})")
            for row in rows) + f" (mean over {len(seeds)} seeds; the paper: see the cells).")
    return Outcome(cells, claims, tables, ["Data: " + "; ".join(sizes) + "."] + notes)


# Table 5, row USPS: seconds of 40 training iterations (Xeon 3.0 GHz); compared as ratios to PA.
TABLE5_USPS = {name: float(TABLE5_PRINTED["USPS"][name]) for name in ONLINE}


def printed_slowdown(rows):
    """The range of SPA/PA time ratios that Table 5's seconds (``rows``: row → learner →
    seconds) allow, each second known to ±0.05 (printed to 0.1 s): ``(low, high)``.  The
    printed ratios run 1.03–1.09 ("3–9 %"); with the rounding, 1.016–1.095."""
    low = min((r[spa] - 0.05) / (r[pa] + 0.05) for r in rows.values() for pa, spa in PAIRS)
    high = max((r[spa] + 0.05) / (r[pa] - 0.05) for r in rows.values() for pa, spa in PAIRS)
    return low, high


def slowdown_claim(label, ratios):
    """The claim that SPA is "a few percent" slower than PA, with its quantitative part: each
    SPA/PA ratio of our means within :func:`printed_slowdown` of Table 5's seconds, and a
    paired test over seeds that SPA takes longer than PA (the weakest of the three pairs).
    ``ratios``: learner → per-seed time ratios to PA's."""
    low, high = SLOWER_RANGE
    ours = {name: mean(v) for name, v in ratios.items()}
    p_value, test = weakest([paired_test(ratios[pa], ratios[spa]) for pa, spa in PAIRS])
    return Claim(f"{label}SPA runs a few percent slower than PA (3–9 % in Table 5; tested as "
                 f"a ratio in {low:.3f}–{high:.3f}, the range its seconds allow once rounded)",
                 "§5, Table 5",
                 all(low <= ours[spa] / ours[pa] <= high for pa, spa in PAIRS),
                 ", ".join(f"{spa}/{pa} {ours[spa] / ours[pa]:.3f}" for pa, spa in PAIRS)
                 + f"; weakest pair: {test}", p_value)


def table5_usps(quick, seeds):
    """Table 5 of Matsushima et al., USPS row: the training time of 40 iterations of each
    online learner, compared as the ratio to PA's time (the paper's seconds are those of its
    3.0 GHz Xeon; the ratios are what a reproduction can check).

    * Data: the 7,291 USPS training examples (shipped copy); one ``fit`` of 40 epochs, each
      over a fresh random order (``n_epochs=40, shuffle=True``); C = 0.001 where the learner
      has one.  The time is the wall time of that call (after a warm-up that compiles the
      code).
    * The batch columns of the table (logistic regression, the multiclass SVM) are
      ``matsushima-batch``.
    * Quick mode: 1,500 examples, 3 passes.
    """
    import time

    X, y, _, _ = shipped("usps")
    epochs = 3 if quick else 40
    if quick:
        X, y = subset(X, y, 1500, "matsushima-table5")
    order = list(TABLE5_USPS)
    ratios = {name: [] for name in order}
    rows = []
    for seed in seeds:
        seconds = {}
        for name in order:
            params = {} if name in ("PA", "SPA", "Perc") else {"C": 1e-3}
            make(ALGORITHMS[name], **params).fit(X[:50], y[:50])  # compile outside the timing
            model = make(ALGORITHMS[name], n_epochs=epochs, shuffle=True,
                         random_state=int(rng("matsushima-table5", seed).integers(2**31)),
                         **params)
            start = time.perf_counter()
            model.fit(X, y)
            seconds[name] = time.perf_counter() - start
        for name in order:
            ratios[name].append(seconds[name] / seconds["PA"])
            rows.append({"seed": seed, "algorithm": name, "seconds": seconds[name],
                         "ratio_to_pa": seconds[name] / seconds["PA"]})
    cells = [cell("time / PA's time (USPS)", name, "time ratio",
                  round(TABLE5_USPS[name] / TABLE5_USPS["PA"], 2), ratios[name],
                  "Table 5, row USPS (ratio of its seconds)") for name in order if name != "PA"]
    ours = {name: mean(v) for name, v in ratios.items()}
    claims = [
        slowdown_claim("", ratios),
        Claim("the Perceptron is the fastest online learner", "§5, Table 5",
              ours["Perc"] == min(ours.values()),
              ", ".join(f"{n} {v:.2f}" for n, v in ours.items())),
    ]
    pa = mean([r["seconds"] for r in rows if r["algorithm"] == "PA"])
    notes = [f"PA's {epochs} epochs take {pa:.2f} s here against the paper's 5.5 for 40; at a few "
             "milliseconds per epoch, the parts of a call that do not depend on the rule (input "
             "checks, the compiled loop's set-up) weigh as much as the updates themselves, and "
             "the times of a shared machine spread (see the sd)."]
    return Outcome(cells, claims, {"times": Table(rows)}, notes)


# Table 5, rows Reuter and News20: seconds of 40 training iterations; compared as ratios to PA.
REPEATS = 3
TABLE5_TEXT = {row: {name: float(TABLE5_PRINTED[row][name]) for name in ONLINE}
               for row in ("reut20", "News20")}


SLOWER_RANGE = printed_slowdown({"USPS": TABLE5_USPS, **TABLE5_TEXT})


def table5_text(quick, seeds):
    """Table 5 of Matsushima et al., rows Reuter and News20 (online learners): the training
    time of 40 iterations of each online learner as the ratio to PA's, by the protocol of
    ``matsushima-table5``.

    * Data: reut20 and News20 with raw word counts, as in ``matsushima-table4-text`` (all
      documents); one ``fit`` of 40 epochs, each over a fresh random order
      (``n_epochs=40, shuffle=True``); C = 0.001 where the learner has one; the time is the
      wall time of that call, after a warm-up that compiles the code, the least of 3
      repetitions run in turn over the learners (the load of a shared machine only adds
      time, and in turn it hits every learner alike).
    * The batch columns (LR, M-SVM) are ``matsushima-batch`` and ``matsushima-batch-news20``.
    * Quick mode: the synthetic corpus of ``matsushima-table6-text`` (standing for reut20),
      3 passes.
    """
    import time

    epochs = 3 if quick else 40
    order = list(TABLE5_USPS)
    cells, claims, rows = [], [], []
    for row, (X, y) in _text_data(quick).items():
        ratios = {name: [] for name in order}
        warm_up = np.linspace(0, X.shape[0] - 1, 50).astype(int)  # rows of several classes
        for name in order:
            make(ALGORITHMS[name], **({"C": 1e-3} if _has_c(name) else {})).fit(
                X[warm_up], y[warm_up])  # compile, untimed
        for seed in seeds:
            seconds = {name: np.inf for name in order}
            state = int(rng(f"matsushima-table5-text/{row}", seed).integers(2**31))
            for _ in range(1 if quick else REPEATS):
                for name in order:  # interleaved: a change of the machine's load hits all
                    model = make(ALGORITHMS[name], n_epochs=epochs, shuffle=True,
                                 random_state=state,
                                 **({"C": 1e-3} if _has_c(name) else {}))
                    start = time.perf_counter()
                    model.fit(X, y)
                    seconds[name] = min(seconds[name], time.perf_counter() - start)
            for name in order:
                ratios[name].append(seconds[name] / seconds["PA"])
                rows.append({"row": row, "seed": seed, "algorithm": name,
                             "seconds": seconds[name],
                             "ratio_to_pa": seconds[name] / seconds["PA"]})
        printed = TABLE5_TEXT[row]
        source = f"Table 5, row {'Reuter' if row == 'reut20' else row} (ratio of its seconds)"
        cells += [cell(f"time / PA's time ({row})", name, "time ratio",
                       round(printed[name] / printed["PA"], 2), ratios[name], source)
                  for name in order if name != "PA"]
        ours = {name: mean(v) for name, v in ratios.items()}
        claims += [
            slowdown_claim(f"{row}: ", ratios),
            Claim(f"{row}: the Perceptron is the fastest online learner", "§5, Table 5",
                  ours["Perc"] == min(ours.values()),
                  ", ".join(f"{n} {v:.2f}" for n, v in ours.items())),
        ]
    pa = {row: mean([r["seconds"] for r in rows if r["algorithm"] == "PA" and r["row"] == row])
          for row in TABLE5_TEXT if any(r["row"] == row for r in rows)}
    notes = [] if quick else [
        "PA's 40 epochs take " + ", ".join(f"{v:.1f} s on {row}" for row, v in pa.items())
        + f" here against the paper's {TABLE5_TEXT['reut20']['PA']} and "
        f"{TABLE5_TEXT['News20']['PA']} s.",
        "Trace of the Perceptron's ratio: every learner here spends its round on the same K "
        "scores of a sparse row (K = 20 passes over its words) and then changes two rows "
        "(PA, the Perceptron) or a few (SPA); the Perceptron saves only the step size, so it "
        "runs at PA's speed, not at the paper's 16–50 % of it (the paper's PA code, which it "
        "does not show, must do more per round). The ratios of a shared machine spread by "
        "tens of percent (see the sd), more than the few percent SPA costs over PA."]
    return Outcome(cells, claims, {"times": Table(rows)}, notes)


# Table 6, row USPS: the lowest test error (%) over 40 epochs, and the epoch it was reached at.
TABLE6_USPS = printed_values(TABLE6_PRINTED["USPS"])
EPOCHS_TABLE6 = 40


def table6_usps(quick, seeds):
    """Table 6 of Matsushima et al., USPS row: the peak (lowest) test error of each online
    learner over 40 epochs, and the epoch of the peak.

    * Data and folds as in ``matsushima-table4`` (the paper: "determined in the same way using
      the validation set"); every epoch is a fresh random order of the training parts (the
      paper does not say whether it reshuffles).
    * After every epoch the model is scored on the validation and the test part.  C (of
      {0.001, 0.01, 0.1, 1, 10}) is chosen per fold by the lowest validation error over the
      epochs.  The data set's curve is the test error of the chosen C per epoch, averaged over
      the folds; its peak ("Dataset peak error rate") is the lowest point of that curve, and
      the epoch in parentheses is where it lies.
    * The batch columns of the table (logistic regression, the multiclass SVM) are
      ``matsushima-batch``.
    * Quick mode: 1,500 examples, 3 epochs, C ∈ {0.001, 1}.
    """
    X, y, _, _ = shipped("usps")
    epochs, grid = (3, QUICK_GRID) if quick else (EPOCHS_TABLE6, C_GRID)
    if quick:
        X, y = subset(X, y, 1500, "matsushima-table6")
    classes = np.unique(y)
    peaks = {name: [] for name in ALGORITHMS}
    at = {name: [] for name in ALGORITHMS}
    rows = []
    for seed in seeds:
        generator = rng("matsushima-table6", seed)
        curves = {name: [] for name in ALGORITHMS}
        for f, test, validation, train in _folds(generator, X.shape[0]):
            orders = [train[generator.permutation(train.size)] for _ in range(epochs)]
            for name, algorithm in ALGORITHMS.items():
                best = None
                for C in (grid if _has_c(name) else (None,)):
                    model = make(algorithm, **({} if C is None else {"C": C}))
                    val, tst = [], []
                    for order in orders:
                        model.partial_fit(X[order], y[order], classes=classes)
                        val.append(1.0 - model.score(X[validation], y[validation]))
                        tst.append(1.0 - model.score(X[test], y[test]))
                    if best is None or min(val) < best[0]:
                        best = (min(val), C, tst)
                curves[name].append(best[2])
                rows.append({"seed": seed, "fold": f, "algorithm": name, "C": best[1],
                             "fold_peak_test_error": 100.0 * min(best[2]),
                             "fold_peak_epoch": int(np.argmin(best[2])) + 1,
                             "last_test_error": 100.0 * best[2][-1]})
        for name in ALGORITHMS:
            # the data set's curve is the mean over the folds; its peak is the lowest point
            curve = 100.0 * np.mean(curves[name], axis=0)
            peaks[name].append(float(curve.min()))
            at[name].append(int(np.argmin(curve)) + 1)
    cells = [cell("peak error % (USPS)", name, "test error %", TABLE6_PRINTED["USPS"][name][0],
                  peaks[name], "Table 6, row USPS", test_size=None if quick else X.shape[0])
             for name in ALGORITHMS]
    cells += [cell("epoch of the peak (USPS)", name, "epoch", TABLE6_USPS[name][1], at[name],
                   "Table 6, row USPS") for name in ALGORITHMS]
    printed = {name: error for name, (error, _) in TABLE6_PRINTED["USPS"].items()}
    claims = pair_claims("", "peak error", "§5, Table 6", peaks, printed)
    claims.append(lowest_claim("", "peak error", "§5, Table 6", peaks))
    notes = [] if quick else [
        "The epoch of the peak lies on a nearly flat stretch of the averaged error curve, so it "
        "moves a lot between orders (see the spread); the per-fold peaks are in the folds "
        "table."]
    return Outcome(cells, claims, {"folds": Table(rows)}, notes)


# Table 6, rows Reuters and News20 (online learners); the batch columns are in BATCH_PAPER.
TABLE6_TEXT = {row: printed_values(TABLE6_PRINTED[row]) for row in ("reut20", "News20")}
# documents per row in the paper's Table 3 (its test parts cover them all over the 10 folds)
PAPER_SIZES = {"USPS": 7291, "reut20": 7800, "News20": 15935}
TEXT_GRID = (1e-4, 1e-3, 1e-2)
TEXT_FOLDS = (0,)


def _text_data(quick):
    """``{row: (X, y)}``: the raw-count reut20 and News20 of ``matsushima-table4-text``, or in
    quick mode the synthetic word-count corpus standing for reut20."""
    if quick:
        from .amit import _synthetic_corpus

        # shorter documents over more classes than table4-text's: errors stay above zero
        # through the epochs
        return {"reut20": _synthetic_corpus(rng("matsushima-table6-text/corpus", 0),
                                            n_documents=1000, n_classes=10, length=6)}
    from sklearn.feature_extraction.text import CountVectorizer

    return _text_corpora(CountVectorizer)


def _epoch_curves(X, y, generator, *, epochs, grid, folds, learners=ALGORITHMS):
    """Table 6's runs on the folds ``folds`` of one random 10-part split drawn from
    ``generator``: per learner, every C of ``grid`` (where it has one) is trained for
    ``epochs`` fresh random orders of the training parts, scored on the validation and the test
    part after each epoch, and the C with the lowest validation error over the epochs is kept.
    Returns ``{name: [per-fold test-error curve (%)]}`` and the per-fold rows."""
    classes = np.unique(y)
    curves = {name: [] for name in learners}
    rows = []
    for f, test, validation, train in _folds(generator, X.shape[0]):
        if f not in folds:
            continue
        X_train, y_train = X[train], y[train]
        X_val, y_val, X_test, y_test = X[validation], y[validation], X[test], y[test]
        orders = [generator.permutation(train.size) for _ in range(epochs)]
        for name, algorithm in learners.items():
            best = None
            for C in (grid if _has_c(name) else (None,)):
                model = make(algorithm, **({} if C is None else {"C": C}))
                stream = model.stream(X_train, y_train, classes=classes)
                val, tst = [], []
                for order in orders:
                    stream.learn(order)
                    val.append(100.0 * (1.0 - model.score(X_val, y_val)))
                    tst.append(100.0 * (1.0 - model.score(X_test, y_test)))
                if best is None or min(val) < best[0]:
                    best = (min(val), C, tst)
            curves[name].append(best[2])
            rows.append({"fold": f, "algorithm": name, "C": best[1],
                         "fold_peak_test_error": min(best[2]),
                         "fold_peak_epoch": int(np.argmin(best[2])) + 1,
                         "last_test_error": best[2][-1]})
    return curves, rows


def table6_text(quick, seeds):
    """Table 6 of Matsushima et al., rows Reuters and News20 (online learners), and Fig. 3
    (test accuracy through 40 iterations on 20 Newsgroups).

    * Data: reut20 and News20 with raw word counts, as in ``matsushima-table4-text``.
    * Protocol as in ``matsushima-table6`` (a random split into 10 parts per seed; test part,
      validation part, 8 training parts; 40 epochs, each a fresh random order; after every
      epoch the validation and test errors; C chosen by the lowest validation error over the
      epochs; the data set's curve is the test error of the chosen C per epoch, and its peak
      the lowest point, with its epoch), with two reductions to stay within ten minutes on a
      shared two-core machine (the full layout, 10 folds × 15 learners × 40 epochs on 18,846
      documents, takes hours): **one fold per split** (test part 0, validation part 1) and the
      C grid {0.0001, 0.001, 0.01} (on these counts the one-pass validation of
      ``matsushima-table4-text`` picks 0.001, the lowest of its grid, on nearly every News20
      fold, and more epochs favour smaller steps).  The spread is over the seeds (splits and
      orders); the noise band uses the paper's data set sizes (its test parts cover the
      whole set).
    * Fig. 3: the test accuracy (100 − error) of each online learner per epoch on News20 (and
      on reut20, in a second panel), at its chosen C, averaged over the seeds.  The paper's
      figure has no readable numbers.
    * The batch columns (LR, M-SVM) are ``matsushima-batch`` and ``matsushima-batch-news20``.
    * Quick mode: a synthetic 1,000-document, 10-class corpus of word counts (as in
      ``amit-text``, six words per document), standing for reut20; 4 epochs, C ∈ {0.001, 1}.
    """
    epochs, grid = (4, QUICK_GRID) if quick else (EPOCHS_TABLE6, TEXT_GRID)
    cells, claims, rows, notes, curve_rows = [], [], [], [], []
    mean_curves = {}
    for row, (X, y) in _text_data(quick).items():
        peaks = {name: [] for name in ALGORITHMS}
        at = {name: [] for name in ALGORITHMS}
        seed_curves = {name: [] for name in ALGORITHMS}
        for seed in seeds:
            curves, fold_rows = _epoch_curves(
                X, y, rng(f"matsushima-table6-text/{row}", seed), epochs=epochs, grid=grid,
                folds=TEXT_FOLDS)
            rows += [{"row": row, "seed": seed, **r} for r in fold_rows]
            for name in ALGORITHMS:
                curve = np.mean(curves[name], axis=0)
                seed_curves[name].append(curve)
                peaks[name].append(float(curve.min()))
                at[name].append(int(np.argmin(curve)) + 1)
        mean_curves[row] = {name: np.mean(c, axis=0) for name, c in seed_curves.items()}
        printed = TABLE6_TEXT[row]
        cells += [cell(f"peak error % ({row})", name, "test error %",
                       TABLE6_PRINTED[row][name][0],
                       peaks[name], f"Table 6, row {'Reuters' if row == 'reut20' else row}",
                       test_size=None if quick else PAPER_SIZES[row]) for name in ALGORITHMS]
        cells += [cell(f"epoch of the peak ({row})", name, "epoch", printed[name][1], at[name],
                       f"Table 6, row {'Reuters' if row == 'reut20' else row}")
                  for name in ALGORITHMS]
        ours = {name: mean(v) for name, v in peaks.items()}
        quoted = {name: error for name, (error, _) in TABLE6_PRINTED[row].items()}
        claims += pair_claims(f"{row}: ", "peak error", "§5.3, Table 6", peaks, quoted)
        claims.append(lowest_claim(f"{row}: ", "peak error", "§5.3, Table 6", peaks))
        claims.append(below_claim(f"{row}: PA-II is more accurate than PA and PA-I",
                                  "§5.3, Table 6", peaks, ("PA-II",), ("PA", "PA-I"), quoted))
        curve_rows += [{"row": row, "algorithm": name, "epoch": epoch + 1,
                        "test_error": float(np.mean([c[epoch] for c in seed_curves[name]])),
                        "sd": float(np.std([c[epoch] for c in seed_curves[name]], ddof=1))
                        if len(seeds) > 1 else 0.0}
                       for name in ALGORITHMS for epoch in range(epochs)]
        if row == "News20":
            curve = mean_curves[row]
            early = {name: int(np.argmin(curve[name])) + 1 for name in ("PA", "SPA")}
            claims.append(Claim(
                "News20: PA and SPA peak in the first iterations (≤ 5) and deteriorate after",
                "§5.3, Fig. 3", all(e <= 5 and curve[n][-1] > curve[n].min() + 0.5
                                    for n, e in early.items()),
                "; ".join(f"{n}: peak {curve[n].min():.2f} at epoch {early[n]}, "
                          f"{curve[n][-1]:.2f} at epoch {len(curve[n])}" for n in early)))
            soft = [below_test(peaks, softs, (hard,))
                    for hard, softs in (("PA", ("PA-I", "PA-II")), ("SPA", ("SPA-I", "SPA-II")))]
            p_value, test = weakest([(p, text) for _, p, text in soft])
            claims.append(Claim(
                "News20: the soft-margin variants outperform the original algorithms",
                "§5.3, Fig. 3", all(holds for holds, _, _ in soft),
                ", ".join(f"{n} {ours[n]:.2f}" for n in ("PA", "PA-I", "PA-II", "SPA",
                                                         "SPA-I", "SPA-II"))
                + f"; weakest pair: {test}", p_value))
    if not quick:
        news = [c for c in cells if c["group"] == "peak error % (News20)"]
        # (the paper's numbers are kept as printed strings: "20.50")
        gaps = [float(c["paper"]) - c["ours"] for c in news]
        notes += [
            f"Trace of the News20 cells: every learner's peak error is {min(gaps):.1f}–"
            f"{max(gaps):.1f} points below the paper's, the batch learners' on the same splits "
            "too (matsushima-batch-news20): the corpus is not the paper's (18,846 'bydate' "
            "messages with their remaining headers and 130,107 words, against its 15,935 "
            "documents and 60,345 features of uncertain source), so the levels are the data's "
            "and only the orderings compare.",
            "Unlike the paper's Fig. 3, the hard PA and SPA do not deteriorate on our News20: "
            "they level off after about ten epochs, and the soft-margin learners (at the small "
            "C the validation picks) keep improving slowly to the 40th epoch, where most of "
            "their peaks lie.",
            "The epoch of the peak is that of one fold per split (see the protocol): where the "
            "curve is flat it moves a lot between splits (see the spread)."]
    shown = sorted(mean_curves, key=lambda row: row != "News20")  # News20 (the paper's) first

    def draw(axes):
        for ax, row in zip(axes, shown):
            for i, name in enumerate(ALGORITHMS):
                curve = mean_curves[row][name]
                ax.plot(np.arange(1, len(curve) + 1), 100.0 - curve, label=name,
                        color=f"C{i}", marker="." if len(curve) < 10 else None)
            ax.set_xlabel("iteration (epoch)")
            ax.set_ylabel("test accuracy %")
            ax.set_title(row)
            ax.legend(fontsize=7)

    return Outcome(cells, claims, {"folds": Table(rows), "curves": Table(curve_rows)}, notes,
                   figure(draw, panels=(1, len(shown)), size=(5 + 5 * len(shown), 4.5),
                          title="Matsushima et al. Fig. 3 (accuracy through iterations)"))


# Tables 5 and 6, columns LR and M-SVM (and the online learners they are compared with in the
# text): Table 6's test error (%) and Table 5's seconds.
BATCH_PAPER = printed_values(BATCH_PRINTED)
TABLE5_SECONDS = {row: {name: float(seconds[name]) for name in ("PA", "SPA-II", "LR", "M-SVM")}
                  for row, seconds in TABLE5_PRINTED.items()}
BATCH_GRIDS = {"LR": (0.1, 1.0, 10.0), "M-SVM": (0.001, 0.01, 0.1)}
NEWS20_BATCH_GRIDS = {"LR": (0.1, 1.0), "M-SVM": (0.001, 0.01)}
QUICK_BATCH_GRIDS = {"LR": (0.1, 1.0), "M-SVM": (0.01, 0.1)}
BATCH_ONLINE = ("PA", "SPA-I", "SPA-II")


def _batch_model(name, C, seed, capped):
    """The batch learners of §5.3, from scikit-learn: multinomial logistic regression with an
    L2 penalty (a Gaussian prior on the weights; lbfgs) and the Crammer–Singer multiclass SVM
    (liblinear), with scikit-learn's default tolerances; iteration caps of 1,000 (LR) and
    10,000 (M-SVM), or scikit-learn's defaults (100 and 1,000) when ``capped``."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    if name == "LR":
        return LogisticRegression(C=C, max_iter=100 if capped else 1000)
    return LinearSVC(C=C, multi_class="crammer_singer", random_state=seed,
                     max_iter=1000 if capped else 10_000)


def _batch_row(row, X, y, generator, seed, *, epochs, grids):
    """One split of Table 6's layout (fold 0: test part 0, validation part 1, training parts
    2–9): the batch learners at each C of ``grids`` (the one with the lowest validation error
    is kept, with its test error and fit time) and PA, SPA-I, SPA-II at C = 0.001 for
    ``epochs`` epochs (the lowest test error over the epochs, and the time of the epochs)."""
    import time
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from threadpoolctl import threadpool_limits

    _, test, validation, train = next(_folds(generator, X.shape[0]))
    X_train, y_train = X[train], y[train]
    records = []
    for name, grid in grids.items():
        best = None
        for C in grid:
            model = _batch_model(name, C, seed, capped=row == "News20")
            # one thread, like the online learners (and no OpenMP spinning on a shared machine)
            with threadpool_limits(1), warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                start = time.perf_counter()
                model.fit(X_train, y_train)
                seconds = time.perf_counter() - start
            val = 100.0 * (1.0 - model.score(X[validation], y[validation]))
            iterations = int(np.max(model.n_iter_))
            record = {"row": row, "seed": seed, "algorithm": name, "C": C,
                      "validation_error": val,
                      "test_error": 100.0 * (1.0 - model.score(X[test], y[test])),
                      "seconds": seconds, "iterations": iterations,
                      "hit_iteration_cap": iterations >= model.max_iter, "chosen": False}
            records.append(record)
            if best is None or val < best["validation_error"]:
                best = record
        best["chosen"] = True
    classes = np.unique(y)
    orders = [generator.permutation(train.size) for _ in range(epochs)]
    warm_up = np.linspace(0, train.size - 1, 50).astype(int)  # rows of several classes
    for name in BATCH_ONLINE:
        params = {"C": 1e-3} if _has_c(name) else {}
        make(ALGORITHMS[name], **params).fit(X_train[warm_up], y_train[warm_up])  # compile
        model = make(ALGORITHMS[name], **params)
        stream = model.stream(X_train, y_train, classes=classes)
        seconds, errors = 0.0, []
        for order in orders:
            start = time.perf_counter()
            stream.learn(order)
            seconds += time.perf_counter() - start
            errors.append(100.0 * (1.0 - model.score(X[test], y[test])))
        records.append({"row": row, "seed": seed, "algorithm": name,
                        "C": 1e-3 if _has_c(name) else None, "validation_error": None,
                        "test_error": min(errors), "seconds": seconds, "iterations": epochs,
                        "hit_iteration_cap": None, "chosen": True})
    return records


def _batch(rows_wanted, quick, seeds):
    epochs = 4 if quick else EPOCHS_TABLE6
    data = {}
    if "USPS" in rows_wanted:
        X, y, _, _ = shipped("usps")
        data["USPS"] = subset(X, y, 1500, "matsushima-batch") if quick else (X, y)
    if "reut20" in rows_wanted or "News20" in rows_wanted:
        data.update({row: value for row, value in _text_data(quick).items()
                     if row in rows_wanted})
    records, first_choice = [], {}
    for row, (X, y) in data.items():
        for seed in seeds:
            key = "matsushima-table6" if row == "USPS" else f"matsushima-table6-text/{row}"
            grids = QUICK_BATCH_GRIDS if quick else (
                NEWS20_BATCH_GRIDS if row == "News20" else BATCH_GRIDS)
            if row == "News20" and row in first_choice:
                grids = first_choice[row]  # the first split's choice (see the protocol)
            found = _batch_row(row, X, y, rng(key, seed), seed, epochs=epochs, grids=grids)
            first_choice.setdefault(row, {r["algorithm"]: (r["C"],) for r in found
                                          if r["chosen"] and r["algorithm"] in grids})
            records += found
    cells, claims = [], []
    for row in data:
        chosen = [r for r in records if r["row"] == row and r["chosen"]]

        def values(name, quantity):
            return [r[quantity] for r in chosen if r["algorithm"] == name]

        def ratio(name):
            return [a / b for a, b in zip(values(name, "seconds"), values("PA", "seconds"))]

        source = {"reut20": "Reuters"}.get(row, row)
        cells += [cell(f"error % ({row})", name, "test error %",
                       BATCH_PRINTED[row][name],
                       values(name, "test_error"), f"Table 6, row {source}",
                       test_size=None if quick else PAPER_SIZES[row]) for name in ("LR", "M-SVM")]
        seconds = TABLE5_SECONDS[row]
        cells += [cell(f"time / PA's time ({row})", name, "time ratio",
                       round(seconds[name] / seconds["PA"], 1), ratio(name),
                       f"Table 5, row {'Reuter' if row == 'reut20' else row} (ratio of its "
                       "seconds)") for name in ("LR", "M-SVM")]
        ours = {name: mean(values(name, "test_error")) for name in ("LR", "M-SVM") + BATCH_ONLINE}
        batch = min(ours["LR"], ours["M-SVM"])
        online = ", ".join(f"{n} {ours[n]:.2f}" for n in ("LR", "M-SVM", "SPA-I", "SPA-II"))
        # the learners of a row run on the same splits per seed: they pair
        errors = {name: values(name, "test_error") for name in ("LR", "M-SVM", "SPA-I",
                                                                  "SPA-II")}
        if row == "USPS":
            claims.append(below_claim("USPS: the batch learners are more accurate than the "
                                      "online learners (SPA-I, SPA-II)", "§5.3, Table 6",
                                      errors, ("LR", "M-SVM"), ("SPA-I", "SPA-II")))
        if row == "reut20":
            claims.append(below_claim("reut20: SPA-I and SPA-II outperform the batch learners",
                                      "§5.3, Table 6", errors, ("SPA-I", "SPA-II"),
                                      ("LR", "M-SVM")))
        claims.append(Claim(f"{row}: SPA-II's peak error is competitive with the batch "
                            "learners' (at most 1 point above the better)", "§5.3, Table 6",
                            ours["SPA-II"] <= batch + 1.0, online))
        times = {name: mean(values(name, "seconds")) for name in ("LR", "M-SVM", "SPA-II")}
        claims.append(Claim(f"{row}: SPA-II's {epochs} epochs take less than a fourth of each "
                            "batch learner's time", "§5.3, Table 5",
                            times["SPA-II"] < min(times["LR"], times["M-SVM"]) / 4,
                            ", ".join(f"{n} {v:.2f} s" for n, v in times.items())))
    capped = sorted({f"{r['algorithm']} at C = {r['C']:g} ({r['row']})" for r in records
                     if r["hit_iteration_cap"]})

    def over_spa2(row, name):
        chosen = [r for r in records if r["row"] == row and r["chosen"]]
        return (mean([r["seconds"] for r in chosen if r["algorithm"] == name])
                / mean([r["seconds"] for r in chosen if r["algorithm"] == "SPA-II"]))

    speed = "; ".join(
        f"{row}: " + ", ".join(f"{name} {over_spa2(row, name):.1f} (paper "
                               f"{TABLE5_SECONDS[row][name] / TABLE5_SECONDS[row]['SPA-II']:.1f})"
                               for name in ("LR", "M-SVM")) for row in data)
    notes = [] if quick else [
        "Online learners in this table: C = 0.001 (the paper's value for the online "
        "experiments), no validation; their cells are Table 6's in matsushima-table6 and "
        "matsushima-table6-text.",
        "Fits that stopped at scikit-learn's iteration cap (their time is the cap's): "
        + (", ".join(capped) if capped else "none") + ".",
        "Time of the batch fit over SPA-II's 40 epochs: " + speed + ". Where the claim of "
        "'less than a fourth' fails, scikit-learn's solvers are faster against our online "
        "learners than the paper's unnamed batch implementations were against its own; the "
        "ratio is the implementations', not the algorithms'."]
    return Outcome(cells, claims, {"runs": Table(records)}, notes)


def batch_usps_reuters(quick, seeds):
    """Tables 5 and 6 of Matsushima et al., columns LR and M-SVM, rows USPS and Reuters: the
    test error of the batch learners, their training time as a ratio to PA's 40 epochs, and
    the text's claims comparing them with the online learners.

    * Data: USPS as in ``matsushima-table6``, reut20 (raw counts) as in
      ``matsushima-table6-text``; the split of each seed is that experiment's (the same random
      10 parts), and only its fold 0 is run (test part 0, validation part 1, training parts
      2–9): the batch fits of all ten folds would not fit in ten minutes.
    * LR: scikit-learn's ``LogisticRegression`` (multinomial, L2 penalty = the paper's Gaussian
      prior, lbfgs, default tolerance, at most 1,000 iterations); M-SVM: ``LinearSVC(
      multi_class="crammer_singer")`` (liblinear, default tolerance, at most 10,000
      iterations); the fits that still stop at the cap are listed in a note.  C is chosen by
      the validation error ("determined in the same way using the validation set"; the paper
      gives no grid) from {0.1, 1, 10} for LR and {0.001, 0.01, 0.1} for M-SVM; the cell is
      the test error of the chosen C.
    * Time: the wall time of the chosen C's ``fit`` on the training parts, on one thread
      (``threadpool_limits(1)``, as the online learners run), divided by the time of PA's 40
      epochs on the same parts in the same run (Table 5's ratios; the paper's seconds are
      those of its Xeon and of unnamed implementations).
    * Claims: PA, SPA-I and SPA-II run 40 epochs at C = 0.001 on the same split (lowest test
      error over the epochs); the claims compare them with the batch learners' errors, and
      SPA-II's time with theirs.
    * Quick mode: 1,500 USPS examples and the synthetic corpus of ``matsushima-table6-text``,
      4 epochs, C ∈ {0.1, 1} (LR) and {0.01, 0.1} (M-SVM).
    """
    return _batch(("USPS", "reut20"), quick, seeds)


def batch_news20(quick, seeds):
    """Tables 5 and 6 of Matsushima et al., columns LR and M-SVM, row News20, by the protocol
    of ``matsushima-batch``, with a smaller search to stay near ten minutes: C from {0.1, 1}
    (LR) and {0.001, 0.01} (M-SVM) on the first seed's split, and that choice kept for the
    other seeds; scikit-learn's default iteration caps (100 lbfgs iterations for LR, 1,000
    for liblinear), which these fits reach: their times are the caps'.  One fit on the
    15,000 training documents takes half a minute to four minutes on the shared two-core
    machine depending on its load (the full run took 5 minutes under a load of 2, 12 under a
    load of 7).

    * Quick mode: the synthetic corpus standing for News20, 4 epochs, C ∈ {0.1, 1} (LR) and
      {0.01, 0.1} (M-SVM).
    """
    if quick:
        outcome = _batch(("reut20",), quick, seeds)
        for c in outcome.cells:  # the synthetic corpus stands for News20 here
            c["group"] = c["group"].replace("reut20", "News20")
        return outcome
    return _batch(("News20",), quick, seeds)


TICK = 200


def fig1_usps(quick, seeds):
    """Fig. 1 of Matsushima et al.: one online pass over USPS at C = 0.001, cumulative mistakes
    and updates every 200 examples.

    * Data: the 7,291 USPS training examples (shipped LIBSVM copy), one random order per seed
      (the paper does not state its order).
    * C = 0.001 for every learner that has one, as printed.  Besides the exact learners, the
      SPA-I and SPA-II formulas as printed in the paper's Table 2 (``variant="printed"``) and
      PA-I/PA-II as printed (C/2 in place of C) are run, to show what the printed formulas do.
    * Fig. 2 (accumulated loss and success rate) is ``matsushima-fig2``.
    * The paper's figure has no readable numbers: only its claims are checked.
    * Quick mode: 1,500 examples.
    """
    X, y, _, _ = shipped("usps")
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
    def at_end(quantity):
        """learner → per-seed ``quantity`` after the whole stream (the learners of a seed
        see the same order: they pair)."""
        return {name: [r[quantity] for r in rows if r["algorithm"] == name
                       and r["examples"] == X.shape[0]] for name in learners}

    claims = []
    for pa, spa in PAIRS:
        claims.append(below_claim(f"{spa} makes fewer cumulative mistakes than {pa} and Perc",
                                  "§5, Fig. 1", at_end("mistakes"), (spa,), (pa, "Perc")))
        claims.append(below_claim(f"{spa}'s cumulative updates end lower than {pa}'s",
                                  "§5, Fig. 1", at_end("updates"), (spa,), (pa,)))
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


def _max_hinge_losses(model, X, y, classes):
    """Learn the rows of ``(X, y)`` one by one (``learn_one``) and return the loss each suffered
    *before* its update, ℓ(W⁽ⁱ⁾; (xᵢ, yᵢ)) = max_{u≠yᵢ} [1 − (w_{yᵢ}·xᵢ − w_u·xᵢ)]₊ (§2), read
    from the public ``coef_`` (no intercept).  ``coef_`` is read again only after a round that
    updated the model (``n_updates_`` moved): between updates W does not change."""
    losses = np.empty(X.shape[0])
    column = {label: k for k, label in enumerate(classes)}
    weights, updates = None, None
    for i in range(X.shape[0]):
        started = hasattr(model, "classes_")
        if not started:
            weights = np.zeros((len(classes), X.shape[1]))  # W⁽¹⁾ = 0
        elif weights is None or model.n_updates_ != updates:
            weights, updates = model.coef_, model.n_updates_
        scores = weights @ X[i]
        k = column[y[i]]
        true = scores[k]
        scores[k] = -np.inf
        losses[i] = max(0.0, 1.0 - (true - scores.max()))
        model.learn_one(X[i], y[i], **({} if started else {"classes": classes}))
    return losses


def fig2_usps(quick, seeds):
    """Fig. 2 of Matsushima et al.: one online pass over USPS at C = 0.001, the accumulated
    loss Σ_{i≤n} ℓ(W⁽ⁱ⁾; (xᵢ, yᵢ)) and the success rate 1 − #miss/n every 200 examples (§5.2).

    * Data, orders and C as in ``matsushima-fig1`` (the 7,291 USPS training examples, one
      random order per seed, C = 0.001 for every learner that has one, exact updates).
    * The loss of round i is the multiclass hinge loss of §2, max_{u≠y} [1 − (w_y·x − w_u·x)]₊,
      of the model *before* it learns the example, for every learner (the Perceptron
      included, although it does not minimize it); the scores are read from the model's
      public ``coef_`` before each ``learn_one`` (the paper does not say how it measured the
      loss; this is its definition).
    * The paper's figure has no readable numbers: only its claims are checked.
    * Quick mode: 1,500 examples.
    """
    X, y, _, _ = shipped("usps")
    if quick:
        X, y = subset(X, y, 1500, "matsushima-fig2")
    classes = np.unique(y)
    stops = np.array(list(range(TICK, X.shape[0], TICK)) + [X.shape[0]])
    rows = []
    for seed in seeds:
        order = rng("matsushima-fig1", seed).permutation(X.shape[0])  # fig1's orders
        for name, algorithm in ALGORITHMS.items():
            model = make(algorithm, **({"C": 1e-3} if _has_c(name) else {}))
            mistakes_before = []
            losses = np.empty(X.shape[0])
            start = 0
            for stop in stops:
                part = order[start:stop]
                losses[start:stop] = _max_hinge_losses(model, X[part], y[part], classes)
                mistakes_before.append(int(model.n_mistakes_))
                start = stop
            accumulated = np.cumsum(losses)[stops - 1]
            rows += [{"algorithm": name, "seed": seed, "examples": int(stop),
                      "accumulated_loss": float(loss), "mistakes": mistakes,
                      "success_rate": 1.0 - mistakes / stop}
                     for stop, loss, mistakes in zip(stops, accumulated, mistakes_before)]
    curves = Table(rows)

    def curve(name, quantity):
        return np.array([mean([r[quantity] for r in rows if r["algorithm"] == name
                               and r["examples"] == s]) for s in stops])

    loss = {name: curve(name, "accumulated_loss") for name in ALGORITHMS}
    success = {name: curve(name, "success_rate") for name in ALGORITHMS}
    def at_end(quantity, sign=1.0):
        """learner → per-seed ``sign``·``quantity`` after the whole stream (the learners of a
        seed see the same order: they pair)."""
        return {name: [sign * r[quantity] for r in rows if r["algorithm"] == name
                       and r["examples"] == stops[-1]] for name in ALGORITHMS}

    claims = []
    for pa, spa in PAIRS:
        below = np.mean(loss[spa] < np.minimum(loss[pa], loss["Perc"]))
        lower = below_claim(f"{spa} ends with a lower accumulated loss than {pa} and Perc",
                            "§5.2, Fig. 2", at_end("accumulated_loss"), (spa,), (pa, "Perc"))
        claims.append(Claim(lower.statement, lower.source, lower.holds,
                            lower.evidence + f"; lower at {100 * below:.0f} % of the "
                            f"{len(stops)} checkpoints", lower.p_value))
        # a higher success rate is a lower failure rate: tested on −rate
        holds, p_value, test = below_test(at_end("success_rate", -1.0), (spa,), (pa, "Perc"))
        claims.append(Claim(f"{spa} ends with a higher success rate than {pa} and Perc",
                            "§5.2, Fig. 2", holds,
                            f"{success[spa][-1]:.4f} vs {success[pa][-1]:.4f} and "
                            f"{success['Perc'][-1]:.4f}; weakest pair: {test}", p_value))
    notes = [] if quick else [
        "Final accumulated loss per example: " + ", ".join(
            f"{name} {loss[name][-1] / stops[-1]:.3f}" for name in ALGORITHMS) + "."]

    def draw(axes):
        for i, name in enumerate(ALGORITHMS):
            axes[0].plot(stops, loss[name], label=name, color=f"C{i}")
            axes[1].plot(stops, success[name], label=name, color=f"C{i}")
        axes[0].set_ylabel("accumulated loss")
        axes[1].set_ylabel("success rate (1 − #miss / n)")
        for ax in axes:
            ax.set_xlabel("examples")
        axes[1].set_ylim(max(0.0, min(s[len(s) // 4] for s in success.values()) - 0.02), 1.0)
        axes[0].set_yscale("log")  # the Perceptron's unnormalized weights: a far larger loss
        axes[0].legend(fontsize=7, loc="lower right")

    return Outcome([], claims, {"curves": curves}, notes,
                   figure(draw, panels=(1, 2), title="Matsushima et al. Fig. 2 (USPS, C = 0.001)"))


EXPERIMENTS = [
    Experiment("matsushima-table4", MATSUSHIMA, "Table 4 (USPS row)",
               "Perc, PA, PA-I, PA-II and SPA, SPA-I, SPA-II: one-pass test error in a 10-fold "
               "cross-validation on USPS", table4_usps, ("usps",), default_seeds=10),
    Experiment("matsushima-table4-text", MATSUSHIMA, "Table 4 (rows reut20, News20)",
               "The same on Reuters-21578 (the paper's 20 topics) and 20 Newsgroups",
               table4_text, ("reuters21578", "news20"), default_seeds=10, quick_seeds=1),
    Experiment("matsushima-table5", MATSUSHIMA, "Table 5 (USPS row)",
               "Training time of 40 iterations, as ratios to PA's", table5_usps, ("usps",),
               default_seeds=10, quick_seeds=1),
    Experiment("matsushima-table5-text", MATSUSHIMA, "Table 5 (rows Reuter, News20)",
               "Training time of 40 iterations on Reuters-21578 and 20 Newsgroups, as ratios "
               "to PA's", table5_text, ("reuters21578", "news20"), default_seeds=10,
               quick_seeds=1),
    Experiment("matsushima-table6", MATSUSHIMA, "Table 6 (USPS row)",
               "Peak test error over 40 epochs of the online learners, and its epoch, in a "
               "10-fold cross-validation on USPS", table6_usps, ("usps",), default_seeds=10,
               quick_seeds=1),
    Experiment("matsushima-fig1", MATSUSHIMA, "Fig. 1",
               "Cumulative mistakes and updates of one pass over USPS at C = 0.001, exact and "
               "printed formulas", fig1_usps, ("usps",), default_seeds=10,
               figure_values=CAPTION_ONLY),
    Experiment("matsushima-fig2", MATSUSHIMA, "Fig. 2",
               "Accumulated loss and success rate of one pass over USPS at C = 0.001",
               fig2_usps, ("usps",), default_seeds=10,
               figure_values=CAPTION_ONLY),
    Experiment("matsushima-table6-text", MATSUSHIMA, "Table 6 (rows Reuters, News20) and Fig. 3",
               "Peak test error over 40 epochs of the online learners on Reuters-21578 and 20 "
               "Newsgroups, and the accuracy through the epochs on 20 Newsgroups",
               table6_text, ("reuters21578", "news20"), default_seeds=10, quick_seeds=1),
    Experiment("matsushima-batch", MATSUSHIMA, "Tables 5–6, columns LR and M-SVM (rows USPS, "
               "Reuters)", "Test error and training time of multinomial logistic regression "
               "and the Crammer–Singer SVM, against PA, SPA-I and SPA-II over 40 epochs",
               batch_usps_reuters, ("usps", "reuters21578"), default_seeds=10, quick_seeds=1),
    Experiment("matsushima-batch-news20", MATSUSHIMA, "Tables 5–6, columns LR and M-SVM (row "
               "News20)", "The same on 20 Newsgroups", batch_news20, ("news20",),
               default_seeds=10, quick_seeds=1),
]
