"""Every reading of FCFS and FairCamp (seed 002 B16-B17, decision 303) tried on the same
instances. Usage: python fc_readings.py INSTANCES OUT.json [k,k,...] [exponents] [runs]
(``runs``: a comma list of the names in RUNS, default all of them)."""
import heapq
import json
import sys
import time
from functools import partial

import numpy as np

from lpsched.campaigns.faircamp import _FairCamp, faircamp, faircamp_packed
from lpsched.campaigns.generators import faircamp_workload
from lpsched.campaigns.metrics import campaign_stretch, user_stretch
from lpsched.campaigns.policies import Fcfs
from lpsched.campaigns.schedule import CampaignRun
from lpsched.campaigns.simulator import simulate


class FcfsStream(Fcfs):
    """FCFS whose intra-campaign order is the job stream (job index), not LPT."""
    def on_ready(self, c, jobs):
        t = float(self.sim.release[c]) if self.by_release else 0.0
        for j in jobs:
            heapq.heappush(self.queue, (t, c, (j,)))


class _FcfsBlock(_FairCamp):
    """Campaigns as LPT blocks on the whole machine, in submission (FIFO) order."""
    def submit(self, c):
        super().submit(c)
        # replace the EDF key by the FIFO one: (seq, ...)
        _d, u, seq, cc = self.ready.pop()
        self.ready.append((float(seq), u, seq, cc))
        heapq.heapify(self.ready)


def fcfs_block(w):
    st = _FcfsBlock(w)
    for c in st.firsts:
        st.eng.at(0.0, partial(st.submit, c), 2)
    st.eng.run()
    return CampaignRun("fcfs-block", w, st.start, st.release, {}, st.eng.processed)


RUNS = {
    "faircamp-packed": faircamp_packed,
    "faircamp-block": faircamp,
    "fcfs-submission-lpt": lambda w: simulate(w, lambda: Fcfs("submission")),
    "fcfs-submission-stream": lambda w: simulate(w, lambda: FcfsStream("submission")),
    "fcfs-generation-lpt": lambda w: simulate(w, lambda: Fcfs("generation")),
    "fcfs-generation-stream": lambda w: simulate(w, lambda: FcfsStream("generation")),
    "fcfs-block": fcfs_block,
}

if len(sys.argv) > 5:
    RUNS = {k: RUNS[k] for k in sys.argv[5].split(",")}
n, out = int(sys.argv[1]), sys.argv[2]
ks = [int(x) for x in (sys.argv[3] if len(sys.argv) > 3 else "2,5,10,20").split(",")]
exps = [float(x) for x in (sys.argv[4] if len(sys.argv) > 4 else "1.4267,1.0").split(",")]
res = []
t0 = time.time()
for a in exps:
    for k in ks:
        for s in range(n):
            w = faircamp_workload(k, 10_000, seed=s, exponent=a)
            row = {"exp": a, "k": k, "seed": s}
            for name, fn in RUNS.items():
                run = fn(w)
                row[name + ":S2"] = float(np.nanmax(user_stretch(run)))
                row[name + ":S1"] = float(campaign_stretch(run).max())
            res.append(row)
        print(a, k, round(time.time() - t0), flush=True)
json.dump(res, open(out, "w"))
