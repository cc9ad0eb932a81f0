"""The parameters and fitted attributes every learner shares, documented once.

A learner's class docstring documents what is its own (its rule's parameters, a family's
reading of ``classes_``); :func:`complete` adds the entries of every other parameter its
``__init__`` takes and of every shared attribute, from the tables below, when the class is
created (``OnlineLinearClassifier.__init_subclass__``).  So ``help(cls)``, ``cls.__doc__`` and
the API reference (mkdocstrings reads the docstrings by inspection) show every parameter, and a
change of a shared parameter's meaning is written in one place.  A family whose shared
parameter means something of its own documents it in its class (its entry wins), and a family
that takes parameters of its own shared by all its classes (the kernel's) passes them in a
table of its own (``_parameter_docs``).

The Parameters section lists the signature's parameters in the signature's order
(scikit-learn's and numpydoc's convention), so a class writes its own entries in any order.

>>> class Demo:
...     '''A demo.
...
...     Parameters
...     ----------
...     beta : float, default=0.0
...         The margin.
...     '''
...     def __init__(self, beta=0.0, *, n_epochs=1):
...         pass
>>> print(complete(Demo, PARAMETERS, {}))
A demo.
<BLANKLINE>
Parameters
----------
beta : float, default=0.0
    The margin.
n_epochs : int, default=1
    Passes over the training data in :meth:`fit` (``partial_fit`` always makes one pass).
"""
import inspect
import re

#: The protocol's parameters (every learner takes some of them): one entry each, numpydoc.
PARAMETERS = {
    "fit_intercept": """\
fit_intercept : bool, default=False
    Learn a bias: a constant feature of value 1 is appended to every row, and its weight is
    ``intercept_``.  It enters ‖x‖² and every norm of the rule like any other feature (so
    the rows' exact invariance under x → c·x no longer holds).  Off by default: the papers'
    setting, which ``onlinear reproduce`` and the reference tests use; scikit-learn users,
    whose linear models fit an intercept, usually want it on.""",
    "average": """\
average : bool, default=False
    Predict with the averaged hypothesis — the mean of the hypotheses after every round
    since the model started (the averaged Perceptron of Freund & Schapire, 1999;
    scikit-learn's ``SGDClassifier(average=True)``) — rather than the final one:
    ``coef_``, ``predict``, ``decision_function`` and ``predict_one`` use it, while the
    online counts (``n_mistakes_``) and ``learn_one``'s return value stay those of the
    online hypothesis.  O(1) per round and output, O(non-zeros) per step.  Fixed when the
    model starts (``fit`` restarts it).""",
    "n_epochs": """\
n_epochs : int, default=1
    Passes over the training data in :meth:`fit` (``partial_fit`` always makes one pass).""",
    "shuffle": """\
shuffle : bool, default=False
    Shuffle the examples before every epoch of :meth:`fit` (off: the online protocol sees
    the stream in the order given).""",
    "random_state": """\
random_state : int, RandomState instance or None, default=None
    Seed of the shuffling.""",
    "class_weight": """\
class_weight : dict, "balanced" or None, default=None
    Weight of each class: an example's weight (its ``sample_weight``, 1 if none) is
    multiplied by its class's and enters the round as :meth:`fit` says.  ``"balanced"``:
    ``n_rows / (n_classes · count)`` over the labels given to ``fit`` (scikit-learn's rule);
    ``partial_fit`` and ``learn_one`` take a dict only.""",
    "warm_start": """\
warm_start : bool, default=False
    ``fit`` on a started model continues it (as ``n_epochs`` calls of ``partial_fit``)
    instead of starting over.""",
    "verbose": """\
verbose : int, default=0
    If positive, print one line per epoch of ``fit`` and per ``partial_fit`` call: rows,
    mistakes, updates, seconds.""",
    "dtype": """\
dtype : {"auto", "float64", "float32"}, default="auto"
    The precision of the weights and of the sums over a dense row (scores, ‖x‖², steps).
    ``"auto"``: float32 if the data the model starts on is float32 (and not ``average``),
    else float64 — scikit-learn's convention for float32 X.  float32 weights halve the
    model's memory and run a dense pass 1.4–1.7× faster (twice the values per vector
    instruction), at float32's rounding (ε ≈ 6e-8: a step smaller than that relative to a
    weight is lost), for rows of norm 0 or within ``2^±32``, and without ``average``.
    ``"float64"`` keeps float64 weights whatever the data.  Fixed when the model starts
    (``fit`` restarts it).""",
}

#: The parameters of the estimators that hold their model (:mod:`onlinear.estimators.holding`):
#: the protocol's, with ``average`` as their models keep it
#: (:mod:`onlinear.models.averaging`).
HELD_PARAMETERS = {**PARAMETERS, "average": """\
average : bool, default=False
    Predict with the averaged hypothesis — the mean of the weights (the Gaussian learners'
    mean μ) after every round since the model started, rounds that change nothing included,
    as the primal learners' ``average`` (Freund & Schapire, 1999) — rather than the final
    one: ``coef_``, ``intercept_``, ``predict``, ``decision_function`` and ``predict_one``
    use it, while the learning state (a covariance, accumulated squares), the online counts
    (``n_mistakes_``) and ``learn_one``'s return value stay those of the online hypothesis.
    O(K·non-zeros) per round (O(d·K) with a full covariance, whose steps move every weight),
    and the weights' memory once more.  Fixed when the model starts (``fit`` restarts
    it)."""}

#: The protocol parameters every learner takes.
UNIVERSAL = ("n_epochs", "shuffle", "random_state", "warm_start", "verbose")

#: The fitted attributes every learner has (a family whose reading differs documents its own).
ATTRIBUTES = {
    "classes_": """\
classes_ : ndarray of shape (n_classes,)
    The class labels, in sorted order.""",
    "n_features_in_": """\
n_features_in_ : int
    Number of features seen during :meth:`fit`.""",
    "n_seen_": """\
n_seen_ : int
    Rounds (examples) learned since the last :meth:`fit`.""",
    "n_mistakes_": """\
n_mistakes_ : int
    Prediction mistakes since the last :meth:`fit`, each counted before the example is
    learned.""",
    "n_updates_": """\
n_updates_ : int
    Rounds on which the model changed since the last :meth:`fit`.""",
    "task_": """\
task_ : onlinear.tasks.Multiclass, Multilabel, Ordinal or Blocks
    The task of the started model: how it reads targets and scores predictions
    (``task_.scores(task_.score_sums(y, model.predict(X)))``).""",
}

_ORDER = ("Parameters", "Attributes", "Returns", "Yields", "Raises", "Warns", "See Also",
          "Notes", "References", "Examples")


def _sections(doc):
    """``doc`` (cleaned) as its summary and a list of [title, body lines] in order."""
    lines = doc.split("\n")
    heads = [i for i in range(len(lines) - 1)
             if lines[i].strip() in _ORDER and re.fullmatch(r"-{3,}", lines[i + 1].strip())]
    summary = lines[:heads[0]] if heads else lines
    sections = []
    for k, i in enumerate(heads):
        end = heads[k + 1] if k + 1 < len(heads) else len(lines)
        sections.append([lines[i].strip(), lines[i + 2:end]])
    return summary, sections


def _entries(body):
    """The entries of a Parameters/Attributes section: name → its lines (its first line
    ``name : type``, then the indented description), in order; blank lines at the end dropped."""
    entries, name = {}, None
    for line in body:
        if line and not line[0].isspace():
            name = line.split(" : ")[0].strip()
            entries[name] = [line]
        elif name is not None:
            entries[name].append(line)
    return {n: "\n".join(lines).rstrip() for n, lines in entries.items()}


def parameter_entries(cls):
    """The entries of ``cls``'s Parameters section: name → its numpydoc text."""
    summary, sections = _sections(inspect.cleandoc(cls.__doc__ or ""))
    return _entries(dict((title, body) for title, body in sections).get("Parameters", []))


def complete(cls, parameters, attributes, order=None):
    """``cls``'s docstring with the entries it lacks: every parameter of ``cls.__init__`` (or
    of ``order``) that ``parameters`` documents, in the signature's order, and every
    attribute of ``attributes``.  Entries the class writes itself are kept as written."""
    summary, sections = _sections(inspect.cleandoc(cls.__doc__ or ""))
    by_title = {title: body for title, body in sections}
    own = _entries(by_title.get("Parameters", []))
    signature = list(order) if order is not None else [
        p.name for p in inspect.signature(cls.__init__).parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if not signature:  # (a base class that takes no parameter: the table's, in its order)
        signature = list(parameters)
    entries = [own[p] if p in own else parameters[p] for p in signature
               if p in own or p in parameters]
    entries += [text for name, text in own.items() if name not in signature]
    if entries:
        by_title["Parameters"] = "\n".join(entries).split("\n")
    if attributes:
        own_attributes = _entries(by_title.get("Attributes", []))
        merged = {name: own_attributes.get(name, text) for name, text in attributes.items()}
        merged.update(own_attributes)  # (the shared first, then the class's own)
        by_title["Attributes"] = "\n".join(merged.values()).split("\n")
    out = "\n".join(summary).rstrip()
    for title in sorted(by_title, key=lambda t: _ORDER.index(t)):
        body = "\n".join(by_title[title]).strip("\n")
        out += f"\n\n{title}\n{'-' * len(title)}\n{body}"
    return out
