"""Campaign extraction from SWF logs (seed 002 §5.6-5.7): MAX / LAST / ARRIVAL, the
transitively reduced dependency DAG (against a brute-force reduction), downtime pieces,
every job placed once or reported."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpsched.campaigns import reproduce as exp
from lpsched.campaigns.dag import dependency_edges
from lpsched.campaigns.extract import STATUS, detect, extract, split_pieces
from lpsched.campaigns.instance import from_dict, to_dict, topological_order
from lpsched.campaigns.metrics import campaign_stretch
from lpsched.campaigns.policies import policy_factory
from lpsched.campaigns.schedule import original_run, validate
from lpsched.campaigns.simulator import simulate
from lpsched.core.swf import read_swf
from lpsched.errors import InvalidInstanceError, ParseError
from tests.shared_data import needs_shared, shared_file

EGEE = "LPC-EGEE-2004-1.2-cln.swf.gz"


def test_max_keeps_the_linker_job() -> None:
    """Fig. 5.3: a long job joins two groups that would otherwise be two campaigns."""
    submit = np.array([0.0, 1.0, 2.0, 5.0])
    end = np.array([3.0, 4.0, 20.0, 7.0])
    user = np.zeros(4, dtype=np.int64)
    assert detect(user, submit, end, "max").tolist() == [0, 0, 0, 0]
    no_linker = [0, 1, 3]
    assert detect(user[no_linker], submit[no_linker], end[no_linker]).tolist() == [0, 0, 1]
    assert detect(user, submit, end, "last").tolist() == [0, 0, 0, 0]
    assert detect(user, submit, end, "arrival", threshold=2.0).tolist() == [0, 0, 0, 1]
    # boundary (spec A11): a job submitted exactly at maxEnd opens a new campaign
    assert detect(np.zeros(2, np.int64), np.array([0.0, 3.0]),
                  np.array([3.0, 4.0])).tolist() == [0, 1]
    # users are kept apart
    assert detect(np.array([1, 0]), np.array([0.0, 1.0]),
                  np.array([5.0, 6.0])).tolist() == [1, 0]


def test_dag_of_the_example() -> None:
    camp = np.zeros(4, dtype=np.int64)
    src, dst = dependency_edges(camp, np.array([0.0, 1.0, 2.0, 5.0]),
                                np.array([3.0, 4.0, 20.0, 7.0]))
    assert sorted(zip(src.tolist(), dst.tolist(), strict=True)) == [(0, 3), (1, 3)]


def brute_reduction(camp, submit, end):
    n = camp.size
    rel = {(a, b) for a in range(n) for b in range(n)
           if camp[a] == camp[b] and end[a] <= submit[b]}
    return {(a, b) for a, b in rel
            if not any((a, c) in rel and (c, b) in rel for c in range(n))}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 30), st.integers(1, 12)),
                min_size=1, max_size=14))
def test_sweep_reduction_equals_brute_force(jobs) -> None:
    camp = np.array([j[0] for j in jobs], dtype=np.int64)
    submit = np.array([j[1] for j in jobs], dtype=float)
    end = submit + np.array([j[2] for j in jobs], dtype=float)
    src, dst = dependency_edges(camp, submit, end)
    got = set(zip(src.tolist(), dst.tolist(), strict=True))
    assert got == brute_reduction(camp, submit, end)
    assert len(got) == src.size                     # no duplicate edge
    assert topological_order(camp.size, src, dst) is not None   # acyclic


def test_downtime_pieces() -> None:
    submit = np.array([0.0, 10.0, 50.0, 9000.0])
    start = np.array([0.0, 10.0, 8000.0, 9000.0])   # job 2 queued across the outage
    end = np.array([100.0, 200.0, 8100.0, 9100.0])
    piece, piece_start = split_pieces(submit, start, end, 3600.0)
    assert piece.tolist() == [0, 0, 1, 1]
    assert piece_start.tolist() == [0.0, 8000.0]


SWF = """; Version: 2.2
; MaxProcs: 4
1 0 0 10 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
2 2 0 10 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
3 15 0 10 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
4 3 1 5 2 -1 -1 2 -1 -1 1 3 1 -1 -1 -1 -1 -1
5 4 0 0 1 -1 -1 1 -1 -1 5 3 1 -1 -1 -1 -1 -1
6 5 0 5 1 -1 -1 1 -1 -1 1 -1 1 -1 -1 -1 -1 -1
7 9000 0 5 1 -1 -1 1 -1 -1 1 3 1 -1 -1 -1 -1 -1
8 9001 0 5 8 -1 -1 8 -1 -1 1 3 1 -1 -1 -1 -1 -1
9 11 0 1 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
"""


def test_extract_small_log(tmp_path) -> None:
    path = tmp_path / "t.swf"
    path.write_text(SWF)
    trace = read_swf(path)
    ex = extract(trace, method="max", deps=True)
    w = ex.workload
    assert w.processors == 4 and ex.pieces == 2
    # every job in exactly one campaign or reported with its reason
    placed = w.job_data["id"].astype(int).tolist()
    unplaced = [j for ids in ex.unplaced.values() for j in ids]
    assert sorted(placed + unplaced) == list(range(1, 10))
    assert len(set(placed)) == len(placed)
    assert {len(v) for v in ex.unplaced.values()} == {1}   # job 5, job 6, job 8
    assert w.extra["unplaced"] == ex.unplaced                # kept in the workload JSON
    # user 7: jobs 1, 2, 9 (one campaign), job 3 (new: submitted at 15 >= maxEnd 12)
    ids = w.job_data["id"].astype(int)
    assert sorted(zip(ids[w.dep_src].tolist(), ids[w.dep_dst].tolist(),
                      strict=True)) == [(1, 9)]   # job 1 ended at 10 <= 11
    by_user = {u: np.flatnonzero(w.user == u).tolist() for u in np.unique(w.user).tolist()}
    assert len(by_user[7]) == 2 and len(by_user[3]) == 2   # user 3: one per piece
    assert sorted(np.unique(w.piece).tolist()) == [0, 1]
    run = simulate(w, policy_factory("ostrich", False))
    validate(run)
    assert np.all(campaign_stretch(original_run(w)) >= 1)
    # the JSON keeps the rule, not the edge lists; loading recomputes the same edges
    data = to_dict(w)
    assert data["deps_rule"] == "interval-order"
    assert all("deps" not in c for c in data["campaigns"])
    again = from_dict(data)
    assert np.array_equal(again.dep_src, w.dep_src) and np.array_equal(again.dep_dst,
                                                                       w.dep_dst)
    data["deps_rule"] = "other"
    with pytest.raises(InvalidInstanceError, match="deps_rule"):
        from_dict(data)
    data["deps_rule"] = "interval-order"
    del data["campaigns"][0]["jobs"][0]["end0"]
    with pytest.raises(InvalidInstanceError, match="end0"):
        from_dict(data)


def test_closed_loop_replay(tmp_path) -> None:
    path = tmp_path / "t.swf"
    path.write_text(SWF)
    w = extract(read_swf(path), replay="closed").workload
    # user 7: campaign {1, 2, 9} ends at 12 in the log, the next is submitted at 15
    sevens = np.flatnonzero(w.user == 7)
    assert np.isnan(w.submit[sevens[1]]) and w.think[sevens[1]] == 3.0
    assert w.submit[sevens[0]] == 0.0
    run = simulate(w, policy_factory("fcfs", False))
    validate(run)
    assert run.release[sevens[1]] == run.completion[sevens[0]] + 3.0
    with pytest.raises(InvalidInstanceError):
        extract(read_swf(path), replay="sideways")


@needs_shared(EGEE)
def test_egee_extraction_round_trip() -> None:
    """B23: m = 140, tens of thousands of campaigns of 55 users; every job placed once."""
    trace = read_swf(shared_file(EGEE))
    ex = extract(trace, 140, "max", deps=True)
    w = ex.workload
    unplaced = sum(len(v) for v in ex.unplaced.values())
    assert w.jobs + unplaced == trace.jobs == 234_889
    assert np.unique(w.job_data["id"]).size == w.jobs
    assert 50_000 < w.campaigns < 65_000          # seed: 56,918 (decision 99)
    assert 50 <= np.unique(w.user).size <= 56     # seed: 55
    orig = campaign_stretch(original_run(w))
    assert 0.45 < np.mean(orig < 1.5) < 0.65      # seed: 55.2 %
    assert np.mean(orig <= 1 + 1e-9) < 0.01       # seed: 0.3 %


# -- SESSION (spec A11, [ZF12]): sessions bounded by a think time, MAX batches inside --

def test_session_splits_a_linker_campaign_at_a_long_pause() -> None:
    """User 0: a 3-hour linker job (0) runs through a 25-minute pause after job 1 ends:
    MAX keeps one campaign, SESSION (gap 20 min) breaks the session there; in the session
    after the pause jobs 2 and 3 overlap (one batch), job 4 comes after their end (new
    batch). User 1's jobs never overlap: three campaigns under every method (a think time
    of 19 min keeps the session, but the next job is a new batch)."""
    user = np.array([0, 0, 0, 0, 0, 1, 1, 1])
    submit = np.array([0.0, 10.0, 1660.0, 1700.0, 2100.0, 0.0, 1240.0, 3700.0])
    end = np.array([10800.0, 160.0, 2000.0, 1800.0, 2200.0, 100.0, 2440.0, 3800.0])
    # job 2: 1660 - 160 = 1500 s > 1200 after job 1 (in submission order): a break
    assert detect(user, submit, end, "session").tolist() == [0, 0, 1, 1, 2, 3, 4, 5]
    assert detect(user, submit, end, "max").tolist() == [0, 0, 0, 0, 0, 1, 2, 3]
    assert detect(user, submit, end, "last").tolist() == [0, 0, 1, 1, 2, 3, 4, 5]
    # a larger gap keeps user 0's jobs in one session; gap 0 breaks at every pause
    assert detect(user, submit, end, "session", session_gap=1800.0).tolist() == [
        0, 0, 0, 0, 0, 1, 2, 3]
    assert detect(user, submit, end, "session", session_gap=0.0).tolist() == [
        0, 0, 1, 1, 2, 3, 4, 5]
    # think time exactly at the gap: no break (a break needs *more than* the gap)
    three, ends = np.zeros(3, np.int64), np.array([5000.0, 100.0, 1400.0])
    assert detect(three, np.array([0.0, 10.0, 1300.0]), ends, "session").tolist() == [0, 0, 0]
    assert detect(three, np.array([0.0, 10.0, 1300.5]), ends, "session").tolist() == [0, 0, 1]
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(InvalidInstanceError, match="session_gap"):
            detect(user, submit, end, "session", session_gap=bad)


SESSION_SWF = """; Version: 2.2
; MaxProcs: 4
1 0 0 10800 1 -1 -1 1 -1 -1 1 5 1 -1 -1 -1 -1 -1
2 10 0 150 1 -1 -1 1 -1 -1 1 5 1 -1 -1 -1 -1 -1
3 1660 0 340 1 -1 -1 1 -1 -1 1 5 1 -1 -1 -1 -1 -1
4 1700 0 100 1 -1 -1 1 -1 -1 1 5 1 -1 -1 -1 -1 -1
5 2100 0 100 1 -1 -1 1 -1 -1 1 5 1 -1 -1 -1 -1 -1
6 2150 0 0 1 -1 -1 1 -1 -1 5 5 1 -1 -1 -1 -1 -1
7 0 0 100 2 -1 -1 2 -1 -1 1 8 1 -1 -1 -1 -1 -1
8 1240 0 1200 1 -1 -1 1 -1 -1 1 8 1 -1 -1 -1 -1 -1
9 3700 0 100 1 -1 -1 1 -1 -1 1 8 1 -1 -1 -1 -1 -1
"""


def test_extract_session_exact_campaigns(tmp_path) -> None:
    """The same two users as an SWF log (user 5 = 0, user 8 = 1; job 6 was cancelled):
    the exact campaigns, as sets of log job ids, and the report."""
    path = tmp_path / "s.swf"
    path.write_text(SESSION_SWF)
    ex = extract(read_swf(path), method="session", deps=True)
    w = ex.workload
    ids = w.job_data["id"].astype(int)
    got = sorted(sorted(ids[w.offsets[c]:w.offsets[c + 1]].tolist())
                 for c in range(w.campaigns))
    assert got == [[1, 2], [3, 4], [5], [7], [8], [9]]
    assert ex.unplaced == {"did not run (run time <= 0 or unknown)": [6]}
    assert ex.report()["session_gap"] == 1200.0 and ex.report()["method"] == "session"
    assert w.extra["session_gap"] == 1200.0
    # the DAG inside a session campaign: job 4 (ends 1800) precedes nothing; none here
    assert w.dep_src.size == 0
    got_max = extract(read_swf(path), method="max")
    assert got_max.workload.campaigns == 4 and "session_gap" not in got_max.report()
    run = simulate(w, policy_factory("ostrich", False))
    validate(run)
    with pytest.raises(InvalidInstanceError, match="session_gap"):
        extract(read_swf(path), method="session", session_gap=-5.0)


def _partition(ids: np.ndarray) -> set[frozenset[int]]:
    return {frozenset(np.flatnonzero(ids == c).tolist()) for c in np.unique(ids).tolist()}


def _refines(fine: np.ndarray, coarse: np.ndarray) -> bool:
    """Every block of ``fine`` lies inside one block of ``coarse``."""
    return all(np.unique(coarse[list(b)]).size == 1 for b in _partition(fine))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 5000), st.integers(1, 3000)),
                min_size=1, max_size=25), st.sampled_from([0.0, 60.0, 1200.0, 1e9]))
def test_session_round_trip_and_refinement(jobs, gap) -> None:
    """Every job in exactly one campaign, one user per campaign, ids 0..C-1 ascending with
    (user, submit); LAST refines SESSION refines MAX; SESSION = MAX for a huge gap."""
    user = np.array([j[0] for j in jobs], dtype=np.int64)
    submit = np.array([j[1] for j in jobs], dtype=float)
    end = submit + np.array([j[2] for j in jobs], dtype=float)
    ids = detect(user, submit, end, "session", session_gap=gap)
    assert ids.shape == user.shape and ids.min() == 0
    assert np.array_equal(np.unique(ids), np.arange(ids.max() + 1))   # no empty campaign
    assert all(np.unique(user[list(b)]).size == 1 for b in _partition(ids))
    order = np.lexsort((np.arange(user.size), submit, user))
    assert np.all(np.diff(ids[order]) >= 0)                            # contiguous runs
    mx, last = detect(user, submit, end, "max"), detect(user, submit, end, "last")
    assert _refines(ids, mx) and _refines(last, ids)
    if gap >= 1e9:
        assert _partition(ids) == _partition(mx)


def test_extract_session_round_trip_on_a_random_log(tmp_path) -> None:
    """A random SWF log (cancelled jobs, unknown users, wide jobs, a downtime): every job
    either in exactly one campaign or reported, for every method."""
    rng = np.random.default_rng(3)
    lines = ["; Version: 2.2", "; MaxProcs: 8"]
    t = 0
    for j in range(1, 301):
        t += int(rng.integers(0, 900)) + (20_000 if j == 150 else 0)
        run = int(rng.integers(-1, 4000))
        procs = int(rng.integers(1, 10))
        user = int(rng.integers(-1, 6))
        lines.append(f"{j} {t} {int(rng.integers(0, 50))} {run} {procs} -1 -1 {procs} -1 -1 "
                     f"1 {user} 1 -1 -1 -1 -1 -1")
    path = tmp_path / "r.swf"
    path.write_text("\n".join(lines) + "\n")
    trace = read_swf(path)
    for method in ("max", "last", "arrival", "session"):
        ex = extract(trace, method=method, deps=True)
        placed = ex.workload.job_data["id"].astype(int).tolist()
        unplaced = [j for v in ex.unplaced.values() for j in v]
        assert sorted(placed + unplaced) == list(range(1, 301)), method
        assert len(set(placed)) == len(placed) and ex.pieces == 2
        validate(simulate(ex.workload, policy_factory("ostrich", False)))


@needs_shared(EGEE)
def test_egee_session_extraction_round_trip() -> None:
    """SESSION on LPC-EGEE: every job in exactly one campaign or reported; its campaigns
    refine MAX's (more of them: MAX's linker campaigns split at long pauses)."""
    trace = read_swf(shared_file(EGEE))
    ses, mx = (extract(trace, 140, m).workload for m in ("session", "max"))
    assert np.array_equal(np.sort(ses.job_data["id"]), np.sort(mx.job_data["id"]))
    assert np.unique(ses.job_data["id"]).size == ses.jobs
    assert mx.campaigns < ses.campaigns < 1.2 * mx.campaigns
    by_id = np.empty(int(mx.job_data["id"].max()) + 1, dtype=np.int64)
    by_id[mx.job_data["id"].astype(np.int64)] = mx.camp
    outer = by_id[ses.job_data["id"].astype(np.int64)]          # MAX campaign of each job
    first = ses.offsets[:-1]
    assert np.all(outer == np.repeat(outer[first], np.diff(ses.offsets)))


# -- the status of a job, and logs where no job can be placed (decisions 300, 301) -------

# user 7: jobs 1 (status 1), 2 (status 0), 3 (status 5, ran 4 s), 4 (status 5, never ran);
# user 3: job 5 (status 1), job 6 (status 1, run 0)
STATUS_SWF = """; MaxProcs: 4
1 0 0 10 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1
2 2 0 10 1 -1 -1 1 -1 -1 0 7 1 -1 -1 -1 -1 -1
3 30 0 4 1 -1 -1 1 -1 -1 5 7 1 -1 -1 -1 -1 -1
4 31 0 -1 1 -1 -1 1 -1 -1 5 7 1 -1 -1 -1 -1 -1
5 3 0 5 1 -1 -1 1 -1 -1 1 3 1 -1 -1 -1 -1 -1
6 4 0 0 1 -1 -1 1 -1 -1 1 3 1 -1 -1 -1 -1 -1
"""


def _trace(tmp_path: Path, text: str = STATUS_SWF):
    path = tmp_path / "t.swf"
    path.write_text(text)
    return read_swf(path)


def _counts(ex) -> dict[str, int]:
    return {r: v["count"] for r, v in ex.report()["unplaced"].items()}


def test_status_default_keeps_every_status(tmp_path) -> None:
    """Decision 300: by default every job that ran is replayed, whatever its status."""
    assert STATUS == "all"
    ex = extract(_trace(tmp_path))
    assert ex.workload.jobs == 4 and sorted(ex.workload.job_data["id"]) == [1, 2, 3, 5]
    assert _counts(ex) == {"did not run (run time <= 0 or unknown)": 2}
    assert ex.workload.extra["status"] == "all"


@pytest.mark.parametrize("status, kept, counts", [
    ("completed", [1, 5], {"status 0 not selected": 1, "status 5 not selected": 2,
                           "did not run (run time <= 0 or unknown)": 1}),
    ("completed,0", [1, 2, 5], {"status 5 not selected": 2,
                                "did not run (run time <= 0 or unknown)": 1}),
    ("cancelled", [3], {"status 0 not selected": 1, "status 1 not selected": 3,
                        "did not run (run time <= 0 or unknown)": 1}),
    ({0, 5}, [2, 3], {"status 1 not selected": 3,
                      "did not run (run time <= 0 or unknown)": 1}),
])
def test_status_selects_and_counts_per_status(tmp_path, status, kept, counts) -> None:
    """Counts per status: every job of the log is placed or unplaced for one reason."""
    trace = _trace(tmp_path)
    ex = extract(trace, status=status)
    assert sorted(ex.workload.job_data["id"].tolist()) == kept
    assert _counts(ex) == counts
    assert ex.workload.jobs + sum(counts.values()) == trace.jobs


def test_unknown_status_refused(tmp_path) -> None:
    with pytest.raises(InvalidInstanceError, match="status"):
        extract(_trace(tmp_path), status="finished")


@pytest.mark.parametrize("deps", [False, True])
@pytest.mark.parametrize("lines, reason", [
    (["1 0 0 0 1 -1 -1 1 -1 -1 1 7 1 -1 -1 -1 -1 -1",
      "2 5 0 -1 1 -1 -1 1 -1 -1 5 7 1 -1 -1 -1 -1 -1"], "2 did not run"),
    (["1 0 0 10 8 -1 -1 8 -1 -1 1 7 1 -1 -1 -1 -1 -1"], "1 larger than the machine"),
])
def test_nothing_placeable_is_a_parse_error(tmp_path, deps, lines, reason) -> None:
    """Decision 301: all run times 0 or unknown, or all jobs wider than the
    machine: a ParseError naming why, not the minimum of an empty array."""
    trace = _trace(tmp_path, "; MaxProcs: 4\n" + "\n".join(lines) + "\n")
    with pytest.raises(ParseError, match="no job can be placed") as err:
        extract(trace, deps=deps)
    assert reason in str(err.value)
    with pytest.raises(ParseError, match="no job can be placed"):
        exp.check_trace(str(tmp_path / "t.swf"), processors=4)


def test_no_status_selected_is_a_parse_error(tmp_path) -> None:
    with pytest.raises(ParseError, match="3 status 1 not selected; 2 status 5"):
        extract(_trace(tmp_path), status="9")
