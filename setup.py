"""lpsched's compiled modules, beside pyproject.toml (which holds everything else).

``lpsched.batch._line_c`` is the FCFS/EASY event loop of ``lpsched/batch/line.py`` in C
(decisions 443-449); ``lpsched.ptg._hcpa_c`` and ``lpsched.ptg._backfill_c`` are the literal
improved-HCPA loop and BACKFILL of ``lpsched/ptg`` in Cython (decisions 640-641). All are
optional: where no C compiler or no Python headers are found (or, for the PTG loops, no
Cython), ``pip install`` goes on without them and lpsched runs the Python loops, which are
the reference (``LPSCHED_PURE_PYTHON=1`` forces them). The flags keep every double
operation the one Python does: no fused multiply-add (``-ffp-contract=off``), no
``-ffast-math``.
"""

import sys

from setuptools import Extension, setup

FLAGS = [] if sys.platform == "win32" else ["-O2", "-ffp-contract=off", "-fno-fast-math"]
EXTENSIONS = [Extension("lpsched.batch._line_c", sources=["lpsched/batch/_line_c.c"],
                        extra_compile_args=FLAGS, optional=True)]
try:
    from Cython.Build import cythonize
except ImportError:  # no Cython: the PTG loops run in Python
    pass
else:
    PTG = cythonize([Extension(f"lpsched.ptg.{name}", sources=[f"lpsched/ptg/{name}.pyx"],
                               extra_compile_args=FLAGS) for name in ("_hcpa_c", "_backfill_c")],
                    language_level=3, quiet=True)
    for ext in PTG:
        ext.optional = True  # cythonize does not carry the flag over
    EXTENSIONS += PTG

setup(ext_modules=EXTENSIONS)
