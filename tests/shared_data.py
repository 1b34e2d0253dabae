"""The one way the tests reach the shared traces and seed texts.

The real traces (the Parallel Workloads Archive's SWF files, ``hpc2n-excerpt.swf``,
``lublin_256.swf``) and the seed texts are not in the repository: they sit in ``../shared``
beside a checkout, ``data/`` and ``seeds/``. A test asks for a file by name,
:func:`shared_file` (or the ``shared_data`` fixture of ``tests/conftest.py``), and is
skipped, with the file's name and the folder looked in, when it is absent: a fresh clone runs
the suite without a failure from missing data. ``tests/test_shared_data_access.py`` fails if
another test file builds the shared path itself.

The data folder is resolved once, as the CLI resolves its own default
(:func:`lpsched.cli.common.data_folder`): ``$LPSCHED_DATA`` when set, else
``<checkout>/../shared/data``. The seed texts are read from ``seeds/`` beside that folder.

To run the suite as a fresh clone would, point ``$LPSCHED_DATA`` to an empty folder
(``make test-no-data``): the tests skip, and the CLI commands they run, as subprocesses or
in-process, inherit the variable, which the CLI honours before its ``../shared/data``
fallback, so they do not find the traces on their own either.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

#: the variable naming the traces folder, read by the tests and by the CLI alike
DATA_ENV = "LPSCHED_DATA"
#: the checkout (``tests/`` is one level below it)
CHECKOUT = Path(__file__).resolve().parents[1]
#: where the shared material sits beside a checkout
DEFAULT_DATA = CHECKOUT.parent / "shared" / "data"


@functools.cache
def data_folder() -> Path:
    """The shared traces folder: ``$LPSCHED_DATA`` when set (and not empty), else
    ``<checkout>/../shared/data``; it may not exist.

    Returns
    -------
    Path
        The folder, absolute.
    """
    env = os.environ.get(DATA_ENV)
    return Path(env).resolve() if env else DEFAULT_DATA


def seeds_folder() -> Path:
    """The seed texts' folder, ``seeds/`` beside :func:`data_folder`; it may not exist.

    Returns
    -------
    Path
        The folder, absolute.
    """
    return data_folder().parent / "seeds"


def _absent(name: str, folder: Path) -> str:
    """The skip reason: the file, the folder looked in, and how to provide it."""
    where = folder if folder.is_dir() else f"{folder} (no such folder)"
    return (f"shared file {name} not found in {where}: set ${DATA_ENV} or put "
            "../shared/data beside the checkout")


def has_shared_file(name: str) -> bool:
    """Whether the shared data folder holds ``name``.

    Parameters
    ----------
    name : str
        The file's name in the folder (``"hpc2n-excerpt.swf"``).

    Returns
    -------
    bool
        True when ``data_folder() / name`` exists.
    """
    return (data_folder() / name).exists()


def shared_file(name: str) -> Path:
    """The path of a shared trace; the calling test is skipped when it is absent.

    Parameters
    ----------
    name : str
        The file's name in the folder (``"KTH-SP2-1996-2.1-cln.swf.gz"``).

    Returns
    -------
    Path
        ``data_folder() / name``, which exists.
    """
    path = data_folder() / name
    if not path.exists():
        pytest.skip(_absent(name, data_folder()))
    return path


def needs_shared(*names: str) -> pytest.MarkDecorator:
    """A ``skipif`` mark for a test that reads the shared traces ``names`` (the same reason
    as :func:`shared_file`, naming the first one absent).

    Parameters
    ----------
    *names : str
        The files' names in the folder.

    Returns
    -------
    pytest.MarkDecorator
        The mark; the test runs when every file is present.
    """
    missing = [n for n in names if not has_shared_file(n)]
    return pytest.mark.skipif(bool(missing), reason=_absent(missing[0], data_folder())
                              if missing else "")


def find_seed(number: str) -> Path | None:
    """The text of seed ``number`` (``"000"``: ``seeds/000_*.txt``), or None when absent
    (for a test that reads it only to check more).

    Parameters
    ----------
    number : str
        The seed's number, as its file name starts.

    Returns
    -------
    Path or None
        The seed's text file, None when :func:`seeds_folder` does not hold it.
    """
    folder = seeds_folder()
    found = sorted(folder.glob(f"{number}_*.txt")) if folder.is_dir() else []
    return found[0] if found else None


def seed_text(number: str) -> Path:
    """The text of seed ``number``; the calling test is skipped when it is absent.

    Parameters
    ----------
    number : str
        The seed's number, as its file name starts (``"004"``).

    Returns
    -------
    Path
        The seed's text file (:func:`find_seed`).
    """
    found = find_seed(number)
    if found is None:
        pytest.skip(_absent(f"{number}_*.txt", seeds_folder()))
    return found
