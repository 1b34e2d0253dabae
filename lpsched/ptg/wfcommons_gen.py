"""PTGs from WfCommons recipes (``lpsched ptg generate --class wfcommons:montage``).

The optional ``wfcommons`` package ships recipes (WfChef) built from real executions of
Montage, Epigenomics, 1000Genome, Cycles, ... workflows. A recipe draws a synthetic instance
of ``n`` tasks (structure and runtimes); lpsched reads it as any WfCommons instance
(:func:`lpsched.ptg.wfformats.from_wfcommons`), so the runtimes become Amdahl tasks by
decision 371 at the given reference speed, each task's α 1/recorded cores (1: sequential,
for a task recorded on one core; decision 484) unless ``alpha`` is given. This is an
extension of seed 004, whose classes are random, FFT and Strassen graphs (§5.1).
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import numpy as np

from lpsched.errors import LpschedError
from lpsched.ptg.model import PTG
from lpsched.ptg.wfformats import REFERENCE_SPEED, from_wfcommons

#: ``wfcommons:<name>`` -> the recipe class of ``wfcommons.wfchef.recipes``
RECIPES = {"blast": "BlastRecipe", "bwa": "BwaRecipe", "cycles": "CyclesRecipe",
           "epigenomics": "EpigenomicsRecipe", "genome": "GenomeRecipe",
           "montage": "MontageRecipe", "rnaseq": "RnaseqRecipe",
           "seismology": "SeismologyRecipe", "soykb": "SoykbRecipe",
           "srasearch": "SrasearchRecipe"}


def wfcommons_ptg(recipe: str, n: int, seed: int = 0,
                  speed: float = REFERENCE_SPEED, alpha: float | None = None) -> PTG:
    """A PTG drawn from a WfCommons recipe, its recorded runtimes read as Amdahl tasks.

    Parameters
    ----------
    recipe : str
        A key of :data:`RECIPES` (``"montage"``, ``"epigenomics"``, ...).
    n : int
        The number of tasks asked of the recipe (each recipe has a smallest size: the
        graph it was built from; WfCommons may return a few tasks fewer or more).
    seed : int
        Seeds Python's and numpy's global generators for the draw (their states are
        restored afterwards), so the same seed gives the same graph.
    speed : float
        Flop/s that turns runtimes into work (the cluster's speed, decision 371).
    alpha : float, optional
        Amdahl's non-parallel fraction of every task (``--alpha``); ``None``: 1/recorded
        cores (:func:`lpsched.ptg.wfformats.amdahl_from_trace`).

    Returns
    -------
    PTG
        The validated graph, named after the recipe.

    Raises
    ------
    LpschedError
        ``wfcommons`` is not installed, the recipe is unknown, or ``n`` is below the
        recipe's smallest size.

    Notes
    -----
    The runtime → Amdahl mapping is decision 371, the default α decision 484.
    """
    if recipe not in RECIPES:
        raise LpschedError(f"--class wfcommons:{recipe}: unknown recipe; one of "
                           f"{', '.join('wfcommons:' + r for r in RECIPES)}")
    try:
        from wfcommons import (  # type: ignore[import-untyped, import-not-found, unused-ignore]
            WorkflowGenerator,
        )
        from wfcommons.wfchef import (  # type: ignore[import-untyped, import-not-found, unused-ignore]
            recipes,
        )
    except ImportError:
        raise LpschedError("--class wfcommons:* needs the wfcommons package "
                           "(pip install wfcommons)") from None
    cls = getattr(recipes, RECIPES[recipe])
    # wfcommons draws from the global generators: seed them, then restore them
    py_state, np_state = random.getstate(), np.random.get_state()  # noqa: NPY002
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002
    try:
        wf = WorkflowGenerator(cls.from_num_tasks(n)).build_workflow(f"{recipe}-{n}-s{seed}")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "wf.json"
            wf.write_json(path)
            data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise LpschedError(f"wfcommons:{recipe} with --n {n}: {exc}") from None
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)  # noqa: NPY002
    return from_wfcommons(data, f"{recipe}-{n}-s{seed}", f"wfcommons:{recipe}", speed, alpha)
