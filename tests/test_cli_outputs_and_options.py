"""Four defects of the command line:

* ``onlinear compare --scheduler localhost`` (no port) printed its error at once, then the
  half-made Dask client spent 40 s failing to close at exit ("Exception ignored ...
  TimeoutError"), exit code 1; a malformed address is a usage error before anything is read;
* ``onlinear run ... --format json --curve -`` wrote the curves' CSV and then the report on
  standard output, which was neither; two outputs on standard output are refused, as two on
  one file are, and with ``--curve -`` and no ``--out`` the table goes to standard error;
* ``--seed`` was ignored without ``run --shuffle`` or ``compare --permutations N`` (N > 1);
  it is a usage error naming the option that gives it its effect;
* ``onlinear train pa --param C=0.1`` was accepted though the hard ``pa`` does not read C;
  it is refused as ``run`` and ``compare`` refuse it.
"""
import json
import subprocess
import sys
import time

import pytest

import onlinear
from cli_runner import onlinear_cli, said, tiny  # noqa: F401 (tiny: a fixture)
from onlinear.harness import Table


# ------------------------------------------------------------- a malformed scheduler address
def test_a_scheduler_address_without_a_port_is_a_prompt_usage_error(tiny, tmp_path):
    """As a user runs it: the process used to end 40 s later with a TimeoutError traceback."""
    pytest.importorskip("distributed")
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "onlinear", "compare", "pa1", "--data",
                           tiny.name, "--scheduler", "localhost"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    elapsed = time.monotonic() - start
    assert done.returncode == 2, done.stderr
    assert "--scheduler" in done.stderr and "missing port number" in done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    assert elapsed < 30, elapsed  # (the interpreter's start and imports: seconds)


@pytest.mark.parametrize("address, phrase", [
    ("tcp://localhost", "missing port number"),
    ("", "missing port number"),
    ("localhost:port", "'localhost:port' is not a scheduler's address"),
    ("foo://localhost:8786", "unknown address scheme 'foo'"),
    ("inproc://name", "'inproc://name' is not a scheduler's address"),
    ("localhost:99999", "port 99999 is not in 1-65535"),
])
def test_a_malformed_scheduler_address_is_refused_before_the_data_is_read(address, phrase):
    pytest.importorskip("distributed")
    result = onlinear_cli("compare", "pa1", "--data", "no-such-file.svm", "--scheduler",
                          address)
    assert result.returncode == 2, result.stderr
    message = said(result)
    assert "--scheduler" in message and phrase in message and "tcp://HOST:PORT" in message, message


@pytest.mark.parametrize("address", ["tcp://10.0.0.5:8786", "localhost:8786", "[::1]:8786",
                                     "tls://scheduler.example:8786"])
def test_a_well_formed_scheduler_address_passes_the_check(address):
    """(Checked without connecting: an unreachable one fails later, naming the address.)"""
    pytest.importorskip("distributed")
    from onlinear.cli.experiments import check_scheduler

    check_scheduler(address)


# ------------------------------------------------------------ two outputs on standard output
@pytest.mark.parametrize("args, phrase", [
    (["run", "pa1", "TINY", "--format", "json", "--curve", "-"],
     "where the json report goes too without --out"),
    (["run", "pa1", "TINY", "--format", "csv", "--curve", "-"],
     "where the csv report goes too without --out"),
    (["run", "pa1", "TINY", "--curve", "-", "--out", "-"], "- is standard output, as --out is"),
    (["compare", "pa1", "--data", "TINY", "--format", "markdown", "--curve", "-"],
     "where the markdown report goes too without --out"),
    (["compare", "pa1", "--data", "TINY", "--out", "-", "--curve", "-"],
     "- is standard output, as --out is"),
], ids=lambda value: " ".join(value) if isinstance(value, list) else value)
def test_two_outputs_on_standard_output_are_a_usage_error(tiny, tmp_path, args, phrase):
    result = onlinear_cli(*[tiny if a == "TINY" else a for a in args], cwd=tmp_path)
    assert result.returncode == 2, result.stdout
    message = said(result)
    assert "--curve" in message and phrase in message, message
    assert result.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.svm"]


@pytest.mark.parametrize("command", [["run", "pa1", "TINY"],
                                     ["compare", "pa1", "mira", "--data", "TINY"]])
def test_curves_on_standard_output_send_the_table_to_standard_error(tiny, command):
    """`--curve - > curves.csv` made a file of the curves followed by the table."""
    result = onlinear_cli(*[tiny if a == "TINY" else a for a in command], "--curve", "-",
                          "--tick", "2")
    assert result.returncode == 0, result.stderr
    curves = Table.from_csv(result.stdout)
    assert set(curves.column("algorithm")) == set(command[1:-2] if command[0] == "compare"
                                                  else command[1:2])
    assert all(isinstance(n, int) for n in curves.column("examples"))
    assert "mistake rate" not in result.stdout and "mistake rate" in result.stderr


def test_curves_on_standard_output_and_the_report_in_a_file(tiny, tmp_path):
    report = tmp_path / "report.json"
    result = onlinear_cli("run", "pa1", tiny, "--format", "json", "--curve", "-", "--out",
                          report)
    assert result.returncode == 0, result.stderr
    assert Table.from_csv(result.stdout).column("algorithm")[0] == "pa1"
    (record,) = json.loads(report.read_text())
    assert record["algorithm"] == "pa1" and record["examples"] == 6


def test_a_figure_named_dash_is_a_file_not_standard_output(tiny, tmp_path):
    """`--plot -` writes a file named "-" (a figure has no standard output): it is no second
    output on standard output, and it is the file the curves would overwrite at "./-"."""
    result = onlinear_cli("run", "pa1", tiny, "--plot", "-", "--plot-format", "png",
                          "--curve", "./-", "--out", "report.txt", cwd=tmp_path)
    assert result.returncode == 2 and "same file" in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.svm"]
    result = onlinear_cli("run", "pa1", tiny, "--plot", "-", "--plot-format", "png",
                          "--out", "-", "--format", "csv", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert Table.from_csv(result.stdout).column("algorithm") == ["pa1"]
    assert (tmp_path / "-").read_bytes().startswith(b"\x89PNG")


# ----------------------------------------------------------------------- a seed with no effect
@pytest.mark.parametrize("args, needs", [
    (["run", "pa1", "TINY", "--seed", "3"], "--shuffle"),
    (["run", "pa1", "TINY", "--seed", "0", "--no-shuffle"], "--shuffle"),
    (["compare", "pa1", "--data", "TINY", "--seed", "3"], "--permutations N above 1"),
    (["compare", "pa1", "mira", "--data", "TINY", "--permutations", "1", "--seed", "3"],
     "--permutations N above 1"),
], ids=lambda value: " ".join(value) if isinstance(value, list) else value)
def test_a_seed_with_no_effect_is_a_usage_error_naming_what_it_needs(tiny, args, needs):
    result = onlinear_cli(*[tiny if a == "TINY" else a for a in args])
    assert result.returncode == 2, result.stdout
    assert f"--seed has no effect without {needs}" in said(result), said(result)


@pytest.mark.parametrize("args", [
    ["run", "pa1", "TINY", "--shuffle", "--seed", "3", "--format", "csv"],
    ["compare", "pa1", "--data", "TINY", "--permutations", "2", "--seed", "3", "--format",
     "csv"],
], ids=" ".join)
def test_a_seed_with_its_option_orders_the_stream_repeatably(tiny, args):
    runs = [onlinear_cli(*[tiny if a == "TINY" else a for a in args]) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    one, other = (Table.from_csv(r.stdout) for r in runs)
    assert one.column("mistakes") == other.column("mistakes")


@pytest.mark.parametrize("command, needs", [("run", "needs --shuffle"),
                                            ("compare", "needs --permutations N above 1")])
def test_the_help_of_seed_says_what_it_seeds_and_what_it_needs(command, needs):
    result = onlinear_cli(command, "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "--seed INTEGER RANGE Seed of the" in text and needs in text, text
    assert "random permutations." not in text


# ------------------------------------------------------------ train and an unread parameter
@pytest.mark.parametrize("name, params, phrase", [
    ("pa", ["C=0.1"], "pa does not use C"),
    ("pa", ["variant=printed"], "pa does not use variant"),
    ("spa", ["C=0.1"], "spa does not use C"),
    ("simproj", ["max_rule=distance"], "simproj does not use max_rule"),
    ("iellip", ["w_scale=0.5"], "iellip does not use w_scale"),
])
def test_train_refuses_a_parameter_the_algorithm_does_not_read(tiny, tmp_path, name, params,
                                                               phrase):
    options = [word for param in params for word in ("--param", param)]
    result = onlinear_cli("train", name, tiny, "--save", "m.onlinear", *options, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    message = said(result)
    assert phrase in message and "drop" in message, message  # the parameter, and the remedy
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.svm"]


@pytest.mark.parametrize("name, params", [
    ("pa1", {"C": 0.1}),
    ("maxpa", {"max_rule": "distance"}),
    # (random_state seeds a random w_1: train takes it, where run sets the orders' seeds)
    ("iellip", {"w_init": "random", "w_scale": 0.5, "random_state": 3}),
])
def test_train_takes_a_parameter_read_with_the_settings_given(tiny, tmp_path, name, params):
    options = [word for key, value in params.items() for word in ("--param", f"{key}={value}")]
    result = onlinear_cli("train", name, tiny, "--save", "m.onlinear", "--quiet", *options,
                          cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    model = onlinear.load(tmp_path / "m.onlinear")
    assert {key: model.get_params()[key] for key in params} == params
