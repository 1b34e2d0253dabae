"""``lpsched batch --policy conservative --compression ...`` (decision 154): textbook by
default, reported in the JSON; a compression rule with another policy is a usage error."""

from __future__ import annotations

import csv
import json

import pytest

from lpsched.cli import main

#: 2 processors: J1 ends early at 2; J3 is re-inserted at 12 (textbook) or kept at 20
#: (reassign) — tests/batch/test_compression.py, EARLIER_NOT_NOW
SWF = """; MaxProcs: 2
1 0 -1 2 2 -1 -1 2 10 -1 1 1 1 1 1 -1 -1 -1
2 0 -1 10 2 -1 -1 2 10 -1 1 1 1 1 1 -1 -1 -1
3 0 -1 5 1 -1 -1 1 5 -1 1 1 1 1 1 -1 -1 -1
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("options", "compression", "starts"), [
    ((), "textbook", ["0.0", "2.0", "12.0"]),
    (("--compression", "textbook"), "textbook", ["0.0", "2.0", "12.0"]),
    (("--compression", "reassign"), "reassign", ["0.0", "2.0", "20.0"]),
    (("--reassign",), "reassign", ["0.0", "2.0", "20.0"]),
    (("--compression", "none"), "none", ["0.0", "10.0", "20.0"]),
    (("--compression", "rebuild"), "rebuild", ["0.0", "2.0", "12.0"]),
])
def test_conservative_compression_rules(tmp_path, capsys, options, compression, starts):
    trace, out = tmp_path / "t.swf", tmp_path / "s.csv"
    trace.write_text(SWF)
    code, stdout, _ = run(capsys, "batch", trace, "--policy", "conservative", *options,
                          "--json", "--out", out)
    assert code == 0 and json.loads(stdout)["compression"] == compression
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [row["starting_time"] for row in rows] == starts


@pytest.mark.parametrize("option", [("--compression", "textbook"), ("--reassign",)])
def test_compression_outside_conservative_is_an_error(tmp_path, capsys, option):
    trace = tmp_path / "t.swf"
    trace.write_text(SWF)
    code, stdout, err = run(capsys, "batch", trace, "--policy", "easy", *option)
    assert code == 2 and not stdout
    assert err.count("\n") == 1 and "conservative backfilling only" in err


def test_help_names_every_rule(capsys):
    with pytest.raises(SystemExit):
        main(["batch", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "{textbook,reassign,none,rebuild}" in text
    assert "textbook (default; Mu'alem & Feitelson 2001)" in text
