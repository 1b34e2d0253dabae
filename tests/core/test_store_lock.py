"""The result store's lock file: removed when a run ends, never two holders at once.

``cbs3m.sqlite.lock`` stayed behind every finished reproduction. Removing a lock file that
another process may be about to lock is the classic race (it locks the removed file while a
third process creates and locks a new one); lpsched.core.store removes the file while it
still holds the lock, and every locker checks, once it holds the lock, that the file it
locked is the one at the path (device and inode), starting again otherwise.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lpsched.core import ResultStore, run_cells
from lpsched.core import store as store_module
from lpsched.errors import StoreError
from tests.cli.test_cli_subprocess import LPSCHED


def square(x: int) -> list[dict[str, int]]:
    return [{"x": x, "y": x * x}]


def test_the_lock_file_is_removed_when_the_lock_is_released(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "s.sqlite")
    lock = tmp_path / "s.sqlite.lock"
    with store.lock():
        assert lock.exists() and lock.read_text().strip() == str(os.getpid())
    assert not lock.exists()
    assert run_cells("sq", [1, 2], square, store, progress=False) == 2
    assert not lock.exists()
    with pytest.raises(RuntimeError), store.lock():  # a failed run too
        raise RuntimeError("boom")
    assert not lock.exists()


def test_a_locker_of_a_removed_file_starts_again(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The race itself, in one process: the file locked is no longer at the path (the run
    that held it removed it; another made a new one), so the locker locks the new one."""
    store = ResultStore(tmp_path / "s.sqlite")
    lock = tmp_path / "s.sqlite.lock"
    real_open = os.open
    calls = {"n": 0}

    def racing_open(path: str, flags: int, mode: int = 0o777) -> int:
        fd = real_open(path, flags, mode)
        calls["n"] += 1
        if calls["n"] == 1 and str(path) == str(lock):  # removed and made anew meanwhile
            os.unlink(path)
            os.close(real_open(path, os.O_RDWR | os.O_CREAT, 0o644))
        return fd

    monkeypatch.setattr(store_module.os, "open", racing_open)
    with store.lock():
        held = store_module._HELD[os.path.realpath(lock)]
        assert os.fstat(held).st_ino == os.stat(lock).st_ino  # the file at the path
    assert calls["n"] == 2 and not lock.exists()


WORKER = textwrap.dedent("""
    import sys, time
    from lpsched.core import ResultStore
    from lpsched.errors import StoreError
    store = ResultStore(sys.argv[1])
    counter = sys.argv[2]
    done = 0
    while done < int(sys.argv[3]):
        try:
            with store.lock():
                with open(counter) as fh:
                    n = int(fh.read())
                time.sleep(0.0005)  # a second holder now would lose an update
                with open(counter, "w") as fh:
                    fh.write(str(n + 1))
        except StoreError:
            time.sleep(0.0002)  # in use: try again
            continue
        done += 1
""")


def test_runs_that_lock_and_remove_never_hold_the_lock_together(tmp_path: Path) -> None:
    """Four processes take the lock 60 times each, the file removed at every release: a
    read-increment-write under the lock loses no update, so at no time did two of them
    hold it (the race a plain removal opens would lose some)."""
    path = tmp_path / "s.sqlite"
    ResultStore(path).close()
    counter = tmp_path / "counter"
    counter.write_text("0")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(path), str(counter), "60"],
                              env=env) for _ in range(4)]
    for p in procs:
        assert p.wait(timeout=240) == 0
    assert counter.read_text() == "240"
    assert not (tmp_path / "s.sqlite.lock").exists()


def test_a_held_lock_is_still_refused_at_once(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "s.sqlite")
    other = ResultStore(tmp_path / "s.sqlite")
    with store.lock(), pytest.raises(StoreError, match="already in use by this process"):
        with other.lock():
            pass


def test_a_finished_reproduction_leaves_no_lock_file(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    p = subprocess.run([LPSCHED, "reproduce", "cbs3m", "--instances", "1", "--quiet",
                        "--out", str(tmp_path / "out")], capture_output=True, text=True,
                       env=env, timeout=600, check=False)
    assert p.returncode == 0, p.stderr
    names = sorted(f.name for f in (tmp_path / "out").iterdir())
    assert "cbs3m.sqlite" in names and not [n for n in names if n.endswith(".lock")]
