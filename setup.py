"""lpsched's compiled modules, beside pyproject.toml (which holds everything else).

``lpsched.batch._line_c`` is the FCFS/EASY event loop of ``lpsched/batch/line.py`` in C
(decisions 443-449); every ``lpsched/<family>/_<name>_c.pyx`` is a Cython module of a
family's Python loop (the PTG ones: the literal improved-HCPA loop and BACKFILL, decisions
640-641). All are optional: where no C compiler or no Python headers are found (or, for
the Cython modules, no Cython), ``pip install`` goes on without them and lpsched runs the
Python loops, which are the reference (``LPSCHED_PURE_PYTHON=1`` forces them). The flags
keep every double operation the one Python does: no fused multiply-add (``-ffp-contract=off``), no
``-ffast-math``.
"""

import sys
from pathlib import Path

from setuptools import Extension, setup

FLAGS = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off", "-fno-fast-math"]
EXTENSIONS = [Extension("lpsched.batch._line_c", sources=["lpsched/batch/_line_c.c"],
                        extra_compile_args=FLAGS, optional=True)]
try:
    from Cython.Build import cythonize
except ImportError:  # no Cython: the Python loops run
    pass
else:
    SOURCES = sorted(Path("lpsched").glob("*/_*_c.pyx"))
    CYTHON = cythonize([Extension(".".join(src.with_suffix("").parts), sources=[str(src)],
                                  extra_compile_args=FLAGS) for src in SOURCES],
                       language_level=3, quiet=True)
    for ext in CYTHON:
        ext.optional = True  # cythonize does not carry the flag over
    EXTENSIONS += CYTHON

setup(ext_modules=EXTENSIONS)
