"""Figures laid out once: the one layout step every family's figure savers share.

matplotlib is imported by the caller (every family imports it lazily, in the functions
that draw); this module imports it only inside :func:`tight_layout`.
"""

from __future__ import annotations

from typing import Any


def tight_layout(fig: Any) -> None:
    """``fig.tight_layout()``, leaving the figure without a layout engine, so that
    ``savefig`` draws it once, not twice.

    When matplotlib's settings ask every figure for a layout (``figure.autolayout`` or
    ``figure.constrained_layout.use``) the placeholder engine ``Figure.tight_layout``
    leaves is kept.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure, laid out in place.

    Notes
    -----
    ``Figure.tight_layout`` places the axes and then leaves a placeholder layout engine,
    which does nothing but makes ``savefig`` draw the whole figure once more, without
    rendering it, before the draw that renders: about 0.02 s of a small figure
    (decision 692). The file written is the same byte for byte.
    """
    import matplotlib

    fig.tight_layout()
    if not (matplotlib.rcParams["figure.autolayout"]
            or matplotlib.rcParams["figure.constrained_layout.use"]):
        fig.set_layout_engine(None)
