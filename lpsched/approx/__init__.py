"""Approximation algorithms with certified ratios (seeds 000 ch. 2 and 4, 004 §4.4).

Every algorithm returns a :class:`~lpsched.approx.certified.Certified` result: a schedule,
a lower bound computed alongside and the proven guarantee, checked on every call. List
scheduling and LPT on identical machines (:mod:`.listsched`), the CPU+GPU dual
approximations 2 and 3/2 + ε (:mod:`.dual`), NFDH+LS for contiguous and local rigid jobs
(:mod:`.packing`), the MRT 3/2 + ε dual approximation and the K-shelf algorithm for moldable
jobs (:mod:`.moldable`), exact MIP references for small instances (:mod:`.exact`) and the
randomised checks of ``lpsched check-ratios`` (:mod:`.ratios`).
"""
