"""Start-up of ``lpsched reproduce <experiment>`` (decision 690): only that experiment's
family builds its ``reproduce`` parser, and what a user sees stays as the whole parser
makes it: the help, the usage errors, the parsed options."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lpsched.cli import EXPERIMENTS, _command_parser, _experiment_name, build_parser
from lpsched.cli import parse_command_line as parse
from lpsched.cli.reference import Command, markdown
from tests.cli.test_startup import assert_as_the_whole_parser

FAMILIES = {"bags", "approx", "batch", "tasks", "campaigns", "ptg", "reproduce_all"}


def _experiments(parser) -> dict:
    """The experiments under ``reproduce`` in ``parser``: name -> (help, subparser)."""
    reproduce = Command((), "", parser).children()["reproduce"][1]
    return Command(("reproduce",), "", reproduce).children()


def test_the_table_of_experiments_is_the_whole_parser_s():
    """Every experiment but ``all`` (which the whole parser reads) is in the table, with
    the family whose ``add_reproduce`` adds it."""
    whole = _experiments(build_parser())
    assert set(EXPERIMENTS) == set(whole) - {"all"}
    for name, family in EXPERIMENTS.items():
        assert name in _experiments(_command_parser(["reproduce", name]))
        module = __import__(f"lpsched.cli.{family}", fromlist=["add_reproduce"])
        assert callable(module.add_reproduce)


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_one_experiment_s_parser_is_the_whole_one_s(name):
    """Same help line, usage, options, defaults and help texts as the whole parser's."""
    one = _command_parser(["reproduce", name])
    assert one is not None
    whole_help, whole_sub = _experiments(build_parser(["reproduce", name]))[name]
    one_help, one_sub = _experiments(one)[name]
    assert one_help == whole_help
    assert markdown(one_sub) == markdown(whole_sub)
    assert one_sub.format_help() == whole_sub.format_help()


@pytest.mark.parametrize(("argv", "name"), [
    (["reproduce", "cbs3m"], "cbs3m"),
    (["reproduce", "ptg", "--scenarios", "4"], "ptg"),
    (["--verbose", "reproduce", "redirection"], "redirection"),
    (["--solver-log", "log.txt", "reproduce", "faircamp"], "faircamp"),
    (["--solver-log=log.txt", "reproduce", "ostrich"], "ostrich"),
    (["--solver-log", "reproduce", "cbs3m"], None),  # reproduce is the log file
    (["reproduce", "all"], None),
    (["reproduce", "--help"], None),
    (["reproduce"], None),
    (["reproduce", "nope"], None),
    (["reproduce", "cbs3"], None),  # not spelt in full: the whole parser reads it
    (["--he", "reproduce", "cbs3m"], None),
    (["batch", "reproduce", "cbs3m"], None),
    ([], None),
])
def test_the_experiment_is_read_as_argparse_reads_it(argv, name):
    assert _experiment_name(argv) == name


@pytest.mark.parametrize("argv", [
    ["reproduce", "cbs3m", "--profile", "mpi", "--instances", "2", "--quiet"],
    ["reproduce", "redirection", "--traces", "KTH-SP2-1996-2.1-cln", "--instances", "2",
     "--no-plots", "--jobs", "1"],
    ["reproduce", "ptg", "--scenarios", "4", "--no-figures"],
    ["--verbose", "reproduce", "faircamp", "--instances", "4", "--out", "x"],
    ["reproduce", "ostrich", "--inst", "2"],  # an abbreviation argparse accepts
    ["reproduce", "contiguity"],
    ["reproduce", "platform-level", "--trace", "t.swf"],
    ["reproduce", "topology-aware", "--limit", "300"],
])
def test_parsed_options_are_the_same(argv):
    assert _experiment_name(argv) is not None
    assert vars(parse(argv)) == vars(build_parser(argv).parse_args(argv))


@pytest.mark.parametrize("argv", [
    ["reproduce", "cbs3m", "--bogus"],
    ["reproduce", "ptg", "--scenarios", "abc"],
    ["reproduce", "faircamp", "--instances"],
    ["reproduce", "platform-level", "--zero-run", "nope"],
    ["reproduce", "redirection", "--help"],
    ["reproduce", "cbs3m", "-h"],
    ["reproduce", "--help"],
    ["reproduce", "nope"],
])
def test_usage_errors_and_help_are_the_whole_parser_s(argv):
    """The installed command, as a subprocess: the same exit status, stdout and stderr
    as the whole parser gives."""
    assert_as_the_whole_parser(argv)


@pytest.mark.parametrize(("name", "family"), [("redirection", "tasks"), ("cbs3m", "bags"),
                                              ("faircamp", "campaigns")])
def test_an_experiment_imports_only_its_family_s_commands(name, family):
    """Parsing ``reproduce <experiment>`` in a fresh interpreter loads the command module
    of its family alone."""
    code = ("import json, sys; from lpsched.cli import parse_command_line\n"
            "args = parse_command_line(sys.argv[1:])\n"
            "print(json.dumps([args.experiment, sorted(sys.modules)]))")
    proc = subprocess.run([sys.executable, "-c", code, "reproduce", name],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    parsed, modules = json.loads(proc.stdout)
    assert parsed == name
    loaded = {m.rsplit(".", 1)[1] for m in modules if m.startswith("lpsched.cli.")}
    assert family in loaded
    assert not loaded & (FAMILIES - {family}), sorted(loaded & FAMILIES)
