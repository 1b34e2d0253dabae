"""Seed 004's rows no earlier decision covers, under seven improved-HCPA rules (decision 598).

    for b in literal none fraction:0.3 fraction:0.2 fraction:0.15 fraction:0.1 budget:0.65; do
        .venv/bin/lpsched reproduce ptg --scenarios 60 --hcpa-bound $b --out r60_$b \\
            --quiet --no-figures
    done
    .venv/bin/python benchmarks/bench_ptg_rules.py literal=r60_literal/ptg.sqlite \\
        none=r60_none/ptg.sqlite ...

Builds :func:`lpsched.ptg.fidelity.ptg_table` from each store (no simulation) and prints,
for every row that differs under the first rule and cites decision 598, ours and the
verdict under every rule: the values ``lpsched.ptg.fidelity.RULE_FINDINGS`` records.
"""

from __future__ import annotations

import sys

from lpsched.core import ResultStore
from lpsched.ptg.fidelity import ptg_table


def readings(stores: dict[str, str]) -> dict[tuple[str, str], dict[str, tuple[str, str]]]:
    """Each row's ours and verdict under each rule.

    Parameters
    ----------
    stores : dict of str to str
        The rule (``literal``, ``fraction:0.2``) and the store of the run under it.

    Returns
    -------
    dict
        ``(ref, figure)`` to ``{rule: (ours, verdict)}``.
    """
    out: dict[tuple[str, str], dict[str, tuple[str, str]]] = {}
    for rule, path in stores.items():
        bound = "none" if rule.startswith("budget") else rule  # the values, not the roles
        for r in ptg_table(ResultStore(path).rows("ptg"), bound).rows:
            out.setdefault((r.ref, r.figure), {})[rule] = (r.ours, r.verdict)
    return out


def main() -> None:
    """Print the rows of decision 598 under each rule given on the command line."""
    stores = dict(a.split("=", 1) for a in sys.argv[1:])
    if not stores:
        sys.exit("usage: bench_ptg_rules.py RULE=STORE [RULE=STORE ...]")
    first = next(iter(stores))
    for (ref, figure), by_rule in readings(stores).items():
        if "decision 598" not in by_rule.get(first, ("", ""))[1]:
            continue
        print(f"{ref} {figure}")
        for rule, (ours, verdict) in by_rule.items():
            print(f"    {rule:14s} {ours[:40]:40s} {verdict[:60]}")


if __name__ == "__main__":
    main()
