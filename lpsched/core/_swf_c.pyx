# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""SWF job lines parsed in C (optional): the ``(n, 18)`` array ``numpy.loadtxt`` makes.

:func:`parse_rows` reads each line's tokens, separated by spaces and tabs. A token of an
optional ``-`` and 1 to 15 digits is a whole number below 10^15 < 2^53, converted exactly
in C (``-0`` gives ``-0.0``, as ``float("-0")``); any other token goes through
``PyOS_string_to_double`` on a NUL-terminated copy, the function Python's ``float()`` and
numpy's text reader call (correctly rounded; ``inf``, ``nan``, ``+5``, ``.5``, ``5.``,
``1e400`` as they read them). Whatever it does not handle gives ``None``, and the caller
runs ``numpy.loadtxt`` and its line-by-line reading, which stay the reference (and name
the bad line): a line that is not an exact ``str`` of ASCII, another whitespace than space
and tab (``str.split`` also splits at ``\\v``, ``\\f``, ``\\r``, ``\\x1c``-``\\x1f``), a
count of tokens other than 18, a ``_`` in a token, a token ``PyOS_string_to_double``
rejects or does not consume whole. tests/core/test_swf_kernel.py compares both paths bit
for bit.
"""

import numpy as np

from cpython.ref cimport PyObject
from cpython.exc cimport PyErr_Clear, PyErr_Occurred


cdef extern from "Python.h":
    double PyOS_string_to_double(const char *s, char **endptr, PyObject *overflow_exception)
    bint PyUnicode_CheckExact(object o)
    bint PyUnicode_IS_ASCII(object o)
    void *PyUnicode_DATA(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)


DEF FIELDS = 18
DEF MAX_TOKEN = 4096


cdef inline bint _line(const char *s, Py_ssize_t n, double *out, char *buf) noexcept:
    """Parse one line's 18 tokens into ``out``; False when it is not handled here."""
    cdef Py_ssize_t i = 0, start, k, length
    cdef int count = 0
    cdef char c
    cdef bint negative
    cdef long long whole
    cdef double value
    cdef char *end
    while True:
        while i < n and (s[i] == 32 or s[i] == 9):
            i += 1
        if i >= n:
            break
        start = i
        while i < n:
            c = s[i]
            if c == 32 or c == 9:
                break
            if (9 <= c <= 13) or (28 <= c <= 31) or c == 95:  # other whitespace, '_'
                return False
            i += 1
        if count == FIELDS:
            return False
        length = i - start
        negative = s[start] == 45  # '-'
        k = start + 1 if negative else start
        if k < i and i - k <= 15:
            whole = 0
            while k < i and 48 <= s[k] <= 57:
                whole = whole * 10 + (s[k] - 48)
                k += 1
            if k == i:  # all digits: exact
                value = <double>whole
                out[count] = -value if negative else value
                count += 1
                continue
        if length > MAX_TOKEN:
            return False
        for k in range(length):
            buf[k] = s[start + k]
        buf[length] = 0
        end = NULL
        value = PyOS_string_to_double(buf, &end, NULL)
        if PyErr_Occurred() != NULL:
            PyErr_Clear()
            return False
        if end != buf + length:
            return False
        out[count] = value
        count += 1
    return count == FIELDS


def parse_rows(list data):
    """The job lines ``data`` as an ``(n, 18)`` float64 array, or None (module doc).

    Parameters
    ----------
    data : list of str
        The job lines (stripped, not empty), as ``_parse_rows`` passes them to loadtxt.

    Returns
    -------
    numpy.ndarray or None
        The values, bit for bit those of ``numpy.loadtxt`` and ``float()``; None when a
        line is not handled here.
    """
    cdef Py_ssize_t n = len(data), r
    cdef char buf[MAX_TOKEN + 1]
    values = np.empty((n, FIELDS), dtype=np.float64)
    cdef double[:, ::1] out = values
    cdef object line
    for r in range(n):
        line = data[r]
        if not PyUnicode_CheckExact(line) or not PyUnicode_IS_ASCII(line):
            return None
        if not _line(<const char *>PyUnicode_DATA(line), PyUnicode_GET_LENGTH(line),
                     &out[r, 0], buf):
            return None
    return values
