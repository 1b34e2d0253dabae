"""Checks on the built documentation (``make docs`` runs it after Sphinx).

* An option name is printed as typed: no ``–json`` (an en dash where ``--json`` was
  written) anywhere in the pages; a copied option must work.
* The theme's stylesheet that lets long API titles wrap (``docs/_static/lpsched.css``) is
  linked from every page, so no title is clipped.

Usage: ``python scripts/check_docs_html.py docs/_build/html``; exit 1 with the offending
pages listed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

#: an en or em dash directly before an option-like word, outside a longer word
DASHED_OPTION = re.compile(r"(?<![\w\-–—])[–—][a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def problems(site: Path) -> list[str]:
    """``page: what`` for every page breaking a rule above."""
    found = []
    for page in sorted(site.rglob("*.html")):
        if "_static" in page.relative_to(site).parts:  # the theme's own templates
            continue
        text = page.read_text(encoding="utf-8")
        rel = page.relative_to(site)
        body = re.sub(r"<(script|style)\b.*?</\1>", "", text, flags=re.S)
        for match in sorted(set(DASHED_OPTION.findall(re.sub(r"<[^>]+>", " ", body)))):
            found.append(f"{rel}: option printed with a dash: {match!r}")
        if "_static/lpsched.css" not in text:
            found.append(f"{rel}: does not link _static/lpsched.css")
    return found


def main(argv: list[str]) -> int:
    site = Path(argv[0] if argv else "docs/_build/html")
    found = problems(site)
    for line in found:
        print(line)
    print(f"{len(found)} problems in {site}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
