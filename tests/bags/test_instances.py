import json
import math

import numpy as np
import pytest

from lpsched.bags import (
    Application,
    Instance,
    StarPlatform,
    instance_from_dict,
    instance_to_dict,
    load_instance,
    random_bags,
    save_instance,
)
from lpsched.errors import InvalidInstanceError, ParseError

DOC = {"platform": {"speeds": [1.0, 0.5], "bandwidths": [10.0, 2.0], "master_bandwidth": None,
                    "port": "one-port"},
       "applications": [{"release": 0.0, "tasks": 100, "work": 3.1, "size": 40.0}]}


def test_issue_format_loads_and_round_trips(tmp_path):
    doc = json.loads(json.dumps(DOC))
    doc["note"] = "kept"
    doc["platform"]["site"] = "lyon"
    doc["applications"][0]["name"] = "blast"
    inst = instance_from_dict(doc)
    assert inst.n == 1 and inst.p == 2
    assert math.isinf(inst.platform.master_bandwidth)
    assert inst.comp_time.tolist() == [[3.1, 6.2]]
    assert inst.comm_time.tolist() == [[4.0, 20.0]]
    path = tmp_path / "i.json"
    save_instance(inst, path)
    again = json.loads(path.read_text())
    assert again == doc
    assert instance_to_dict(load_instance(path)) == doc


def test_unrelated_speeds_one_row_per_application():
    doc = json.loads(json.dumps(DOC))
    doc["applications"].append({"release": 1.0, "tasks": 3, "work": 1.0, "size": 1.0})
    doc["platform"]["speeds"] = [[1.0, 2.0], [4.0, 8.0]]
    inst = instance_from_dict(doc)
    assert inst.platform.unrelated
    assert inst.comp_time.tolist() == [[3.1, 1.55], [0.25, 0.125]]
    sub = inst.subset([1])
    assert sub.platform.speeds.tolist() == [[4.0, 8.0]]


BAD = [
    (("platform", "speeds"), [1.0, -1.0], "platform.speeds[1]"),
    (("platform", "speeds"), [1.0, 0.0], "platform.speeds[1]"),
    (("platform", "speeds"), [1.0, float("nan")], "platform.speeds[1]"),
    (("platform", "speeds"), [1.0], "platform.speeds"),
    (("platform", "speeds"), [[1.0, 1.0], [1.0, 1.0]], "platform.speeds"),
    (("platform", "speeds"), "fast", "platform.speeds"),
    (("platform", "bandwidths"), [10.0, 0.0], "platform.bandwidths[1]"),
    (("platform", "bandwidths"), [[10.0, 2.0]], "platform.bandwidths"),
    (("platform", "master_bandwidth"), -3.0, "platform.master_bandwidth"),
    (("platform", "port"), "two-port", "platform.port"),
    (("applications", 0, "tasks"), 0, "applications[0].tasks"),
    (("applications", 0, "tasks"), 2.5, "applications[0].tasks"),
    (("applications", 0, "work"), -1.0, "applications[0].work"),
    (("applications", 0, "size"), float("inf"), "applications[0].size"),
    (("applications", 0, "release"), -1.0, "applications[0].release"),
    (("applications", 0, "release"), "soon", "applications[0].release"),
    (("applications",), [], "applications"),
    (("applications",), {"a": 1}, "applications"),
]


def _doc_with(path, value):
    """A copy of DOC with the field at ``path`` set to ``value``."""
    doc = json.loads(json.dumps(DOC))
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


@pytest.mark.parametrize(("path", "value", "field"), BAD)
def test_bad_values_name_the_field(path, value, field):
    with pytest.raises(InvalidInstanceError) as err:
        instance_from_dict(_doc_with(path, value))
    assert err.value.field == field
    assert field in str(err.value)


@pytest.mark.parametrize(("path", "field"), [
    (("platform",), "instance.platform"),
    (("applications",), "instance.applications"),
    (("platform", "speeds"), "platform.speeds"),
    (("platform", "bandwidths"), "platform.bandwidths"),
    (("applications", 0, "work"), "applications[0].work"),
    (("applications", 0, "tasks"), "applications[0].tasks"),
])
def test_missing_keys_name_the_field(path, field):
    doc = json.loads(json.dumps(DOC))
    target = doc
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    with pytest.raises(InvalidInstanceError) as err:
        instance_from_dict(doc)
    assert err.value.field == field


def test_unreadable_and_malformed_files(tmp_path):
    with pytest.raises(ParseError, match="cannot read"):
        load_instance(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"platform":\n  {"speeds": [1,]}}')
    with pytest.raises(ParseError) as err:
        load_instance(bad)
    assert err.value.line == 2


def test_objects_validate_themselves():
    with pytest.raises(InvalidInstanceError, match="tasks"):
        Application(0.0, -3, 1.0, 1.0)
    plat = StarPlatform([1.0], [1.0])
    with pytest.raises(InvalidInstanceError, match="applications"):
        Instance(plat, ())
    assert plat.with_port("multiport").port == "multiport"


def test_generator_is_deterministic_and_follows_table2():
    a, b = random_bags(seed=11), random_bags(seed=11)
    assert instance_to_dict(a) == instance_to_dict(b)
    assert instance_to_dict(random_bags(seed=12)) != instance_to_dict(a)
    assert (a.n, a.p) == (20, 10)
    total_work = a.tasks * a.work
    total_comm = a.tasks * a.size
    assert (total_work >= 31e9 - 1).all() and (total_work <= 409e9 + 1).all()
    assert (total_comm >= 400e6 - 1).all() and (total_comm <= 6e9 + 1).all()
    assert (a.work >= 3.1e9 * (1 - 1e-9)).all() and (a.size >= 40e6 * (1 - 1e-9)).all()
    assert (a.tasks >= 10).all()
    assert (np.diff(a.release) >= 0).all()
    # 100 Mbit/s links before integer slowdowns U{1..10} (decision 36)
    slow = 12.5e6 / a.platform.bandwidths
    assert np.allclose(slow, np.round(slow)) and slow.min() >= 1 and slow.max() <= 10
    # the literal 10 Mbit/s of [L796] (the default before decision 36, and mpi's) draws the
    # same instance with links 10 times slower
    old = random_bags(seed=11, base_bandwidth=1.25e6)
    assert np.allclose(old.platform.bandwidths * 10, a.platform.bandwidths)
    assert instance_to_dict(old)["applications"] == instance_to_dict(a)["applications"]
    assert np.array_equal(old.platform.speeds, a.platform.speeds)
    mpi_slow = 1.25e6 / random_bags(profile="mpi", seed=11).platform.bandwidths  # mpi: kept
    assert np.allclose(mpi_slow, np.round(mpi_slow)) and 1 <= mpi_slow.min() <= mpi_slow.max() <= 10


def test_generator_profiles_and_overrides():
    mpi = random_bags(profile="mpi", seed=0)
    assert (mpi.n, mpi.p) == (12, 8)
    assert (mpi.tasks <= 20).all()
    small = random_bags(3, 2, seed=0, arrivals="interarrival", port="multiport")
    assert (small.n, small.p, small.platform.port) == (3, 2, "multiport")
    with pytest.raises(InvalidInstanceError, match="profile"):
        random_bags(profile="grid5000")
    with pytest.raises(InvalidInstanceError, match="apps"):
        random_bags(0, 3)


# -- hostile inputs -----------------------------------------------------------------------
# Each case below is an InvalidInstanceError naming the field (and the entry), never an
# accepted instance or a Python error (decision 65).
BAD_LISTS = [
    (("platform", "speeds"), [True, 1.0], "platform.speeds[0]", "boolean"),
    (("platform", "speeds"), [1.0, "2"], "platform.speeds[1]", "string"),
    (("platform", "bandwidths"), ["10", 2.0], "platform.bandwidths[0]", "string"),
    (("platform", "bandwidths"), [10.0, False], "platform.bandwidths[1]", "boolean"),
    (("platform", "bandwidths"), [10.0, None], "platform.bandwidths[1]", "null"),
    (("platform", "speeds"), [[1.0, 2.0], [1.0]], "platform.speeds", "different lengths"),
    (("platform", "speeds"), [1.0, 10**400], "platform.speeds[1]", "float range"),
    (("applications", 0, "work"), 10**400, "applications[0].work", "float range"),
    (("platform", "master_bandwidth"), 10**400, "platform.master_bandwidth", "float range"),
    (("applications", 0, "tasks"), 1e300, "applications[0].tasks", "2**53"),
    # ratios that overflow: the times per task (or their inverses) are not floats
    (("applications", 0, "work"), 1e-308, "applications[0].work", "overflows"),
    (("applications", 0, "size"), 1e-308, "applications[0].size", "overflows"),
    (("platform", "bandwidths"), [1e-308, 2.0], "platform.bandwidths[0]", "overflows"),
    (("platform", "speeds"), [1e-308, 0.5], "platform.speeds[0]", "overflows"),
    (("applications", 0, "work"), 1e308, "applications[0].work", "overflows"),
]


@pytest.mark.parametrize(("path", "value", "field", "why"), BAD_LISTS)
def test_hostile_values_name_the_field(path, value, field, why):
    with pytest.raises(InvalidInstanceError) as err:
        instance_from_dict(_doc_with(path, value))
    assert err.value.field == field
    assert field in str(err.value) and why in str(err.value)
    assert len(str(err.value)) < 400  # one readable line, whatever the value


def test_numpy_arrays_are_still_accepted_as_they_are():
    plat = StarPlatform(np.array([1, 2]), np.array([3.0, 4.0]))  # integer arrays are numbers
    assert plat.speeds.dtype == float and plat.speeds.tolist() == [1.0, 2.0]
    with pytest.raises(InvalidInstanceError, match=r"platform\.speeds\[0\].*boolean"):
        StarPlatform(np.array([True, False]), [1.0, 1.0])


FILES = [
    # (file content, the field or message the ParseError names)
    (b'{"platform": {"speeds": [1, 1e400]}}', "platform.speeds[1] = 1e400"),
    (b'{"applications": [{"tasks": NaN}]}', "applications[0].tasks = NaN"),
    (b'{"platform": {"master_bandwidth": Infinity}}', "platform.master_bandwidth = Infinity"),
    (b'{"platform": {"master_bandwidth": -Infinity}}', "platform.master_bandwidth = -Infinity"),
    (b'{"a": 1' + b"0" * 5000 + b"}", "a = 1000000000...(5001 characters)"),
    (b'{"a": "caf\xe9"}', "not UTF-8 text (byte 0xe9"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
]


@pytest.mark.parametrize(("content", "named"), FILES)
def test_hostile_files_are_parse_errors_naming_the_field(tmp_path, content, named):
    path = tmp_path / "i.json"
    path.write_bytes(content)
    with pytest.raises(ParseError) as err:
        load_instance(path)
    assert named in str(err.value) and str(path) in str(err.value)


def test_a_byte_order_mark_and_a_top_level_list(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(DOC).encode())
    assert load_instance(path).n == 1
    path.write_text("[1, 2]")
    with pytest.raises(InvalidInstanceError, match="must be a JSON object"):
        load_instance(path)


def test_saved_files_are_strict_json(tmp_path):
    path = tmp_path / "i.json"
    save_instance(random_bags(3, 2, seed=1), path)
    json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in the file"))
    assert load_instance(path).n == 3
