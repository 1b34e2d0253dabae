"""lpsched's one compiled module, beside pyproject.toml (which holds everything else).

``lpsched.batch._line_c`` is the FCFS/EASY event loop of ``lpsched/batch/line.py`` in C
(decisions 443-449). It is optional: where no C compiler or no Python headers are
found, ``pip install`` goes on without it and lpsched runs the Python loop, which is the
reference (``LPSCHED_PURE_PYTHON=1`` forces it). The flags keep every double operation the
one Python does: no fused multiply-add (``-ffp-contract=off``), no ``-ffast-math``.
"""

import sys

from setuptools import Extension, setup

FLAGS = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off", "-fno-fast-math"]

setup(ext_modules=[Extension("lpsched.batch._line_c", sources=["lpsched/batch/_line_c.c"],
                             extra_compile_args=FLAGS, optional=True)])
