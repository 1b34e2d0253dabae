"""Seed 004: off-line scheduling of multiple parallel task graphs (PTGs) on one cluster.

Model (:mod:`.model`, :mod:`.io`; the workflow files other tools write, :mod:`.wfformats`,
and the modelling defaults each command states, :mod:`.assumptions`), generators
(:mod:`.generators`), HCPA and the mappings (:mod:`.hcpa`, :mod:`.mapping`), the 19
algorithms (:mod:`.algorithms`, :mod:`.cafm`, registered in :mod:`.registry`), the schedule
type with its independent validator and the metrics (:mod:`.schedule`), lower bounds
(:mod:`.bound_model`, :mod:`.bounds`) and the 1,500-scenario reproduction
(:mod:`.reproduce`), with every algorithm's metrics on one problem in
:mod:`.comparison`. See docs/families/ptg.md.
"""
