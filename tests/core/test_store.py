"""The result store refuses what is not an lpsched store, and one run at a time writes it.

A corrupt store given to ``reproduce --out`` is one error line (exit 2), never a
traceback, and a second run resuming the same ``--out`` refuses at once instead of
recomputing every remaining cell beside the first (decision 69).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from lpsched.bags import reproduce as exp
from lpsched.core import ResultStore, run_cells
from lpsched.core.store import check_row
from lpsched.errors import StoreError

LPSCHED = str(Path(sys.executable).with_name("lpsched"))


def square(x):
    return [{"x": x, "y": x * x}]


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}


@pytest.fixture
def good_store(tmp_path: Path) -> bytes:
    """The bytes of a valid store of a few hundred rows (several pages)."""
    path = tmp_path / "good" / "s.sqlite"
    store = ResultStore(path)
    for i in range(300):
        store.add("e", [i], [{"i": i, "pad": "x" * 60}])
    store.close()
    return path.read_bytes()


def _foreign(path: Path, sql: str) -> None:
    con = sqlite3.connect(path)
    con.execute(sql)
    con.commit()
    con.close()


def corrupt_files(tmp_path: Path, good: bytes) -> dict[str, Path]:
    """One file per kind of damage, each named ``<kind>/cbs3m.sqlite``."""
    kinds: dict[str, bytes | str] = {
        "garbage": bytes(range(256)) * 20,
        "text": b"seed,policy,stretch\n1,fifo,2.5\n",
        "header-only": good[:100],
        "half": good[: len(good) // 2],
        "last-page-cut": good[:-1000],
        "other-rows": "CREATE TABLE rows (a INTEGER, b TEXT)",
        "other-tables": "CREATE TABLE jobs (id INTEGER PRIMARY KEY, name TEXT)",
    }
    out = {}
    for kind, content in kinds.items():
        path = tmp_path / kind / "cbs3m.sqlite"
        path.parent.mkdir()
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            _foreign(path, content)
        out[kind] = path
    return out


def test_a_damaged_or_foreign_store_is_refused_and_left_untouched(tmp_path, good_store):
    for kind, path in corrupt_files(tmp_path, good_store).items():
        before = path.read_bytes()
        with pytest.raises(StoreError) as err:
            store = ResultStore(path)
            store.rows("e")  # a damage found only when reading is reported the same way
        message = str(err.value)
        assert message.startswith(str(path)), (kind, message)
        assert "\n" not in message and "move it away" in message, (kind, message)
        assert path.read_bytes() == before, f"{kind}: the store was modified"
        assert not Path(str(path) + "-wal").exists() or kind == "half", kind


def test_a_folder_in_place_of_the_store_is_refused(tmp_path):
    (tmp_path / "s.sqlite").mkdir()
    with pytest.raises(StoreError, match="is a folder"):
        ResultStore(tmp_path / "s.sqlite")
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError, match="is a file, not a folder"):
        ResultStore(tmp_path / "file" / "s.sqlite")


def test_an_empty_file_becomes_a_new_store(tmp_path):
    path = tmp_path / "s.sqlite"
    path.write_bytes(b"")
    store = ResultStore(path)
    store.add("e", [1], [{"a": 1}])
    assert store.rows("e") == [{"a": 1}]


@pytest.mark.parametrize("kind", ["garbage", "half", "last-page-cut", "other-rows",
                                  "other-tables"])
def test_reproduce_with_a_corrupt_store_prints_one_line(tmp_path, good_store, kind):
    path = corrupt_files(tmp_path, good_store)[kind]
    proc = subprocess.run([LPSCHED, "reproduce", "cbs3m", "--instances", "1", "--quiet",
                           "--out", str(path.parent)], capture_output=True, text=True,
                          timeout=120, env=_env(), check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(f"lpsched: error: {path}: ")
    assert "move it away" in proc.stderr


HOLDER = textwrap.dedent("""
    import sys, time
    from lpsched.core import ResultStore
    store = ResultStore(sys.argv[1])
    with store.lock():
        print("locked", flush=True)
        time.sleep(120)
""")


def _hold_lock(path: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE,
                            text=True, env=_env())
    assert proc.stdout is not None and proc.stdout.readline() == "locked\n"
    return proc


def test_a_store_locked_by_another_process_is_refused_at_once(tmp_path):
    path = tmp_path / "s.sqlite"
    holder = _hold_lock(path)
    try:
        store = ResultStore(path)
        t0 = time.perf_counter()
        with pytest.raises(StoreError, match=rf"in use by another run \(pid {holder.pid}\)"):
            run_cells("sq", [1, 2, 3], square, store, progress=False)
        assert time.perf_counter() - t0 < 5
        assert store.done("sq") == set()  # nothing computed beside the other run
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # the holder died by kill -9: its lock file stays, its lock does not
    assert (tmp_path / "s.sqlite.lock").exists()
    assert run_cells("sq", [1, 2, 3], square, store, progress=False) == 3


def test_the_lock_is_not_taken_twice_by_one_process(tmp_path):
    store = ResultStore(tmp_path / "s.sqlite")
    other = ResultStore(tmp_path / "s.sqlite")
    with store.lock():
        with pytest.raises(StoreError, match="already in use by this process"):
            run_cells("sq", [1], square, other, progress=False)
    assert run_cells("sq", [1], square, other, progress=False) == 1  # released


def test_two_reproduce_runs_on_one_folder(tmp_path):
    """A second ``reproduce`` on a folder in use stops at once with one line (exit 2); once
    the first is killed (kill -9), a new run resumes without waiting for any stale lock."""
    out = tmp_path / "out"
    cmd = [LPSCHED, "reproduce", "cbs3m", "--quiet", "--out", str(out)]
    first = subprocess.Popen([*cmd, "--instances", "30"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True, env=_env())
    try:
        db = out / "cbs3m.sqlite"
        deadline = time.time() + 120
        while time.time() < deadline and first.poll() is None:
            try:
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
                    if con.execute("SELECT COUNT(*) FROM cbs3m").fetchone()[0] > 0:
                        break
            except sqlite3.Error:
                pass
            time.sleep(0.05)
        assert first.poll() is None, "the first run ended too early"
        try:
            second = subprocess.run([*cmd, "--instances", "30"], capture_output=True,
                                    text=True, timeout=60, env=_env(), check=False)
        except subprocess.TimeoutExpired:
            pytest.fail("the second run did not stop: it recomputes beside the first")
        assert second.returncode == 2, second.stderr
        assert second.stdout == "" and second.stderr.count("\n") == 1, second.stderr
        assert second.stderr == (f"lpsched: error: {db}: is in use by another run (pid "
                                 f"{first.pid}); wait for it to finish, or choose another "
                                 "folder\n")
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    resumed = subprocess.run([*cmd, "--instances", "1"], capture_output=True, text=True,
                             timeout=120, env=_env(), check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert len(ResultStore(db).rows(exp.EXPERIMENT)) >= 18


def test_check_row_names_the_first_bad_field():
    schema = {"seed": "int>=0", "policy": "text", "max_stretch": "number>=0?"}
    good = {"seed": 3, "policy": "fifo", "max_stretch": None, "extra": [1, 2]}
    assert check_row(good, schema) is None
    assert check_row({**good, "max_stretch": 2.5}, schema) is None
    cases = {
        "missing": ({"policy": "fifo", "max_stretch": 1.0}, "field 'seed' missing"),
        "text": ({**good, "max_stretch": "abc"}, "max_stretch = 'abc': must be a number"),
        "negative": ({**good, "max_stretch": -5.0}, "max_stretch = -5.0: must be >= 0"),
        "bool": ({**good, "seed": True}, "seed = True: must be a whole number"),
        "float id": ({**good, "seed": 2.5}, "seed = 2.5: must be a whole number"),
        "null": ({**good, "policy": None}, "policy = null: must be a text"),
        "not text": ({**good, "policy": 7}, "policy = 7: must be text"),
    }
    for name, (row, expected) in cases.items():
        assert check_row(row, schema) == expected, name
    assert check_row({"x": float("inf")}, {"x": "number"}) == "x = inf: must be finite"


@pytest.mark.parametrize(("damage", "named"), [
    (("drop", "seed"), "field 'seed' missing"),
    (("set", "max_stretch", "abc"), "max_stretch = 'abc'"),
    (("set", "max_stretch", -5.0), "max_stretch = -5.0: must be >= 0"),
])
def test_reproduce_refuses_rows_it_did_not_write(tmp_path, damage, named):
    """Rows are checked against the experiment's schema when read back: a stored row with
    a field missing, a text metric or a negative stretch is one line (exit 2), never
    "internal error: KeyError" (exit 3) nor a silently wrong Table 4."""
    err = _damaged_rerun(["cbs3m", "--instances", "1"], tmp_path, "cbs3m.sqlite", damage)
    assert "not a row this experiment writes" in err and named in err


@pytest.mark.parametrize(("argv", "store", "field"), [
    (["ptg", "--scenarios", "1", "--no-figures"], "ptg.sqlite", "lb_makespan"),
    (["faircamp", "--instances", "1", "--jobs-per-instance", "50", "--users", "2"],
     "faircamp.sqlite", "policy"),
])
def test_new_families_refuse_rows_they_did_not_write(tmp_path, argv, store, field):
    """The reproductions of seed 004 (ptg) and seed 002 (campaigns) check their stored rows
    too: a missing field is one line, exit 2."""
    err = _damaged_rerun(argv, tmp_path, store, ("drop", field))
    assert f"field '{field}' missing" in err


def _damaged_rerun(argv: list[str], folder: Path, store: str,
                   damage: tuple[Any, ...]) -> str:
    """Run ``lpsched reproduce ARGV`` into ``folder``, damage the first stored row (``("drop",
    field)``: the row loses the field; ``("set", field, value)``: the field's column holds
    ``value``), run again: one stderr line and exit 2 (returned)."""
    command = [LPSCHED, "reproduce", *argv, "--quiet", "--out", str(folder)]
    first = subprocess.run(command, capture_output=True, text=True, timeout=300, env=_env(),
                           check=False)
    assert first.returncode == 0, first.stderr
    con = sqlite3.connect(folder / store)
    with con:
        _damage_first_row(con, store.removesuffix(".sqlite"), *damage)
    con.close()
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300, env=_env(),
                          check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == "" and proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr


def _damage_first_row(con: sqlite3.Connection, table: str, how: str, field: str,
                      value: Any = None) -> None:
    """Damage the first row of the typed table ``table`` the way another program could: a
    field dropped (the row given a shape without it) or a column value overwritten."""
    first = f"rowid = (SELECT MIN(rowid) FROM {table})"
    if how == "set":
        con.execute(f"UPDATE {table} SET {field} = ? WHERE {first}", (value,))
        return
    shape = con.execute(f"SELECT _shape FROM {table} WHERE {first}").fetchone()[0]
    fields = json.loads(con.execute("SELECT fields FROM lpsched_shapes WHERE id = ?",
                                    (shape,)).fetchone()[0])
    assert field in fields
    con.execute("INSERT INTO lpsched_shapes (experiment, id, fields) VALUES (?, 999, ?)",
                (table, json.dumps([f for f in fields if f != field])))
    con.execute(f"UPDATE {table} SET _shape = 999 WHERE {first}")
