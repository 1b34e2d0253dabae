"""Each candidate cause of the LPC-EGEE gap (B23-B26), one at a time (decision 305).
Usage: python egee_causes.py OUT.json [variant,...]"""
import json
import sys
import time

import numpy as np

from lpsched.campaigns import dag as dagmod
from lpsched.campaigns import extract as ext
from lpsched.campaigns import policies as pol
from lpsched.campaigns import reproduce as exp

TRACE = "../shared/data/LPC-EGEE-2004-1.2-cln.swf.gz"
real_extract = ext.extract
real_max_breaks = ext._max_breaks
real_edges = dagmod.dependency_edges
real_factory = pol.policy_factory

VARIANTS = {
    "base": {},
    "status=completed": {"status": "completed"},
    "status=completed,failed": {"status": "completed,0"},
    "machines=120": {"m": 120},
    "machines=100": {"m": 100},
    "machines=70": {"m": 70},
    "downtime=600": {"downtime": 600.0},
    "downtime=6h": {"downtime": 6 * 3600.0},
    "downtime=none": {"downtime": float("inf")},
    "max-boundary-strict": {"strict": True},
    "deps-edge-strict": {"edge_strict": True},
    "method=session": {"method": "session"},
    "method=last": {"method": "last"},
    "replay=closed": {"replay": "closed"},
    "gate=off": {"gate": False},
}


def strict_breaks(first, s, e):
    n = s.size
    span = float(e.max() - s.min()) + 1.0 if n else 1.0
    group = np.cumsum(first) - 1
    shifted = e + group * span
    prev = np.concatenate(([-np.inf], np.maximum.accumulate(shifted)[:-1]))
    return first | (s + group * span > prev)


def run_variant(name, v):
    def extract(trace, processors=None, method="max", deps=False, *a, status="all", **k):
        return real_extract(trace, v.get("m", 140), v.get("method", "max"), deps,
                            v.get("downtime", 3600.0), 600.0, v.get("replay", "open"),
                            status=v.get("status", "all"))
    exp.extract = extract
    ext._max_breaks = strict_breaks if v.get("strict") else real_max_breaks
    if v.get("edge_strict"):
        def edges(camp, submit, end):  # end_a < submit_b: shift ends by a hair
            return real_edges(camp, submit, end + 1e-6)
        ext.dependency_edges = edges
    else:
        ext.dependency_edges = real_edges
    if "gate" in v:
        exp.policy_factory = lambda name_, par, *a, **k: real_factory(
            name_, par, *a, **{**k, "gate": v["gate"]})
    else:
        exp.policy_factory = real_factory
    rows = []
    t0 = time.time()
    for p, deps in (("ostrich", True), ("ostrich", False), ("original", True)):
        rows += exp.ostrich_cell({"part": "egee", "trace": TRACE, "policy": p,
                                  "deps": deps, "limit": 0, "series": exp.SERIES})
    s = exp.ostrich_summary(rows)
    o, n, g = s["egee"]["ostrich"], s["egee"]["ostrich-nodeps"], s["egee"]["original"]
    b26 = s["b26"] or {}
    return {"variant": name, "campaigns": o["campaigns"], "users": o["users"],
            "ostrich": [o["share_1"], o["share_1_15"], o["share_below_1_5"]],
            "ostrich_log": [o["share_1_log"], o["share_1_15_log"], o["share_below_1_5_log"]],
            "nodeps": [n["share_1"], n["share_1_15"], n["share_below_1_5"]],
            "original": [g["share_1"], g["share_1_15"], g["share_below_1_5"]],
            "b26_ratio": b26.get("ratio"), "seconds": time.time() - t0}


out = sys.argv[1]
names = sys.argv[2].split(",") if len(sys.argv) > 2 else list(VARIANTS)
res = []
for nm in names:
    r = run_variant(nm, VARIANTS[nm])
    res.append(r)
    print(json.dumps(r), flush=True)
    json.dump(res, open(out, "w"))
