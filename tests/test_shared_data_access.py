"""The suite reaches the shared traces one way, ``tests/shared_data.py``: no other test file
builds the ``../shared`` path or reads ``$LPSCHED_DATA`` itself (so a fresh clone, with no
``../shared`` beside it, skips those tests instead of failing), and the module skips naming
the file and the folder it looked in, also when the data is hidden on purpose."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import shared_data

TESTS = Path(__file__).resolve().parent
CHECKOUT = TESTS.parent
#: the one module allowed to build the path, and this file (its examples below)
ALLOWED = {TESTS / "shared_data.py", Path(__file__).resolve()}
#: calls that take a path piece as an argument
PATH_CALLS = {"Path", "PurePath", "PosixPath", "joinpath", "join", "open", "glob"}
#: calls that read an environment variable
ENV_READS = {"get", "getenv", "pop", "setdefault"}


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring constants of the module, classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _names_shared(text: str) -> bool:
    """A path piece naming the shared folder: ``"shared"``, ``"../shared/data"``..."""
    return "shared" in re.split(r"[/\\]", text)


def _name_of(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def offences(source: str, depth: int) -> Iterator[tuple[int, str]]:
    """Where ``source`` (a test file ``depth`` folders below the checkout, plus one) builds
    the shared path or reads ``$LPSCHED_DATA`` itself: ``(line, what)``.

    Parameters
    ----------
    source : str
        The file's text.
    depth : int
        ``len(path.relative_to(checkout).parts)``: ``Path(__file__).parents[depth]`` and
        above are outside the checkout.

    Returns
    -------
    Iterator[tuple[int, str]]
        One entry per offending expression.
    """
    tree = ast.parse(source)
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        if _is_str(node) and id(node) not in docs:
            text = node.value  # type: ignore[attr-defined]
            if "../shared" in text or re.search(r"shared[/\\](data|seeds)", text):
                yield node.lineno, f"the shared folder as a string: {text!r}"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            for side in (node.left, node.right):
                if _is_str(side) and _names_shared(side.value):  # type: ignore[attr-defined]
                    yield node.lineno, "a path built with / 'shared'"
        if isinstance(node, ast.Call):
            name = _name_of(node.func)
            args = [*node.args, *(k.value for k in node.keywords)]
            if name in PATH_CALLS and any(_is_str(a) and _names_shared(a.value)  # type: ignore
                                          for a in args):
                yield node.lineno, f"a path built with {name}(... 'shared' ...)"
            if name in ENV_READS and any(_is_str(a) and a.value == shared_data.DATA_ENV  # type: ignore
                                         for a in node.args[:1]):
                yield node.lineno, f"${shared_data.DATA_ENV} read with {name}()"
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            if _is_str(node.slice) and node.slice.value == shared_data.DATA_ENV:  # type: ignore
                yield node.lineno, f"${shared_data.DATA_ENV} read with [...]"
            if (isinstance(node.value, ast.Attribute) and node.value.attr == "parents"
                    and isinstance(node.slice, ast.Constant)
                    and isinstance(node.slice.value, int) and node.slice.value >= depth):
                yield node.lineno, f"parents[{node.slice.value}]: outside the checkout"
        if (isinstance(node, ast.Compare) and _is_str(node.left)
                and node.left.value == shared_data.DATA_ENV):  # type: ignore[attr-defined]
            yield node.lineno, f"${shared_data.DATA_ENV} tested with 'in'"


def test_no_test_file_builds_the_shared_path_itself() -> None:
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        if path in ALLOWED:
            continue
        depth = len(path.relative_to(CHECKOUT).parts)
        for line, what in offences(path.read_text(encoding="utf-8"), depth):
            found.append(f"{path.relative_to(CHECKOUT)}:{line}: {what}")
    assert not found, ("use tests/shared_data.py (shared_file, needs_shared, the "
                       "shared_data fixture) instead:\n" + "\n".join(found))


@pytest.mark.parametrize("source", [
    'DATA = Path(__file__).resolve().parents[3] / "shared" / "data"',
    'DATA = ROOT.parent / "shared" / "data"',
    'SEED = next((ROOT / ".." / "shared" / "seeds").glob("000_*.txt"), None)',
    'DATA = Path("../shared/data")',
    'DATA = os.path.join(ROOT, "..", "shared", "data")',
    'TRACE = "../shared/data/hpc2n-excerpt.swf"',
    'DATA = Path(os.environ.get("LPSCHED_DATA", "x"))',
    'DATA = os.getenv("LPSCHED_DATA")',
    'DATA = os.environ["LPSCHED_DATA"]',
    'HIDDEN = "LPSCHED_DATA" in os.environ',
    'UP = Path(__file__).resolve().parents[3]',
])
def test_each_way_of_building_the_path_is_seen(source: str) -> None:
    assert list(offences(source, 3)), source


@pytest.mark.parametrize("source", [
    '"""Skipped without ``../shared/data``."""',
    'ROOT = Path(__file__).resolve().parents[2]',
    'path = shared_file("hpc2n-excerpt.swf")',
    'run(env={"LPSCHED_DATA": str(data_folder())})',
    'monkeypatch.setenv("LPSCHED_DATA", str(tmp_path))',
    'assert d["shared"] == r.shared and lines[0].split() == ["shared", "(s)"]',
])
def test_the_allowed_uses_are_not_offences(source: str) -> None:
    assert not list(offences(source, 3)), source


@pytest.fixture
def hidden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``$LPSCHED_DATA`` pointing to an empty folder, the module's cached folder cleared
    before and after."""
    empty = tmp_path / "data"
    empty.mkdir()
    monkeypatch.setenv(shared_data.DATA_ENV, str(empty))
    shared_data.data_folder.cache_clear()
    yield empty
    monkeypatch.undo()
    shared_data.data_folder.cache_clear()


def test_a_hidden_folder_skips_naming_the_file_and_the_folder(hidden: Path) -> None:
    assert shared_data.data_folder() == hidden.resolve()
    assert not shared_data.has_shared_file("hpc2n-excerpt.swf")
    with pytest.raises(pytest.skip.Exception) as skip:
        shared_data.shared_file("hpc2n-excerpt.swf")
    assert "hpc2n-excerpt.swf" in str(skip.value) and str(hidden.resolve()) in str(skip.value)
    with pytest.raises(pytest.skip.Exception) as skip:
        shared_data.seed_text("000")
    assert "000_*.txt" in str(skip.value) and str(hidden.parent / "seeds") in str(skip.value)
    assert shared_data.find_seed("000") is None
    mark = shared_data.needs_shared("hpc2n-excerpt.swf")
    assert mark.args == (True,) and "hpc2n-excerpt.swf" in mark.kwargs["reason"]


def test_a_present_file_is_returned(hidden: Path) -> None:
    (hidden / "t.swf").write_text("")
    (hidden.parent / "seeds").mkdir()
    (hidden.parent / "seeds" / "000_abc.txt").write_text("seed\n")
    assert shared_data.shared_file("t.swf") == hidden.resolve() / "t.swf"
    assert shared_data.seed_text("000").read_text() == "seed\n"
    assert shared_data.needs_shared("t.swf").args == (False,)


def test_a_missing_folder_is_named_as_missing(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(shared_data.DATA_ENV, str(tmp_path / "none"))
    shared_data.data_folder.cache_clear()
    try:
        with pytest.raises(pytest.skip.Exception, match="no such folder"):
            shared_data.shared_file("hpc2n-excerpt.swf")
    finally:
        monkeypatch.undo()
        shared_data.data_folder.cache_clear()


def test_the_command_honours_the_hidden_folder_before_its_fallback(hidden: Path) -> None:
    """Run from the checkout, where ``../shared/data`` may exist: with ``$LPSCHED_DATA`` on
    an empty folder, ``lpsched reproduce`` finds no trace (the hidden run is hidden for the
    commands the tests run, too): one error line naming the folder, exit status 2."""
    lpsched = Path(sys.executable).with_name("lpsched")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    proc = subprocess.run([str(lpsched), "reproduce", "contiguity", "--out",
                           str(hidden.parent / "o")], capture_output=True, text=True,
                          timeout=120, cwd=CHECKOUT, env=env, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert f"trace not found in {hidden.resolve()}" in proc.stderr
