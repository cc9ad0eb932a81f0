"""The streaming commands import what they use: ``import onlinear`` imports no estimator (nor
scikit-learn, numpy or scipy) until one is asked for, and ``onlinear train`` / ``predict`` /
``evaluate`` import scikit-learn's base without pandas, without running scipy.stats,
numpy.testing or numpy.f2py (imported lazily), and without the parts of scikit-learn (or the
plotting, distributed and data-download modules of onlinear) they never call — and what they
write is the same, byte for byte, as when those modules are imported as usual."""
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import zipfile

import pytest

# the parts a command reading LIBSVM text into a linear model never needs
NOT_NEEDED = ("pandas", "pyarrow", "matplotlib", "dask", "distributed", "river",
              "sklearn.preprocessing", "sklearn.feature_extraction", "sklearn.metrics",
              "sklearn.datasets", "sklearn.model_selection", "sklearn.linear_model",
              "onlinear.harness", "onlinear.plots", "onlinear.distributed", "onlinear.metrics",
              "onlinear.cli.compare", "onlinear.cli.run",
              # (a submodule imported shows that the package's code ran: imported lazily, the
              # package alone is in sys.modules until a name of it is used)
              "scipy.stats.", "numpy.testing.", "numpy.f2py.")

COMMANDS = textwrap.dedent("""
    import sys
    from onlinear.cli import main
    NOT_NEEDED = {not_needed!r}
    for arguments in (["train", "pa1", "data.svm", "--save", "m", "--quiet"],
                      ["predict", "m", "data.svm", "--output", "p.txt"],
                      ["evaluate", "m", "data.svm"]):
        try:
            main(arguments)
        except SystemExit as done:
            assert not done.code, arguments
    print(sorted(m for m in sys.modules if m.startswith(NOT_NEEDED)))
    print("sklearn.base" in sys.modules)
""")


def _python(code, cwd):
    env = {k: v for k, v in os.environ.items() if k != "ONLINEAR_TRACEBACK"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=600)


def test_the_streaming_commands_import_only_what_they_use(tmp_path):
    (tmp_path / "data.svm").write_text("1 1:1 2:0.5\n2 2:1\n3 1:-1 3:1\n1 1:0.9\n" * 10)
    done = _python(COMMANDS.format(not_needed=NOT_NEEDED), tmp_path)
    assert done.returncode == 0, done.stderr
    imported, base = done.stdout.splitlines()[-2:]
    assert imported == "[]"
    assert base == "True"  # (the estimators are scikit-learn's: its base is imported)
    assert "accuracy: " in done.stdout and (tmp_path / "p.txt").exists()


def test_import_onlinear_imports_no_estimator_until_one_is_asked_for(tmp_path):
    done = _python(textwrap.dedent("""
        import sys
        import onlinear
        print("sklearn" in sys.modules, "onlinear.estimators" in sys.modules)
        model = onlinear.PassiveAggressive()
        from onlinear import *  # noqa: F403
        print("sklearn" in sys.modules, type(model).__name__, MIRA.__name__,
              onlinear.make("pa1").get_params()["slack"], "make" in dir(onlinear))
    """), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "True", "PassiveAggressive", "MIRA",
                                   "linear", "True"]


def test_the_modules_deferred_import_as_usual_after_a_command(tmp_path):
    # pandas refused while the estimators are imported, scipy.stats and numpy.testing lazy:
    # afterwards each is imported, and used, as usual
    pandas = importlib.util.find_spec("pandas") is not None
    (tmp_path / "data.svm").write_text("1 1:1 2:0.5\n2 2:1\n3 1:-1 3:1\n" * 10)
    done = _python(textwrap.dedent("""
        import sys
        from onlinear.cli import main
        try:
            main(["train", "arow", "data.svm", "--save", "m", "--quiet"])
        except SystemExit as done:
            assert not done.code
        print("scipy.stats._stats_py" in sys.modules)
        from scipy.stats import norm
        import numpy.testing
        print("scipy.stats._stats_py" in sys.modules, round(float(norm.ppf(0.975)), 4),
              callable(numpy.testing.assert_array_equal))
        if {pandas}:
            import pandas
            from sklearn.utils._dataframe import is_df_or_series
            print(is_df_or_series(pandas.DataFrame({{"a": [1]}})))
    """).format(pandas=pandas), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "1.96", "True"] + ["True"] * pandas


# the same commands with the modules the light imports defer imported first, as usual
AS_USUAL = textwrap.dedent("""
    import scipy.stats, numpy.testing, numpy.f2py
    try:
        import pandas
    except ImportError:
        pass
""")

OUTPUTS = textwrap.dedent("""
    import sys
    from onlinear.cli import main
    for arguments in (["train", "{algorithm}", "data.svm", "--save", "m", "--quiet"],
                      ["predict", "m", "data.svm", "--scores", "--output", "p.txt"],
                      ["evaluate", "m", "data.svm"]):
        try:
            main(arguments)
        except SystemExit as done:
            assert not done.code, arguments
    print("scipy.stats._stats_py" in sys.modules)
""")


@pytest.mark.parametrize("algorithm", ["pa1", "scw1"])
def test_light_imports_change_no_output(tmp_path, algorithm):
    rows = "".join(f"{1 + i % 3} 1:{(i * 7) % 11 / 10} 2:{(i * 3) % 5 / 4} {3 + i % 4}:1\n"
                   for i in range(300))
    outputs = {}
    for way, first in (("light", ""), ("as usual", AS_USUAL)):
        folder = tmp_path / way.replace(" ", "_")
        folder.mkdir()
        (folder / "data.svm").write_text(rows)
        done = _python(first + OUTPUTS.format(algorithm=algorithm), folder)
        assert done.returncode == 0, done.stderr
        *scores, scipy_stats_ran = done.stdout.splitlines()
        assert scipy_stats_ran == ("False" if way == "light" else "True")
        assert any(line.startswith("accuracy: ") for line in scores)
        with zipfile.ZipFile(folder / "m") as model:  # (its members: the zip dates them)
            members = {name: model.read(name) for name in model.namelist()}
        outputs[way] = (members, (folder / "p.txt").read_bytes(), scores)
    assert outputs["light"] == outputs["as usual"]


FAMILY_COMMANDS = textwrap.dedent("""
    import json, sys
    from onlinear.cli import main
    for arguments in (["train", {algorithm!r}, "data.csv", "--save", "m", "--quiet"],
                      ["predict", "m", "data.csv", "--output", "p.txt"],
                      ["evaluate", "m", "data.csv"], ["info", "m"]):
        try:
            main(arguments)
        except SystemExit as done:
            assert not done.code, arguments
    from onlinear.estimators import FAMILIES
    print(json.dumps(sorted(f for f in FAMILIES if "onlinear.estimators." + f in sys.modules)))
""")


@pytest.mark.parametrize("algorithm, families", [
    ("pa1", ["passive_aggressive"]), ("adagrad", ["adaptive"]),
    # (the confidence-weighted learners share the ellipsoid family's bound on a full matrix)
    ("arow", ["confidence_weighted", "ellipsoid"])])
def test_a_command_imports_only_the_family_of_its_learner(tmp_path, algorithm, families):
    (tmp_path / "data.csv").write_text("1,0.5,1\n0,1,2\n-1,1,3\n0.9,0,1\n" * 10)
    done = _python(FAMILY_COMMANDS.format(algorithm=algorithm), tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == families
    assert "accuracy: " in done.stdout and (tmp_path / "p.txt").exists()


def test_onlinear_list_names_every_algorithm_from_a_fresh_process(tmp_path):
    from onlinear.registry import REGISTRY

    done = _python("from onlinear.cli import main\nmain(['list', '--format', 'json'])\n",
                   tmp_path)
    done_kernel = _python("from onlinear.cli import main\n"
                          "main(['list', '--kernel', '--format', 'json'])\n", tmp_path)
    listed = json.loads(done.stdout) + json.loads(done_kernel.stdout)
    assert sorted(row["name"] for row in listed) == sorted(REGISTRY)
    assert {row["estimator"] for row in listed} == {a.class_name for a in REGISTRY.values()}
