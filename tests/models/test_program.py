import numpy as np
import pytest

from lpsched.errors import LpschedError, SolverError
from lpsched.models.program import LinearProgram
from lpsched.solvers import HighsModel, Status, solve, write_model
from lpsched.solvers.pulp import to_pulp


def toy() -> LinearProgram:
    lp = LinearProgram("toy", sense="max")
    x = lp.add_variables("x", (2, 2), upper=[3.0, np.inf, np.inf, 1.0])
    lp.set_objective(x.ravel(), [1.0, 2.0, 3.0, 1.0])
    lp.add_constraints("rows", rows=[0, 0, 1, 1], cols=x.ravel(), vals=1.0, upper=[4.0, 5.0])
    lp.add_constraints("mix", rows=[0, 0], cols=[x[0, 0], x[1, 1]], vals=[1.0, 1.0],
                       lower=1.0, upper=2.0)
    return lp


def test_blocks_and_matrix():
    lp = toy()
    assert (lp.num_cols, lp.num_rows, lp.num_nonzeros) == (4, 3, 6)
    assert lp.variable_block("x").shape == (2, 2)
    vals = lp.split_columns(np.arange(4.0))
    assert vals["x"].tolist() == [[0.0, 1.0], [2.0, 3.0]]
    assert lp.matrix.toarray().tolist() == [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 1]]


@pytest.mark.parametrize("method", ["highs", "pulp", "scipy"])
def test_every_backend_gives_the_same_optimum(method):
    sol = solve(toy(), method)
    assert sol.status is Status.OPTIMAL
    # x00 + x11 >= 1 is cheapest through x00 = 1 (then x01 = 3), and x10 = 5.
    assert sol.objective == pytest.approx(1.0 + 6.0 + 15.0)
    assert sol.values["x"].ravel().tolist() == pytest.approx([1.0, 3.0, 5.0, 0.0])
    assert sol.residual <= 1e-9


def test_highs_duals_and_iterations():
    sol = solve(toy())
    assert set(sol.duals) == {"rows", "mix"}
    assert sol.duals["rows"] == pytest.approx([2.0, 3.0])  # marginal value of x01, x10
    assert sol.duals["mix"] == pytest.approx([-1.0])  # forcing x00 >= 1 costs 1 per unit
    assert sol.solve_seconds >= 0


def test_statuses_are_never_silent():
    lp = LinearProgram("bad", sense="min")
    x = lp.add_variables("x", 1)
    lp.add_constraints("c", [0], x, [1.0], upper=-1.0)
    sol = solve(lp)
    assert sol.status is Status.INFEASIBLE
    with pytest.raises(SolverError, match="infeasible"):
        sol.require_optimal()
    lp2 = LinearProgram("unb", sense="max")
    y = lp2.add_variables("y", 1)
    lp2.set_objective(y, 1.0)
    assert solve(lp2).status is Status.UNBOUNDED


def test_warm_start_after_bound_change_keeps_model_in_sync():
    lp = toy()
    model = HighsModel(lp)
    first = model.solve()
    model.set_row_bounds(np.array([0]), np.array([-np.inf]), np.array([10.0]))
    second = model.solve()
    assert second.objective == pytest.approx(first.objective + 12.0)  # x01 up to 9
    assert lp.row_upper[0] == 10.0 and second.residual <= 1e-9
    model.set_costs(np.zeros(4), "min")
    assert model.solve().objective == pytest.approx(0.0)


def test_write_lp_and_mps(tmp_path):
    lp = toy()
    write_model(lp, str(tmp_path / "m.lp"))
    write_model(lp, str(tmp_path / "m.mps"))
    text = (tmp_path / "m.lp").read_text()
    assert "x_0_1" in text and "rows_0" in text
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(tmp_path / "m.mps"))
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(22.0)


def test_pulp_emitter_names_rows():
    prob, cols = to_pulp(toy())
    assert len(cols) == 4
    # PuLP >= 3.3.1 has get_constraint_by_name (and deprecates the dict); 3.3.0 only the dict
    get = getattr(prob, "get_constraint_by_name", None) or prob.constraints.get
    for name in ("rows_0", "rows_1", "mix_0_lo", "mix_0_hi"):
        assert get(name) is not None


def test_bad_building_calls():
    lp = LinearProgram()
    x = lp.add_variables("x", 2)
    with pytest.raises(LpschedError, match="already exists"):
        lp.add_variables("x", 1)
    with pytest.raises(LpschedError, match="column index"):
        lp.add_constraints("c", [0], [5], [1.0])
    with pytest.raises(LpschedError, match="non-finite"):
        lp.add_constraints("d", [0], x[:1], [np.nan])
    with pytest.raises(LpschedError, match="expected 2 values"):
        lp.add_variables("y", 2, lower=[0.0, 0.0, 0.0])
    with pytest.raises(LpschedError, match="sense"):
        LinearProgram(sense="maximise")
    with pytest.raises(LpschedError, match="unknown LP method"):
        solve(lp, "gurobi")
