"""Every strategy draws instances its family's own checks and solvers accept."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import find, given, settings

from lpsched.approx.certified import check_count, check_times
from lpsched.approx.dual import hybrid_schedule
from lpsched.approx.listsched import list_scheduling, lpt
from lpsched.approx.moldable import check_table, mrt, validate_moldable
from lpsched.approx.packing import nfdh_ls, validate_rigid
from lpsched.bags import Instance, instance_from_dict, instance_to_dict
from lpsched.bags.policies import get_policy
from lpsched.bags.schedule import metrics, validate
from lpsched.bags.simulator import simulate
from lpsched.errors import InvalidInstanceError
from lpsched.testing import from_dict, load_example, strategies
from lpsched.testing.instances import HybridTasks, IdenticalJobs, MoldableJobs, RigidJobs

pytest_plugins = ["pytester"]


def _round_trip(inst):
    """The JSON document parses back to the same instance."""
    doc = json.loads(json.dumps(inst.to_dict()))
    back = from_dict(doc)
    assert back.to_dict() == inst.to_dict()


@given(strategies.identical_jobs())
def test_identical_jobs_validate(inst: IdenticalJobs) -> None:
    check_times("times", inst.times)
    check_count("machines", inst.machines)
    assert 1 <= inst.times.size <= 10 and 1 <= inst.machines <= 3
    assert lpt(inst.times, inst.machines).holds()
    assert list_scheduling(inst.times, inst.machines).holds()
    _round_trip(inst)


@given(inst=strategies.hybrid_tasks())
def test_hybrid_tasks_validate_and_the_cli_reads_them(tmp_path_factory, inst: HybridTasks,
                                                       ) -> None:
    from lpsched.cli.approx import _read_hybrid_tasks

    res = hybrid_schedule(inst.cpu_times, inst.gpu_times, inst.cpus, inst.gpus)
    assert res.holds()
    path = tmp_path_factory.mktemp("hybrid") / "tasks.json"
    path.write_text(json.dumps(inst.to_dict()))
    cpu, gpu = _read_hybrid_tasks(str(path))  # the reader of `lpsched approx hybrid`
    assert np.array_equal(cpu, inst.cpu_times) and np.array_equal(gpu, inst.gpu_times)
    _round_trip(inst)


@given(strategies.rigid_jobs())
def test_rigid_jobs_validate(inst: RigidJobs) -> None:
    res = nfdh_ls(inst.jobs, inst.clusters, inst.cluster_size)
    validate_rigid(inst.times, inst.sizes, res.schedule, inst.processors, inst.cluster_size,
                   local=True)
    assert res.holds()
    _round_trip(inst)


@given(strategies.moldable_jobs())
def test_moldable_jobs_are_monotonic_and_validate(inst: MoldableJobs) -> None:
    table, monotonic = check_table(inst.times.tolist(), inst.processors)
    assert monotonic and inst.integral
    res = mrt(inst.times, inst.processors)
    validate_moldable(table, res.schedule)
    assert res.holds() and res.extra["unbuilt_guesses"] == 0
    _round_trip(inst)


@given(strategies.moldable_jobs(integral=False, max_processors=5))
def test_real_moldable_tables_are_monotonic(inst: MoldableJobs) -> None:
    _, monotonic = check_table(inst.times.tolist(), inst.processors)
    assert monotonic


@settings(max_examples=15)
@given(strategies.star_instances(max_apps=3, max_workers=3))
def test_star_instances_validate_and_simulate(inst: Instance) -> None:
    again = instance_from_dict(json.loads(json.dumps(instance_to_dict(inst))))
    assert instance_to_dict(again) == instance_to_dict(inst)
    sched = simulate(inst, get_policy("fifo-rr")).schedule
    validate(inst, sched)
    assert metrics(inst, sched).max_stretch >= 1 - 1e-9


@pytest.mark.parametrize("port", ["one-port", "multiport"])
@pytest.mark.parametrize("speeds", ["related", "unrelated"])
def test_star_options_are_honoured(port: str, speeds: str) -> None:
    @settings(max_examples=10)
    @given(strategies.star_instances(port=port, speeds=speeds))
    def check(inst: Instance) -> None:
        assert inst.platform.port == port
        assert inst.platform.unrelated == (speeds == "unrelated")

    check()


def test_the_edge_cases_are_drawn() -> None:
    """Each family's edge cases are reachable (find fails if they never are)."""
    find(strategies.identical_jobs(), lambda i: i.times.size > 1 and np.all(i.times == i.times[0]))
    find(strategies.identical_jobs(), lambda i: 0 < i.times.min() < 1e-2)
    find(strategies.identical_jobs(), lambda i: i.machines == 1)
    find(strategies.identical_jobs(), lambda i: i.times.size > 1 and
         2 * i.times.max() == i.times.sum() > 0)  # a job as long as all the others
    find(strategies.hybrid_tasks(), lambda i: (i.gpu_times == 0).any())
    find(strategies.rigid_jobs(max_clusters=1), lambda i: i.sizes.max() == i.processors > 1)
    find(strategies.rigid_jobs(), lambda i: not i.local)
    find(strategies.moldable_jobs(), lambda i: i.processors > 1 and
         (i.times[:, 0] == i.times[:, -1]).any())
    find(strategies.star_instances(), lambda i: i.p == 1)
    find(strategies.star_instances(), lambda i: i.size.min() == 1e-3)
    find(strategies.star_instances(port="multiport"),
         lambda i: np.isfinite(i.platform.master_bandwidth))


def test_bad_sizes_and_options_are_refused() -> None:
    with pytest.raises(InvalidInstanceError):
        strategies.identical_jobs(max_jobs=0)
    with pytest.raises(InvalidInstanceError):
        strategies.star_instances(port="two-port")
    with pytest.raises(InvalidInstanceError):
        IdenticalJobs([], 2)
    with pytest.raises(InvalidInstanceError):
        MoldableJobs([[1, 2]], 2)  # time grows with processors: not monotonic
    with pytest.raises(InvalidInstanceError):
        RigidJobs([1.0], [3], clusters=2, cluster_size=2)
    with pytest.raises(InvalidInstanceError):
        from_dict({"nothing": 1})


def test_an_example_file_loads_back(tmp_path) -> None:
    path = tmp_path / "x.json"
    inst = RigidJobs([1.5, 2], [1, 2], clusters=2, cluster_size=2, local=False)
    path.write_text(json.dumps(inst.to_dict()))
    assert load_example(path).to_dict() == inst.to_dict()


@settings(max_examples=5)
@given(hybrid=strategies.hybrid_tasks(), moldable=strategies.moldable_jobs(),
       star=strategies.star_instances(max_apps=2, max_workers=2))
def test_the_lpsched_commands_accept_the_json(tmp_path_factory, hybrid, moldable, star,
                                              ) -> None:
    """The documents run through the CLI named by ``command()`` (exit 0)."""
    import shlex

    from lpsched.cli import main
    from lpsched.testing.instances import command, to_dict

    folder = tmp_path_factory.mktemp("cli")
    for inst in (hybrid, moldable, star):
        path = folder / f"{type(inst).__name__}.json"
        path.write_text(json.dumps(to_dict(inst)))
        argv = shlex.split(command(inst, str(path)))
        assert argv[0] == "lpsched"
        assert main(argv[1:]) == 0, argv


def test_a_failing_star_test_writes_its_instance(pytester, tmp_path) -> None:
    pytester.makepyfile(test_star="""
from hypothesis import given, settings
from lpsched.testing import strategies

@settings(max_examples=20, database=None, derandomize=True)
@given(strategies.star_instances(max_apps=3, max_workers=3))
def test_no_two_workers(inst):
    assert inst.p < 2
""")
    folder = tmp_path / "ex"
    result = pytester.runpytest("-p", "no:cacheprovider", "--lpsched-examples", str(folder))
    result.assert_outcomes(failed=1)
    (written,) = folder.glob("*.json")
    inst = load_example(written)
    assert isinstance(inst, Instance) and inst.p == 2  # the shrunk example
