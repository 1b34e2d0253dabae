"""``lpsched.bags.comparison``: every policy's metrics on one instance as a DataFrame, the
same rows as ``lpsched simulate INSTANCE --policy all --table`` prints (the installed
command, run here) and ``--json`` writes; the footnote on the RR and DD rows equal by
construction (seed 003 [L775], Tables 4-8 [L893-L1012], decision 316), present only when
they are equal on the instance and the platform is one-port."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lpsched import load_instance
from lpsched.bags import comparison
from lpsched.bags.comparison import METRICS, RR_DD_NOTE, TABLE_COLUMNS, compare_policies

pd = pytest.importorskip("pandas")

LPSCHED = str(Path(sys.executable).with_name("lpsched"))
#: ``simulate --table``'s format of each column but ``policy`` and ``status`` (``s``, the
#: wall time, is left out of the comparison: two runs never take the same time).
FORMATS = {"relative_max_stretch": ".4f", "max_stretch": ".4f", "sum_stretch": ".3f",
           "makespan": ".1f", "max_flow": ".1f", "sum_flow": ".1f"}


def lpsched(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([LPSCHED, *argv], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def instances(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("inst")
    out = {}
    for port in ("one-port", "multiport"):
        out[port] = folder / f"{port}.json"
        proc = lpsched("generate", "bags", "--apps", "4", "--workers", "3", "--seed", "1",
                       "--port", port, "-o", str(out[port]))
        assert proc.returncode == 0, proc.stderr
    return out


def table_rows(stdout: str) -> tuple[list[dict[str, str]], list[str]]:
    """The policy rows of ``simulate --table`` (column name -> printed text) and the lines
    after them."""
    lines = stdout.splitlines()
    assert lines[0].split() == ["policy", "status", "max-str/LP", "max-stretch",
                                "sum-stretch", "makespan", "max-flow", "sum-flow", "s"]
    end = lines.index("")
    rows = [dict(zip(TABLE_COLUMNS, line.split(), strict=True)) for line in lines[1:end]]
    return rows, lines[end + 1:]


@pytest.mark.parametrize("port", ["one-port", "multiport"])
def test_the_frame_is_the_table(instances: dict[str, Path], port: str) -> None:
    proc = lpsched("simulate", str(instances[port]), "--policy", "all", "--table")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    printed, tail = table_rows(proc.stdout)
    res = compare_policies(load_instance(str(instances[port])))
    frame = res.to_frame()
    assert set(TABLE_COLUMNS) <= set(frame.columns)  # the table's columns, one row per policy
    assert frame["policy"].tolist() == [r["policy"] for r in printed]
    assert len(frame) == 18
    for record, line in zip(frame.to_dict("records"), printed, strict=True):
        assert line["status"] == record["status"]
        for name, spec in FORMATS.items():
            assert line[name] == format(record[name], spec), (record["policy"], name)
        assert float(line["seconds"]) >= 0 and record["seconds"] >= 0
    assert tail[0].endswith(f": {res.lp_bound:.6f}")
    assert tail[0].startswith(f"LP lower bound on the max-stretch "
                              f"{'(K1)' if port == 'one-port' else '(K)'}, {port}")
    notes = [line for line in tail if line.startswith("* ")]
    if port == "multiport":  # DD may differ from RR there: no identity, no footnote
        assert res.same == [] and notes == [] and "same_as" not in frame.columns
        return
    assert res.same == [("fifo-rr", "fifo-dd"), ("spt-rr", "spt-dd"), ("srpt-rr", "srpt-dd"),
                        ("swrpt-rr", "swrpt-dd")]
    assert notes == [f"* fifo-rr = fifo-dd, spt-rr = spt-dd, srpt-rr = srpt-dd, "
                     f"swrpt-rr = swrpt-dd by construction: {RR_DD_NOTE}."]
    assert "[L775]" in notes[0] and "[L893-L1012]" in notes[0]
    by_policy = frame.set_index("policy")
    for rr, dd in res.same:  # equal in fact on this instance, not assumed
        assert by_policy.loc[rr, list(METRICS)].tolist() == \
            by_policy.loc[dd, list(METRICS)].tolist()
        assert (by_policy.loc[rr, "same_as"], by_policy.loc[dd, "same_as"]) == (dd, rr)
    assert frame["same_as"].notna().sum() == 8


def test_the_json_rows_are_the_frames_rows(instances: dict[str, Path]) -> None:
    proc = lpsched("simulate", str(instances["one-port"]), "--policy",
                   "fifo-rr,fifo-dd,fifo-mct", "--json")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    rows = json.loads(proc.stdout)
    frame = compare_policies(load_instance(str(instances["one-port"])),
                             ["fifo-rr", "fifo-dd", "fifo-mct"]).to_frame()
    assert [r["policy"] for r in rows] == frame["policy"].tolist()
    for row, record in zip(rows, frame.to_dict("records"), strict=True):
        assert list(row) == [c for c in frame.columns if c in row]
        for key, value in row.items():
            if key == "seconds":
                continue
            got = record[key]
            assert got == value or (value is None and (got is None or math.isnan(got)))
    assert rows[0]["same_as"] == "fifo-dd" and rows[1]["same_as"] == "fifo-rr"
    assert rows[0]["same_as_why"] == RR_DD_NOTE
    assert "same_as" not in rows[2]


def _row(policy: str, value: float = 1.0, status: str = "ok") -> dict[str, Any]:
    return {"policy": policy, "status": status, **dict.fromkeys(METRICS, value)}


def test_only_rows_equal_in_fact_are_named() -> None:
    rows = [_row("fifo-rr"), _row("fifo-dd"), _row("spt-rr"), _row("spt-dd", 2.0),
            _row("srpt-rr", status="failed"), _row("srpt-dd", status="failed"),
            _row("swrpt-rr")]
    assert comparison._same_rows(rows, "one-port") == [("fifo-rr", "fifo-dd")]
    assert comparison._same_rows(rows, "multiport") == []


def test_unknown_policy_is_one_error() -> None:
    from lpsched.bags import random_bags
    from lpsched.errors import LpschedError

    with pytest.raises(LpschedError, match="unknown policy 'lifo-rr'"):
        compare_policies(random_bags(2, 2, seed=0), ["fifo-rr", "lifo-rr"])
    with pytest.raises(LpschedError, match="unknown policy ''"):
        compare_policies(random_bags(2, 2, seed=0), [])
