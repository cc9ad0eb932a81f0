"""The first run on a machine: tell the user that the compiled core is being built, once.

``import onlinear`` compiles nothing; the first ``fit`` of a learner compiles its engine with
numba (``cache=True``) and writes the machine code to numba's on-disk cache, from which every
later run loads it in a fraction of a second.  The command line calls :func:`announce` before
training: when the cache holds no index (``.nbi`` file) of an engine the run needs, or only one
older than the engine's source, it prints one line to standard error saying that the core is
being built once for this machine and about how long it takes.  The library itself prints
nothing.
"""
from __future__ import annotations

import glob
import os
import sys
from collections.abc import Iterable

_CORE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_core")

#: the compiled engine of each estimator module, and about how many seconds its first build
#: takes (measured on a 2-core x86-64 machine: a fresh `pip install . && onlinear compare`
#: builds the primal, ellipsoid and blocks engines and ran in 93 s, 5 s once cached)
ENGINES = {"primal": 30, "ellipsoid": 20, "kernel": 30, "blocks": 40}
_MODULE_ENGINE = {"kernel": "kernel", "ellipsoid": "ellipsoid", "simultaneous": "blocks"}


def engine_of(name: str) -> str:
    """The compiled engine (a module of ``onlinear._core``) that algorithm ``name`` runs on.

    >>> engine_of("pa1"), engine_of("cellip"), engine_of("kernel-mira"), engine_of("simperc")
    ('primal', 'ellipsoid', 'kernel', 'blocks')
    """
    from .registry import describe

    module = describe(name).estimator.__module__.rsplit(".", 1)[-1]
    return _MODULE_ENGINE.get(module, "primal")


def _cache_folder(source: str) -> str | None:
    """The folder where numba caches the functions of ``source`` (numba's own rule: the
    ``NUMBA_CACHE_DIR``, else a writable ``__pycache__`` beside the file, else the user's
    cache), or None when it cannot be told."""
    try:
        from numba.core.caching import CacheImpl
    except ImportError:  # an older or newer numba: unknown
        return None

    def probe():  # a stand-in function: the locators read only its first line number
        pass

    for locator in CacheImpl._locator_classes:
        try:
            found = locator.from_function(probe, source)
        except Exception:  # noqa: BLE001 - a locator that does not apply
            continue
        if found is not None:
            return found.get_cache_path()
    return None


def is_built(engine: str) -> bool:
    """Whether numba's cache holds the compiled ``engine`` for the current source: an index
    file of one of its ``run_*`` entry points, newer than the engine's source file."""
    source = os.path.join(_CORE, f"{engine}.py")
    folder = _cache_folder(source)
    if folder is None:
        return False
    built = os.path.getmtime(source)
    return any(os.path.getmtime(index) >= built
               for index in glob.glob(os.path.join(folder, f"{engine}.*.nbi")))


def cold_engines(algorithms: Iterable[str]) -> list[str]:
    """The engines that ``algorithms`` need and numba's cache does not hold yet, in order."""
    engines = list(dict.fromkeys(engine_of(name) for name in algorithms))
    return [engine for engine in engines if not is_built(engine)]


def message(engines: Iterable[str]) -> str:
    """The line printed before the first build of ``engines``.

    >>> message(["primal", "ellipsoid", "blocks"])
    'onlinear: building the compiled core once for this machine (about 1½ minutes; later runs reuse it)'
    """
    seconds = sum(ENGINES[engine] for engine in engines)
    if seconds < 90:
        span = f"about {seconds} seconds"
    else:
        halves = round(seconds / 30)
        span = f"about {halves // 2}{'½' if halves % 2 else ''} minutes"
    return f"onlinear: building the compiled core once for this machine ({span}; later runs reuse it)"


def announce(algorithms: Iterable[str], stream=None) -> bool:
    """Print :func:`message` to ``stream`` (default: standard error) when an engine that
    ``algorithms`` need is not in numba's cache; returns whether it printed."""
    engines = cold_engines(algorithms)
    if not engines:
        return False
    stream = sys.stderr if stream is None else stream
    print(message(engines), file=stream, flush=True)
    return True
