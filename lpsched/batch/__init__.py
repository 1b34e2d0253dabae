"""Seed 000 ch. 4-5 and seed 001: rigid jobs on batch clusters.

The batch simulator with FCFS, EASY and conservative backfilling (:mod:`.simulator`; its
lean FCFS/EASY path :mod:`.line`; the independent checks and metrics :mod:`.validation`), the
processor allocators (:mod:`.allocation`, :mod:`.procsets`), fat trees and k-ary n-trees
(:mod:`.topology`), Batsim's workload and ``jobs.csv`` formats (:mod:`.batsim`) and the
contiguity, platform-level and topology-aware reproductions (:mod:`.reproduce`). SWF traces
are read by :mod:`lpsched.core.swf`.
"""
