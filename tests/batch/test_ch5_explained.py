"""Seed 000 ch. 5's sum-flow rows that differ cite the decision holding their evidence
(KTH SP2 276, LLNL Thunder 424, SDSC Blue 425, the best variant 426, Curie's contiguous
rows 427), and a row that comes back is a match."""

from __future__ import annotations

import numpy as np

from lpsched.batch.fidelity import vs_seed

CURIE = {"becont": 1.066, "beloc": 0.905, "beplat": 0.468, "cont": 1.781, "loc": 0.882,
         "plat": 0.438}
KTH = {"becont": .983, "beloc": .928, "beplat": .906, "cont": 1.213, "loc": 1.018,
       "plat": 1.045}
LLNL_SDSC = {"becont": 0.99, "beloc": 0.99, "beplat": 0.986, "cont": 1.14, "loc": 0.99,
             "plat": 1.04}


def _rows(ratios: dict[str, dict[str, float]], n: int = 30) -> list[dict]:
    """``n`` instances per platform: each variant's sum flow ``ratios[platform][variant]``
    of basic's, with a per-instance noise of 0.5 %."""
    rng = np.random.default_rng(4)
    out = []
    for plat, per in ratios.items():
        for s in range(n):
            base = float(rng.uniform(900, 1100))
            for a in ("basic", *per):
                f = 1.0 if a == "basic" else per[a] + float(rng.normal(0, 0.005))
                out.append({"seed": s, "alloc": a, "jobs": 100, "platform": plat,
                            "sum_flow": base * f, "sum_stretch": base * f,
                            "contiguity_factor": f, "locality_factor": f,
                            "platform_level_factor": f, "success_rate": 2 - f})
    return out


def _rows_by_figure(ratios: dict[str, dict[str, float]]) -> dict[str, tuple[str, int | None]]:
    table = vs_seed("platform-level", _rows(ratios), [])
    return {r.figure: (r.kind, r.decision) for r in table.rows}


def test_curie_rows_cite_their_decisions() -> None:
    got = _rows_by_figure({"curie": CURIE})
    assert got["curie: cont sum flow / basic's"] == ("differs: cause measured", 427)
    assert got["curie: becont sum flow / basic's"] == ("differs: not reproduced", 427)
    assert got["curie: beplat's sum flow below every other variant's"][1] == 426
    assert got["curie: beplat's sum flow below every other variant's"][0].startswith(
        "differs")
    assert got["curie: plat sum flow / basic's"][0] == "match"


def test_kth_llnl_and_sdsc_rows() -> None:
    got = _rows_by_figure({"kth_sp2": KTH, "llnl_thunder": LLNL_SDSC,
                           "sdsc_blue": LLNL_SDSC})
    for fig, decision in (("kth_sp2: plat", 276), ("kth_sp2: loc", 276),
                          ("llnl_thunder: cont", 424), ("llnl_thunder: plat", 424),
                          ("sdsc_blue: cont", 425)):
        kind, cited = got[f"{fig} sum flow / basic's"]
        assert kind.startswith("differs") and cited == decision, (fig, kind, cited)
    assert got["kth_sp2: beloc sum flow / basic's"][0] == "match"
