"""Seed 002's two headlines that do not come back, and the value of the one parameter that
moves each to the seed's number (a calibration finding, never a default: decision 577).

* ``faircamp``: the FCFS/FairCamp ratio of mean S2 max-stretch at k = 5, 10, 20 (seed 1.35,
  2.24, about 3.4 [002 L1134]) against the Zipf exponent of the campaign owners (the text
  states 1.4267 [002 L1124], its prose describes 1 [002 L1136]), for each FCFS order
  (unstated: decision 93) and FairCamp mode (decision 91). Reduced: INSTANCES instances
  per k (the seed's 1,000), 10,000 jobs each, the same seeds for every exponent.
* ``ostrich``: OStrich's share of LPC-EGEE campaigns at stretch 1 (seed 68.6 % [002
  L1358]) against the machine count (the text states 140 [002 L1350]). Reduced: the
  trace's jobs FIRST .. FIRST + LIMIT - 1 (decision 146), not the whole trace.

Usage::

    python headline_calibration.py faircamp INSTANCES OUT.json [exponents]
    python headline_calibration.py ostrich TRACE FIRST LIMIT OUT.json [machines]

Each prints one JSON line per setting (with its CPU seconds) and writes them all to OUT.
"""
import json
import sys
import time

import numpy as np

from lpsched.campaigns import reproduce as exp
from lpsched.campaigns.extract import extract
from lpsched.campaigns.metrics import campaign_stretch
from lpsched.campaigns.policies import policy_factory
from lpsched.campaigns.simulator import simulate
from lpsched.core.swf import read_swf

PAIRINGS = (("fcfs-submission", "faircamp-packed"), ("fcfs-generation", "faircamp-packed"),
            ("fcfs-submission", "faircamp-block"), ("fcfs-generation", "faircamp-block"))


def faircamp(instances, out, exponents):
    res = []
    for a in exponents:
        t0 = time.process_time()
        by = {}
        for k in (5, 10, 20):
            for s in range(instances):
                cell = {"k": k, "seed": s, "jobs": 10_000, "exponent": a}
                for r in exp.faircamp_cell(cell):
                    by.setdefault((k, r["policy"]), []).append(r["max_user_stretch"])
        row = {"exponent": a, "instances": instances}
        for f, c in PAIRINGS:
            row[f"{f}/{c}"] = {k: round(float(np.mean(by[k, f]) / np.mean(by[k, c])), 3)
                               for k in (5, 10, 20)}
        row["means_k20"] = {p: round(float(np.mean(by[20, p])), 2)
                            for p in exp.FAIRCAMP_POLICIES}
        row["cpu_seconds"] = round(time.process_time() - t0, 1)
        res.append(row)
        print(json.dumps(row), flush=True)
        json.dump(res, open(out, "w"), indent=1)


def ostrich(trace_path, first, limit, out, machines):
    trace = exp._head(read_swf(trace_path), limit, first)
    res = []
    for m in machines:
        t0 = time.process_time()
        w = extract(trace, m, "max", True).workload
        d = campaign_stretch(simulate(w, policy_factory("ostrich", False)))
        row = {"machines": m, "first": first, "limit": limit, "campaigns": w.campaigns,
               "share_1": round(100 * float(np.mean(d <= 1 + 1e-9)), 2),
               "share_1_15": round(100 * float(np.mean(d <= 1.15 + 1e-9)), 2),
               "share_below_1_5": round(100 * float(np.mean(d < 1.5)), 2),
               "utilisation": round(100 * float(np.sum(w.p * w.q)) / m / max(
                   float(np.max(trace.columns["submit"]) - np.min(trace.columns["submit"])),
                   1.0), 1),
               "cpu_seconds": round(time.process_time() - t0, 1)}
        res.append(row)
        print(json.dumps(row), flush=True)
        json.dump(res, open(out, "w"), indent=1)


if __name__ == "__main__":
    if sys.argv[1] == "faircamp":
        exps = ([float(x) for x in sys.argv[4].split(",")] if len(sys.argv) > 4 else
                [0.5, 0.75, 1.0, 1.2, 1.4267, 1.7, 2.0])
        faircamp(int(sys.argv[2]), sys.argv[3], exps)
    else:
        ms = ([int(x) for x in sys.argv[6].split(",")] if len(sys.argv) > 6 else
              [140, 100, 80, 70, 60, 50, 40])
        ostrich(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], ms)
