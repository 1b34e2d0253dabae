"""One candidate cause of decision 305, measured on its own: a dependent job released no
earlier than its original submission offset inside its campaign (the users' think
times inside a campaign kept). Experiment only (monkeypatches the simulator)."""
import json
from functools import partial

import numpy as np

from lpsched.campaigns import simulator as simmod
from lpsched.campaigns.extract import extract
from lpsched.campaigns.metrics import campaign_stretch, campaign_stretch_from_log
from lpsched.campaigns.policies import policy_factory
from lpsched.core.swf import read_swf

Base = simmod.Simulator


class Paced(Base):
    def __init__(self, w, policy):
        super().__init__(w, policy)
        self.offset = (w.job_data["submit0"] - np.repeat(w.submit, np.diff(w.offsets))).tolist()

    def _finish(self, j):
        self._event()
        self.free += self.q[j]
        self.running -= 1
        self.policy.on_finish(j)
        c = self.camp[j]
        now = self.eng.now
        for s in self.succ[self.succ_start[j]:self.succ_start[j + 1]]:
            self.need[s] -= 1
            if self.need[s] == 0:
                t = max(now, float(self.release[c]) + self.offset[s])
                if t <= now:
                    self.policy.on_ready(c, [s])
                else:
                    self.eng.at(t, partial(self._late_ready, c, s), simmod.SUBMIT)
        self.left[c] -= 1
        if self.left[c] == 0:
            self._campaign_done(c)

    def _late_ready(self, c, s):
        self._event()
        self.policy.on_ready(c, [s])


simmod.Simulator = Paced
trace = read_swf("../shared/data/LPC-EGEE-2004-1.2-cln.swf.gz")
w = extract(trace, 140, "max", True).workload
out = {}
for pol in ("ostrich", "fcfs"):
    run = simmod.simulate(w, policy_factory(pol, False))
    for tag, d in (("", campaign_stretch(run)), ("_log", campaign_stretch_from_log(run))):
        out[pol + tag] = [float(np.mean(d <= 1 + 1e-9)), float(np.mean(d <= 1.15 + 1e-9)),
                          float(np.mean(d < 1.5))]
print(json.dumps(out))
