"""The built documentation's checks (scripts/check_docs_html.py, run by ``make docs``)
catch an option printed with an en dash and a page without the wrapping stylesheet."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "check_docs_html.py"
spec = importlib.util.spec_from_file_location("check_docs_html", SCRIPT)
assert spec is not None and spec.loader is not None
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)

CSS = '<link rel="stylesheet" href="_static/lpsched.css" />'


def test_an_option_printed_with_a_dash_is_found(tmp_path: Path) -> None:
    (tmp_path / "cli.html").write_text(f"<html>{CSS}<p>use –json or —out</p></html>")
    (tmp_path / "ok.html").write_text(f"<html>{CSS}<p>use --json; 5–30 %; A – B</p></html>")
    found = check.problems(tmp_path)
    assert found == ["cli.html: option printed with a dash: '–json'",
                     "cli.html: option printed with a dash: '—out'"]


def test_a_page_without_the_stylesheet_is_found(tmp_path: Path) -> None:
    (tmp_path / "api.html").write_text("<html><h1>lpsched.bags.maxstretch</h1></html>")
    assert check.problems(tmp_path) == ["api.html: does not link _static/lpsched.css"]
    assert check.main([str(tmp_path)]) == 1


def test_sphinx_is_told_not_to_change_the_typography() -> None:
    conf = (SCRIPT.parents[1] / "docs" / "conf.py").read_text()
    assert "smartquotes = False" in conf and '"lpsched.css"' in conf
