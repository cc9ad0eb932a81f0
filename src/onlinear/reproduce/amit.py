"""Amit, Shalev-Shwartz & Singer, §9.1: the synthetic experiments of Figs. 7 (block size),
8 (sparsity of the target) and 9 (label noise); §9.2, text categorization in the paper's own
setting (one prototype over class-dependent features) and in ours (one vector per class), on
Reuters-21578 and 20 Newsgroups in place of the Enron e-mail of Tables 1–3, which is not in our
data.

The paper plots the synthetic results without printing numbers, and its text numbers are those
of Enron users, so there are no cells to compare: the claims are checked on our means at each
scheme's best C, with a one-sided test over the seeds (paired between schemes, which run on the
same data sets; Welch between two settings, which draw their own).  The best C is chosen on the
same runs, which favours each scheme alike.
"""
import numpy as np

from ..data import make_simplex_blocks
from ..tables import Table
from ..registry import AMIT
from ._framework import (CAPTION_ONLY, Claim, Experiment, Outcome, paired_test, unpaired_test,
                         weakest)
from ._protocol import figure, load, make, mean, rng

ADDITIVE = ("simperc", "conproj", "simproj", "simopt", "maxpa")
MULTIPLICATIVE = ("simproj", "maxpa")
LABELS = {"simperc": "SimPerc", "conproj": "ConProj", "simproj": "SimProj",
          "simopt": "SimOpt", "maxpa": "MaxPA"}
C_GRID = tuple(2.0 ** e for e in range(-5, 4))          # §9.1: C ∈ {2⁻⁵, …, 2³}
C_GRID_NOISE = tuple(2.0 ** e for e in range(-9, 4))    # §9.1: [2⁻⁹, 2³] with label noise
M_C_FACTORS = (0.5, 1.0, 2.0)


def _synthetic(key, vary, values, quick, seeds, *, block_size=5, noise=0.0, n_relevant=50,
               c_grid=C_GRID):
    """Mean imperfect trials of every scheme at its best C, for each value of ``vary``.

    Returns ``{(label, value): mean}``, the table of every (scheme, form, C, value) mean and
    ``{(label, value): per-seed values at that best C}`` (for the tests over seeds: the
    schemes of one value run on the same data sets, so they pair by seed; two values do not).
    """
    n_features, n_trials = (100, 300) if quick else (500, 1000)
    grid = (0.125,) if quick else c_grid
    factors = (1.0,) if quick else M_C_FACTORS
    scale = n_features / 500
    runs = {}
    for value in values:
        settings = {"block_size": block_size, "noise": noise, "n_relevant": n_relevant,
                    vary: value}
        relevant = max(1, int(round(settings["n_relevant"] * scale)))
        for seed in seeds:
            data = make_simplex_blocks(n_trials, block_size=settings["block_size"],
                                       n_features=n_features, n_relevant=relevant,
                                       noise=settings["noise"],
                                       n_margin_samples=20_000 if quick else 100_000,
                                       random_state=rng(f"{key}/{value}", seed))
            X, y, block_ptr = data.blocks()
            for scheme in ADDITIVE:
                for C in grid:
                    model = make(scheme, task="blocks", C=C)
                    runs.setdefault((LABELS[scheme] + ".A", C, value), []).append(
                        model.fit(X, y, block_ptr=block_ptr).n_mistakes_)
            for scheme in MULTIPLICATIVE:
                for factor in factors:
                    model = make(scheme, task="blocks", C=factor * data.margin,
                                 update="multiplicative", gamma=data.margin)
                    runs.setdefault((LABELS[scheme] + ".M", factor, value), []).append(
                        model.fit(X, y, block_ptr=block_ptr).n_mistakes_)
    rows = [{"algorithm": a, "C": c, vary: v, "mean_imperfect_trials": mean(m),
             "sd": float(np.std(m, ddof=1)) if len(m) > 1 else 0.0, "runs": len(m)}
            for (a, c, v), m in runs.items()]
    best, at_best = {}, {}
    for (algorithm, _, value), per_seed in runs.items():
        if mean(per_seed) < best.get((algorithm, value), np.inf):
            best[(algorithm, value)] = mean(per_seed)
            at_best[(algorithm, value)] = per_seed
    return best, Table(rows), at_best


def _curve_figure(panels, values, xlabel, title):
    """One axes per ``(best, per-seed values at the best C, panel title)`` of ``panels``:
    imperfect trials against ``values``, the error bars the sd over the seeds."""

    def draw(axes):
        for ax, (best, at_best, heading) in zip(axes, panels):
            for i, name in enumerate(sorted({a for a, _ in best})):
                spread = [np.std(at_best[(name, v)], ddof=1) if len(at_best[(name, v)]) > 1
                          else 0.0 for v in values]
                ax.errorbar(values, [best[(name, v)] for v in values], yerr=spread,
                            marker="o", capsize=2,
                            linestyle="-" if name.endswith(".A") else "--", label=name,
                            color=f"C{i}")
            ax.set_xlabel(xlabel)
            ax.set_ylabel("imperfect trials (best C, mean ± sd over seeds)")
            if heading:
                ax.set_title(heading, fontsize=9)
        axes[0].legend(fontsize=7)

    return figure(draw, panels=(1, len(panels)), size=(6 * len(panels), 4), title=title)


def _panels(key, vary, values, quick, seeds, **options):
    """The left (blocks of 5) and, in a full run, right (blocks of 20) panels of Figs. 8–9:
    ``[(block size, best, table, per-seed values at the best C)]``."""
    out = []
    for k in ((5,) if quick else (5, 20)):
        best, table, at_best = _synthetic(key if k == 5 else f"{key}/k{k}", vary, values, quick,
                                          seeds, block_size=k, **options)
        out.append((k, best, Table([{"block_size": k, **row} for row in table],
                                   ["block_size", *table.columns]), at_best))
    return out


def _monotone_text(best, name, values):
    return f"{name}: " + " → ".join(f"{best[(name, v)]:.1f}" for v in values)


def fig7_block_size(quick, seeds):
    """Fig. 7 of Amit et al.: imperfect trials against the block size k.

    * Data (§9.1): :func:`onlinear.data.make_simplex_blocks`, n = 500 features of which 50
      relevant (target on the simplex, U[0, 1] weights), instances in {−1, 0, 1} with
      P(0) = 0.5 (the paper does not give p), margin at the 75 % quantile of |ω·x|, 1,000
      trials per run, no noise; a fresh data set per seed (the paper: 10 repetitions).
    * Block sizes {1, 2, 5, 10, 20, 50} (the paper does not list its values).
    * Additive schemes SimPerc, ConProj, SimProj, SimOpt and MaxPA with C ∈ {2⁻⁵, …, 2³};
      multiplicative SimProj.M and MaxPA.M with γ = γ_gen and C ∈ {½, 1, 2}·γ_gen (the paper:
      γ ∈ [½, 2]·γ_gen).  Each scheme is scored at the C best on the mean over the runs.
    * Metric: imperfect trials (trials with at least one mistaken constraint), against the
      observed labels.
    * Quick mode: n = 100 (10 relevant), 300 trials, k ∈ {1, 5, 20}, C = 1/8 (.A) and γ_gen
      (.M).
    """
    values = (1, 5, 20) if quick else (1, 2, 5, 10, 20, 50)
    best, table, at_best = _synthetic("amit-fig7", "block_size", values, quick, seeds)
    first, last = values[0], values[-1]
    larger = [v for v in values if v > 1]
    p_a, t_a = weakest([paired_test(at_best[("SimProj.A", v)], at_best[("MaxPA.A", v)])
                        for v in larger])
    p_m, t_m = weakest([paired_test(at_best[("SimProj.M", v)], at_best[("MaxPA.M", v)])
                        for v in larger])
    improving, worsening = ("SimProj.A", "SimOpt.A"), ("MaxPA.A", "SimProj.M", "MaxPA.M")
    p_up, t_up = weakest([unpaired_test(at_best[(n, last)], at_best[(n, first)])
                          for n in improving])
    p_down, t_down = weakest([unpaired_test(at_best[(n, first)], at_best[(n, last)])
                              for n in worsening])
    claims = [
        Claim("SimProj.A makes fewer mistakes than MaxPA.A for every block size > 1 (the same "
              "algorithm for k = 1)", "§9.1, Fig. 7",
              all(best[("SimProj.A", v)] < best[("MaxPA.A", v)] for v in larger),
              _monotone_text(best, "SimProj.A", values) + "; "
              + _monotone_text(best, "MaxPA.A", values) + f"; weakest k: {t_a}", p_a),
        Claim("SimProj.M makes fewer mistakes than MaxPA.M for every block size > 1",
              "§9.1, Fig. 7",
              all(best[("SimProj.M", v)] < best[("MaxPA.M", v)] for v in larger),
              _monotone_text(best, "SimProj.M", values) + "; "
              + _monotone_text(best, "MaxPA.M", values) + f"; weakest k: {t_m}", p_m),
        Claim("SimProj.A and SimOpt.A improve as the block size grows (tested from the "
              "smallest to the largest k)", "§9.1, Fig. 7",
              all(best[(n, first)] > best[(n, last)] for n in improving),
              _monotone_text(best, "SimOpt.A", values) + f"; weakest: {t_up}", p_up),
        Claim("MaxPA.A and the multiplicative schemes deteriorate as the block size grows "
              "(tested from the smallest to the largest k)", "§9.1, Fig. 7",
              all(best[(n, first)] < best[(n, last)] for n in worsening),
              f"k = {first} → {last}: " + ", ".join(
                  f"{n} {best[(n, first)]:.1f} → {best[(n, last)]:.1f}" for n in worsening)
              + f"; weakest: {t_down}", p_down),
    ]
    return Outcome([], claims, {"settings": table}, [], _curve_figure(
        [(best, at_best, "")], values, "block size k", "Amit et al. Fig. 7 (ours)"))


def fig8_sparsity(quick, seeds):
    """Fig. 8 of Amit et al.: imperfect trials against the number of relevant features of the
    target, blocks of 5 (left panel) and of 20 (right panel).

    * Data as in Fig. 7 (n = 500 features, 1,000 trials, no noise), block sizes 5 and 20, with
      50, 100, 150, 200 and 250 relevant features (10 %–50 % of n, §9.1).
    * Schemes and C grids as in Fig. 7; MaxPA.A, which the paper leaves out as "much worse",
      is kept.
    * Quick mode: n = 100 (10, 30 and 50 relevant features), 300 trials, one C, blocks of 5.
    """
    values = (50, 150, 250) if quick else (50, 100, 150, 200, 250)
    panels = _panels("amit-fig8", "n_relevant", values, quick, seeds)
    middle = values[len(values) // 2]
    claims = []
    for k, best, _, at_best in panels:
        spread = max(best[("SimProj.A", v)] for v in values) / max(
            min(best[("SimProj.A", v)] for v in values), 1e-9)
        others = [n for n in sorted({a for a, _ in best}) if n != "MaxPA.A"]
        p_worse, t_worse = weakest([paired_test(at_best[(n, v)], at_best[("MaxPA.A", v)])
                                    for n in others for v in values])
        p_hump, t_hump = weakest([
            unpaired_test(at_best[("SimProj.M", values[0])], at_best[("SimProj.M", middle)]),
            unpaired_test(at_best[("SimProj.M", values[-1])], at_best[("SimProj.M", middle)])])
        claims += [
            Claim(f"[k = {k}] the additive versions are roughly insensitive to the sparsity "
                  "(read: SimProj.A's means within a factor 1.5 over 10 %–50 % relevant "
                  "features; a bound on the means, no test over seeds)",
                  "§9.1, Fig. 8", spread <= 1.5, _monotone_text(best, "SimProj.A", values)
                  + f" (max/min {spread:.2f})"),
            Claim(f"[k = {k}] MaxPA.A performs much worse than any of the other algorithms "
                  "(left out of the paper's plot; read: above every other scheme at every "
                  "sparsity)", "§9.1, Fig. 8",
                  all(best[("MaxPA.A", v)] > max(best[(n, v)] for n in others)
                      for v in values),
                  _monotone_text(best, "MaxPA.A", values) + f"; weakest rival: {t_worse}",
                  p_worse),
            Claim(f"[k = {k}] the multiplicative versions get worse from 10 % to 30 % relevant "
                  "features, then improve", "§9.1, Fig. 8",
                  best[("SimProj.M", values[0])] < best[("SimProj.M", middle)]
                  > best[("SimProj.M", values[-1])],
                  _monotone_text(best, "SimProj.M", values) + f"; weakest side: {t_hump}",
                  p_hump),
        ]
    table = Table([row for _, _, t, _ in panels for row in t], panels[0][2].columns)
    return Outcome([], claims, {"settings": table}, [], _curve_figure(
        [(best, at_best, f"blocks of {k}") for k, best, _, at_best in panels], values,
        "relevant features (of 500)", "Amit et al. Fig. 8 (ours)"))


def fig9_noise(quick, seeds):
    """Fig. 9 of Amit et al.: imperfect trials against the label-noise rate, blocks of 5 (left
    panel) and of 20 (right panel).

    * Data as in Fig. 7 (n = 500, 50 relevant, 1,000 trials), block sizes 5 and 20;
      each trial is contaminated with probability q ∈ {0, 0.05, 0.1, 0.15, 0.2} and in a
      contaminated trial each label flips with probability 0.4 (§9.1).
    * C ∈ {2⁻⁹, …, 2³} for the additive schemes ("to avoid too aggressive online updates"),
      {½, 1, 2}·γ_gen for the multiplicative ones; best C on the mean over the runs.
    * Mistakes are counted against the observed (noisy) labels.
    * Quick mode: n = 100, 300 trials, q ∈ {0, 0.1, 0.2}, one C, blocks of 5.
    """
    values = (0.0, 0.1, 0.2) if quick else (0.0, 0.05, 0.1, 0.15, 0.2)
    panels = _panels("amit-fig9", "noise", values, quick, seeds, c_grid=C_GRID_NOISE)
    simultaneous = ("SimPerc.A", "ConProj.A", "SimProj.A", "SimOpt.A", "SimProj.M")
    at_top = values[-1]
    claims = []
    for k, best, _, at_best in panels:
        noisy = [v for v in values if v > 0]
        p_top, t_top = weakest([paired_test(at_best[(n, at_top)], at_best[("MaxPA.A", at_top)])
                                for n in simultaneous])
        p_opt, t_opt = weakest([paired_test(at_best[("SimProj.A", v)], at_best[("SimOpt.A", v)])
                                for v in noisy])
        ys = np.array([best[("SimProj.A", v)] for v in values])
        slope, intercept = np.polyfit(values, ys, 1)
        residual = ys - (slope * np.array(values) + intercept)
        r2 = 1.0 - float(residual @ residual) / max(float((ys - ys.mean()) @ (ys - ys.mean())),
                                                    1e-12)
        claims += [
            Claim(f"[k = {k}] SimProj's mistakes grow linearly with the noise rate",
                  "§9.1, Fig. 9", r2 >= 0.95, f"R² of a line through SimProj.A: {r2:.3f}; "
                  + _monotone_text(best, "SimProj.A", values)),
            Claim(f"[k = {k}] the simultaneous-projection variants beat MaxPA.A at the highest "
                  "noise (all five: SimPerc, ConProj, SimProj, SimOpt, SimProj.M)",
                  "§9.1, Fig. 9",
                  all(best[(n, at_top)] < best[("MaxPA.A", at_top)] for n in simultaneous),
                  f"q = {at_top}: " + ", ".join(f"{n} {best[(n, at_top)]:.1f}"
                                               for n in (*simultaneous, "MaxPA.A", "MaxPA.M"))
                  + f"; weakest variant: {t_top}", p_top),
            Claim(f"[k = {k}] SimOpt.A is worse than SimProj.A under noise (at every noise "
                  "rate > 0)", "§9.1, Fig. 9",
                  all(best[("SimOpt.A", v)] > best[("SimProj.A", v)] for v in noisy),
                  _monotone_text(best, "SimOpt.A", values) + f"; weakest rate: {t_opt}",
                  p_opt),
        ]
        # "scales super linearly": a parabola through MaxPA.A's means bends upwards, while
        # SimProj.A's line fits (the claim above)
        curvature = float(np.polyfit(values, [best[("MaxPA.A", v)] for v in values], 2)[0])
        claims.append(Claim(
            f"[k = {k}] MaxPA.A's mistakes grow super-linearly with the noise rate (read: the "
            "quadratic term of a parabola through its means is positive)", "§9.1, Fig. 9",
            curvature > 0, f"quadratic coefficient {curvature:+.1f}; "
            + _monotone_text(best, "MaxPA.A", values)))
        if k == 5:
            rivals = [n for n in sorted({a for a, _ in best}) if n != "SimProj.M"]
            p_m, t_m = weakest([paired_test(at_best[("SimProj.M", v)], at_best[(n, v)])
                                for n in rivals for v in noisy])
            claims.append(Claim(
                "[k = 5] SimProj.M is the best performing variant (at every noise rate > 0)",
                "§9.1, Fig. 9", all(best[("SimProj.M", v)] < min(best[(n, v)] for n in rivals)
                                    for v in noisy),
                _monotone_text(best, "SimProj.M", values) + f"; weakest rival: {t_m}", p_m))
        if k == 20:
            p_all, t_all = weakest([paired_test(at_best[(n, v)], at_best[(rival, v)])
                                    for n in simultaneous for v in noisy
                                    for rival in ("MaxPA.A", "MaxPA.M")])
            claims.append(Claim(
                "[k = 20] every simultaneous-projection variant beats every MaxPA variant "
                "(at every noise rate > 0)",
                "§9.1, Fig. 9", all(best[(n, v)] < min(best[("MaxPA.A", v)],
                                                       best[("MaxPA.M", v)])
                                    for n in simultaneous for v in noisy),
                f"q = {at_top}: " + ", ".join(f"{n} {best[(n, at_top)]:.1f}" for n in
                                             (*simultaneous, "MaxPA.A", "MaxPA.M"))
                + f"; weakest pair: {t_all}", p_all))
    table = Table([row for _, _, t, _ in panels for row in t], panels[0][2].columns)
    return Outcome([], claims, {"settings": table}, [], _curve_figure(
        [(best, at_best, f"blocks of {k}") for k, best, _, at_best in panels], values,
        "noise rate q",
        "Amit et al. Fig. 9 (ours)"))


EXPERIMENTS = [
    Experiment("amit-fig7", AMIT, "Fig. 7 (block size)",
               "Synthetic blocks: imperfect trials of the simultaneous projections and MaxPA, "
               "additive and multiplicative, against the block size", fig7_block_size,
               (), default_seeds=10, quick_seeds=2,
               figure_values=CAPTION_ONLY),
    Experiment("amit-fig8", AMIT, "Fig. 8 (sparsity, blocks of 5 and 20)",
               "Synthetic blocks: imperfect trials against the number of relevant features",
               fig8_sparsity, (), default_seeds=10, quick_seeds=2,
               figure_values=CAPTION_ONLY),
    Experiment("amit-fig9", AMIT, "Fig. 9 (label noise, blocks of 5 and 20)",
               "Synthetic blocks: imperfect trials against the label-noise rate",
               fig9_noise, (), default_seeds=10, quick_seeds=2,
               figure_values=CAPTION_ONLY),
]


# ============================================================================ §9.2, text
TEXT_C_GRID = tuple(2.0 ** e for e in range(-5, 6, 2))  # §9.2: {2⁻⁵, …, 2⁵}, every other one
TEXT_SCHEMES = ("simperc", "conproj", "simproj", "simopt", "maxpa")


def class_dependent_blocks(X, y, classes, order):
    """The trials of §9.2's single-prototype setting, built online along ``order``.

    For message t with words j (the non-zero columns of its row), the class-dependent feature
    of class r is, from the messages seen before t (statistics updated with the true class
    after each trial, so they do not depend on the learner):

    * ``φ_j(x, r) = 2`` if j occurs in at least 1/5 of the earlier messages of class r,
    * ``φ_j(x, r) = −1`` if it occurs in fewer than 2 % of them (every word, for a class with
      no earlier message),
    * 0 otherwise;

    and the trial is the block of the k − 1 rows ``φ(x, y) − φ(x, s)``, s ≠ y, all labelled
    +1: the single prototype ω predicts ``argmax_r ω·φ(x, r)``, and a trial is imperfect
    exactly when some wrong class scores at least as high as the right one.

    Returns
    -------
    Blocks
        CSR rows, labels (+1), block offsets — one trial per message of ``order``.
    """
    import scipy.sparse as sp

    from ..data import Blocks

    X = sp.csr_matrix(X)
    position = {label: i for i, label in enumerate(classes)}
    k = len(classes)
    frequency = np.zeros((k, X.shape[1]))
    seen = np.zeros(k)
    data, indices, counts = [], [], []
    for i in order:
        words = X.indices[X.indptr[i]:X.indptr[i + 1]]
        df = frequency[:, words]
        known = seen[:, None] > 0
        phi = np.where(known & (df >= 0.2 * seen[:, None]), 2.0,
                       np.where(~known | (df < 0.02 * seen[:, None]), -1.0, 0.0))
        target = position[y[i]]
        diff = phi[target][None, :] - np.delete(phi, target, axis=0)
        rows, columns = np.nonzero(diff)
        indices.append(words[columns])
        data.append(diff[rows, columns])
        counts.append(np.bincount(rows, minlength=k - 1))
        frequency[target, words] += 1.0
        seen[target] += 1.0
    indptr = np.concatenate([[0], np.cumsum(np.concatenate(counts))])
    rows_matrix = sp.csr_matrix((np.concatenate(data), np.concatenate(indices), indptr),
                                shape=(len(order) * (k - 1), X.shape[1]))
    return Blocks(rows_matrix, np.ones(rows_matrix.shape[0]),
                  np.arange(len(order) + 1, dtype=np.int64) * (k - 1))


def _synthetic_corpus(generator, n_documents=600, n_words=400, n_classes=6, length=15):
    """A small bag-of-words stream for quick mode: each class draws its words from its own
    Dirichlet distribution over a shared vocabulary (word counts as features)."""
    import scipy.sparse as sp

    topics = generator.dirichlet(np.full(n_words, 0.3), size=n_classes)
    y = generator.integers(n_classes, size=n_documents)
    counts = np.stack([generator.multinomial(length, topics[c]) for c in y])
    return sp.csr_matrix(counts.astype(np.float64)), y + 1


def text_categorization(quick, seeds):
    """§9.2 of Amit et al. in the paper's own setting — one prototype over class-dependent
    features — and in ours (Kesler's: one weight vector per class), on Reuters-21578 and
    20 Newsgroups in place of Enron.

    * Data: Enron e-mail foldering (the paper's seven users) is not available offline; the
      substitutes are Reuters-21578 (ModApte training split, documents with exactly one topic,
      59 topics) and 20 Newsgroups ("bydate" training split, 20 groups); a message's words
      are the non-zero entries of its tf-idf row.
    * Paper's setting (§9.2): the class-dependent features φ(x, r) ∈ {2, −1, 0} of
      :func:`class_dependent_blocks` ("< 2 % of previous messages" read per class), one trial
      of k − 1 constraints per message, the single prototype learned by SimPerc, ConProj,
      SimProj, SimOpt and MaxPA (``make(name, task="blocks")``).
    * Our setting: the same schemes as multiclass learners on the tf-idf rows
      (``make(name)``: one vector per class, Kesler's construction).
    * One online pass; the metric is the percentage of online mistakes (§9.2).  Each scheme is
      scored at its best C of {2⁻⁵, 2⁻³, …, 2⁵} (the paper's grid {2⁻⁵, …, 2⁵}, every other
      value, for time) on the mean over the orders; the orders are seeded random
      permutations of the training split (the paper follows each user's time line).
    * The paper's numbers are Enron users' (its Tables 1–3): no cell compares with them; the
      claims are its orderings.
    * Quick mode: a synthetic 600-document, 6-class corpus (:func:`_synthetic_corpus`), C ∈
      {2⁻³, 2}.
    """
    grid = (2.0 ** -3, 2.0) if quick else TEXT_C_GRID
    if quick:
        corpora = {"synthetic": _synthetic_corpus(rng("amit-text/corpus", 0))}
    else:
        corpora = {}
        for name in ("reuters21578", "news20"):
            X, y, _, _ = load(name)
            corpora[name] = (X, y)
    rows = []
    for corpus, (X, y) in corpora.items():
        classes = np.unique(y)
        for seed in seeds:
            order = rng(f"amit-text/{corpus}", seed).permutation(X.shape[0])
            trials = class_dependent_blocks(X, y, classes, order)
            X_order, y_order = X[order], y[order]
            for scheme in TEXT_SCHEMES:
                for C in grid:
                    single = make(scheme, task="blocks", C=C).partial_fit(
                        trials.X, trials.y, classes=[-1.0, 1.0], block_ptr=trials.block_ptr)
                    kesler = make(scheme, C=C).partial_fit(X_order, y_order, classes=classes)
                    for setting, model in (("single prototype, class-dependent features",
                                            single), ("one vector per class (Kesler)", kesler)):
                        rows.append({"data": corpus, "setting": setting,
                                     "algorithm": LABELS[scheme], "C": C, "seed": seed,
                                     "mistakes_percent": 100.0 * model.n_mistakes_
                                     / X.shape[0]})
    table = Table(rows)
    means = {}
    for r in rows:
        means.setdefault((r["data"], r["setting"], r["algorithm"], r["C"]), []).append(
            r["mistakes_percent"])
    best = {}
    for (corpus, setting, algorithm, _), values in means.items():
        key = (corpus, setting, algorithm)
        best[key] = min(best.get(key, np.inf), mean(values))
    settings = ("single prototype, class-dependent features", "one vector per class (Kesler)")
    claims = []
    for setting in settings:
        short = "paper's setting" if setting.startswith("single") else "Kesler setting"
        claims.append(Claim(
            f"[{short}] SimProj makes fewer online mistakes than MaxPA", "§9.2, Table 1",
            all(best[(c, setting, "SimProj")] < best[(c, setting, "MaxPA")] for c in corpora),
            "; ".join(f"{c}: SimProj {best[(c, setting, 'SimProj')]:.1f} %, MaxPA "
                      f"{best[(c, setting, 'MaxPA')]:.1f} %, SimOpt "
                      f"{best[(c, setting, 'SimOpt')]:.1f} %" for c in corpora)))
        claims.append(Claim(
            f"[{short}] SimOpt makes fewer online mistakes than MaxPA", "§9.2, Table 1",
            all(best[(c, setting, "SimOpt")] < best[(c, setting, "MaxPA")] for c in corpora),
            "; ".join(f"{c}: SimOpt {best[(c, setting, 'SimOpt')]:.1f} %, MaxPA "
                      f"{best[(c, setting, 'MaxPA')]:.1f} %" for c in corpora)))
        claims.append(Claim(
            f"[{short}] SimProj beats SimPerc and ConProj", "§9.2, Table 1",
            all(best[(c, setting, "SimProj")] < min(best[(c, setting, "SimPerc")],
                                                    best[(c, setting, "ConProj")])
                for c in corpora),
            "; ".join(f"{c}: SimPerc {best[(c, setting, 'SimPerc')]:.1f} %, ConProj "
                      f"{best[(c, setting, 'ConProj')]:.1f} %" for c in corpora)))
    best_table = Table([{"data": c, "setting": s, "algorithm": a, "best_mistakes_percent": v}
                        for (c, s, a), v in best.items()])
    gap = {setting: {c: best[(c, setting, "SimProj")] - best[(c, setting, "MaxPA")]
                     for c in corpora} for setting in settings}
    notes = [
        "SimProj minus MaxPA, online mistakes in points (negative: SimProj better): paper's "
        "setting " + ", ".join(f"{c} {g:+.1f}" for c, g in gap[settings[0]].items())
        + "; Kesler setting " + ", ".join(f"{c} {g:+.1f}" for c, g in gap[settings[1]].items())
        + ". On Enron the paper has SimProj ahead of MaxPA by 0.1–4.8 points (its Table 1). "
        "The class-dependent single-prototype setting is where the simultaneous projections "
        "can average several informative constraints (the k − 1 rows of a trial share the "
        "message's words with class-specific signs); with one vector per class the averaged "
        "step spreads the same budget C over every violated class, which MaxPA spends on the "
        "worst one."]

    def draw(axes):
        for ax, corpus in zip(axes, corpora):
            for i, setting in enumerate(settings):
                xs = np.arange(len(TEXT_SCHEMES)) + (i - 0.5) * 0.4
                ax.bar(xs, [best[(corpus, setting, LABELS[s])] for s in TEXT_SCHEMES], 0.4,
                       label=setting, color=f"C{i}")
            ax.set_xticks(range(len(TEXT_SCHEMES)), [LABELS[s] for s in TEXT_SCHEMES])
            ax.set_title(corpus, fontsize=9)
            ax.set_ylabel("online mistakes % (best C)")
        axes[0].legend(fontsize=7)

    return Outcome([], claims, {"runs": table, "best": best_table}, notes, figure(
        draw, panels=(1, len(corpora)), size=(5 * len(corpora), 4),
        title="Amit et al. §9.2 on substitute corpora (ours)"))


EXPERIMENTS.append(
    Experiment("amit-text", AMIT, "§9.2, Tables 1 and 3 (text, substitute corpora)",
               "Online mistakes of the simultaneous projections and MaxPA on text, in the "
               "paper's single-prototype class-dependent setting and in the Kesler setting",
               text_categorization, ("reuters21578", "news20"), default_seeds=10,
               quick_seeds=1))
