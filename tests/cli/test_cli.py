import json

import pytest

from lpsched.cli import main


@pytest.fixture
def inst_file(tmp_path, capsys):
    path = tmp_path / "inst.json"
    assert main(["generate", "bags", "--apps", "6", "--workers", "3", "--seed", "7",
                 "-o", str(path)]) == 0
    assert "wrote" in capsys.readouterr().err
    return path


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_generate_to_stdout_is_deterministic(capsys):
    _, a, _ = run(capsys, "generate", "bags", "--apps", "3", "--workers", "2", "--seed", "1")
    _, b, _ = run(capsys, "generate", "bags", "--apps", "3", "--workers", "2", "--seed", "1")
    assert a == b and len(json.loads(a)["applications"]) == 3


def test_solve_json_schema(capsys, inst_file):
    code, out, _ = run(capsys, "solve", str(inst_file), "--json")
    assert code == 0
    data = json.loads(out)
    for key in ("stretch", "method", "lp_solves", "seconds", "status",
                "dedicated_makespans", "deadlines"):
        assert key in data
    assert len(data["deadlines"]) == len(data["dedicated_makespans"]) == 6
    code, out, _ = run(capsys, "solve", str(inst_file), "--method", "bisection", "--tol",
                       "1e-7", "--json")
    bis = json.loads(out)
    assert bis["method"] == "bisection" and bis["status"] == "within_tolerance"
    assert abs(bis["stretch"] - data["stretch"]) <= 1e-6


def test_solve_human_summary_and_export(capsys, inst_file, tmp_path):
    model = tmp_path / "model.lp"
    code, out, _ = run(capsys, "solve", str(inst_file), "--export-lp", str(model))
    assert code == 0
    assert "optimal max-stretch" in out and "LP solves" in out
    assert model.read_text().startswith("\\")
    assert "stretch" in model.read_text()


def test_plan_round_trip_through_check(capsys, inst_file, tmp_path):
    code, out, _ = run(capsys, "solve", str(inst_file), "--json", "--plan")
    result = tmp_path / "res.json"
    result.write_text(out)
    code, out, _ = run(capsys, "check", str(inst_file), str(result), "--json")
    assert code == 0 and json.loads(out)["ok"]
    data = json.loads(result.read_text())
    data["plan"]["comm"][0][0] = [v * 2 + 1 for v in data["plan"]["comm"][0][0]]
    result.write_text(json.dumps(data))
    code, out, _ = run(capsys, "check", str(inst_file), str(result))
    assert code == 1 and "violated" in out


def test_throughput_command(capsys, inst_file):
    code, out, _ = run(capsys, "throughput", str(inst_file), "--json")
    assert code == 0 and len(json.loads(out)["throughputs"]) == 6


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda d: d["platform"].update(speeds=[1.0, -2.0, 1.0]), "platform.speeds[1]"),
    (lambda d: d["platform"].update(bandwidths=[0.0, 1.0, 1.0]), "platform.bandwidths[0]"),
    (lambda d: d["platform"].update(port="token-ring"), "platform.port"),
    (lambda d: d["applications"][0].update(tasks=0), "applications[0].tasks"),
    (lambda d: d["applications"][1].pop("size"), "applications[1].size"),
    (lambda d: d.update(applications=[]), "applications"),
    (lambda d: d["platform"].update(speeds=[[1.0, 1.0, 1.0]]), "platform.speeds"),
    (lambda d: d["applications"][2].update(work=float("nan")), "applications[2].work"),
    (lambda d: d["platform"].update(master_bandwidth=0), "platform.master_bandwidth"),
    (lambda d: d.pop("platform"), "instance.platform"),
])
def test_bad_instances_exit_2_with_one_line(capsys, inst_file, mutate, field):
    data = json.loads(inst_file.read_text())
    mutate(data)
    inst_file.write_text(json.dumps(data))
    code, out, err = run(capsys, "solve", str(inst_file))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and field in err and "Traceback" not in err


def test_unreadable_files_exit_2(capsys, tmp_path):
    code, _, err = run(capsys, "solve", str(tmp_path / "nope.json"))
    assert code == 2 and "cannot read" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, "solve", str(bad))
    assert code == 2 and "bad.json:1" in err


def test_bad_options_exit_2(capsys, inst_file):
    code, _, err = run(capsys, "solve", str(inst_file), "--method", "bisection", "--tol", "-1")
    assert code == 2 and "tol" in err
    code, _, err = run(capsys, "solve", str(inst_file), "--memory", "lots")
    assert code == 2 and "--memory" in err
    with pytest.raises(SystemExit) as exc:
        main(["solve", str(inst_file), "--method", "simplex"])
    assert exc.value.code == 2


def test_demo_runs(capsys):
    code, out, _ = run(capsys, "demo", "--seed", "3")
    assert code == 0 and "independent check of the plan against (K1): OK" in out


def test_policies_lists_the_registry(capsys):
    code, out, _ = run(capsys, "policies", "--json")
    names = json.loads(out)
    assert code == 0 and len(names) == 18
    assert {"fifo-rr", "swrpt-mct", "mwma-nbt", "mwma-ms", "cbs3m-edf-online"} <= set(names)


def test_simulate_json_schema(capsys, inst_file):
    code, out, _ = run(capsys, "simulate", str(inst_file), "--policy", "cbs3m-edf-online",
                       "--json")
    row = json.loads(out)
    assert code == 0
    for key in ("policy", "valid", "max_stretch", "sum_stretch", "makespan", "max_flow",
                "sum_flow", "lp_bound", "seconds"):
        assert key in row
    assert row["valid"] is True and row["max_stretch"] >= row["lp_bound"] * (1 - 1e-6)


def test_simulate_all_as_table(capsys, inst_file):
    code, out, _ = run(capsys, "simulate", str(inst_file), "--policy", "all", "--table")
    assert code == 0 and out.count("\n") >= 19 and "cbs3m-edf-offline" in out
    code, _, err = run(capsys, "simulate", str(inst_file), "--policy", "lifo-rr")
    assert code == 2 and "unknown policy" in err


def test_plot_commands(capsys, inst_file, tmp_path):
    gantt = tmp_path / "g.png"
    code, _, err = run(capsys, "plot", "gantt", str(inst_file), "--policy", "spt-mct",
                       "-o", str(gantt))
    assert code == 0 and gantt.stat().st_size > 1000
    code, _, err = run(capsys, "plot", "box", str(tmp_path / "nothing"), "-o",
                       str(tmp_path / "b.png"))
    assert code == 2 and "no result store" in err


def test_schedule_command(capsys, inst_file):
    code, out, _ = run(capsys, "schedule", str(inst_file), "--model", "op-ac", "--json")
    data = json.loads(out)
    assert code == 0 and data["valid"] and data["within_bound"]
    assert data["max_stretch"] >= data["lp_stretch"] * (1 - 1e-6)


@pytest.mark.parametrize("model", ["bmp-ac", "bmp-fc"])
def test_schedule_command_multiport(capsys, inst_file, model):
    code, out, _ = run(capsys, "schedule", str(inst_file), "--model", model, "--json")
    data = json.loads(out)
    assert code == 0 and data["valid"] and data["within_bound"] and data["model"] == model


def test_approx_hybrid_and_check_ratios(capsys, tmp_path):
    tasks = tmp_path / "t.json"
    tasks.write_text(json.dumps({"tasks": [{"cpu": 4, "gpu": 1}, {"cpu": 4, "gpu": 1},
                                           {"cpu": 1, "gpu": 4}]}))
    code, out, _ = run(capsys, "approx", "hybrid", str(tasks), "--cpus", "1", "--gpus", "1",
                       "--json")
    data = json.loads(out)
    assert code == 0 and data["certified"] and data["makespan"] <= 2 * data["lower_bound"] * 1.01
    code, out, _ = run(capsys, "check-ratios", "--trials", "5", "--seed", "2", "--json")
    assert code == 0 and json.loads(out)["ok"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"cpu_times": [1, -1], "gpu_times": [1, 1]}))
    code, _, err = run(capsys, "approx", "hybrid", str(bad), "--cpus", "1", "--gpus", "1")
    assert code == 2 and "cpu_times[1]" in err


def test_approx_moldable(capsys, tmp_path):
    jobs = tmp_path / "m.json"
    jobs.write_text(json.dumps({"times": [[4, 2, 1.5, 1.25], [3, 3, 3, 3], [8, 4, 3, 2.25]]}))
    code, out, _ = run(capsys, "approx", "moldable", str(jobs), "--processors", "4",
                       "--json", "--schedule")
    data = json.loads(out)
    assert code == 0 and data["certified"] and data["algorithm"] == "mrt"
    assert data["makespan"] <= 1.5 * (1 + 1e-3) * data["lower_bound"] * (1 + 1e-9)
    assert len(data["schedule"]["processors"]) == 3
    code, out, _ = run(capsys, "approx", "moldable", str(jobs), "--algorithm", "kshelf")
    assert code == 0 and "k-shelf" in out and "none proven" in out
    jobs.write_text(json.dumps({"times": [[1, 2]]}))
    code, _, err = run(capsys, "approx", "moldable", str(jobs))
    assert code == 2 and "monotonic" in err
