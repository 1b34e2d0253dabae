"""``python -m lpsched.cli``: the same as the ``lpsched`` command."""

import sys

from lpsched.cli import main

sys.exit(main())
