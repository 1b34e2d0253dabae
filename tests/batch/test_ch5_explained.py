"""Seed 000 ch. 5's rows that differ at the seed's setting cite the decisions holding their
evidence (424–427), and a reduced run's rows cite none (decision 377)."""

from __future__ import annotations

from lpsched.batch.fidelity import platform_table

CURIE = {"becont": 1.066, "beloc": 0.905, "beplat": 0.468, "cont": 1.781, "loc": 0.882,
         "plat": 0.438}


def _summary(instances: int) -> dict[str, dict[str, float]]:
    return {a: {"sum_flow": v, "instances": instances} for a, v in CURIE.items()}


def _verdicts(instances: int) -> dict[str, str]:
    table = platform_table({"curie": _summary(instances)}, {})
    return {r.figure: r.verdict for r in table.rows if r.figure.startswith("curie")}


def test_curie_rows_cite_their_decisions_at_the_seeds_setting() -> None:
    got = _verdicts(30)
    assert got["curie: cont sum flow / basic's"] == "differs: explained by decision 427"
    assert got["curie: becont sum flow / basic's"] == "differs: explained by decision 427"
    assert got["curie: best variant by sum flow"] == "differs: explained by decision 426"
    assert got["curie: plat sum flow / basic's"] == "match"


def test_a_reduced_run_cites_no_decision() -> None:
    got = _verdicts(5)
    assert got["curie: cont sum flow / basic's"] == "differs"
    assert got["curie: best variant by sum flow"] == "differs"


def test_llnl_and_sdsc_rows() -> None:
    summ = {a: {"sum_flow": v, "instances": 30} for a, v in
            {"becont": 0.99, "beloc": 0.99, "beplat": 0.986, "cont": 1.14, "loc": 0.99,
             "plat": 1.04}.items()}
    rows = {r.figure: r.verdict for r in platform_table({"llnl_thunder": summ,
                                                         "sdsc_blue": summ}, {}).rows}
    assert rows["llnl_thunder: cont sum flow / basic's"].endswith("decision 424")
    assert rows["llnl_thunder: plat sum flow / basic's"].endswith("decision 424")
    assert rows["sdsc_blue: cont sum flow / basic's"].endswith("decision 425")
    assert rows["llnl_thunder: best variant by sum flow"] == "match"
