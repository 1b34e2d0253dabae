# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""CSV rows of columns formatted in C (optional): the text of ``jobs.csv``.

:func:`format_rows` writes, for each row ``r``, ``texts[0] + col_0[r] + texts[1] + ... +
col_{k-1}[r] + texts[k]``, each value as Python's ``%`` formatting writes it in
:func:`lpsched.batch.batsim.write_jobs_csv`: an ``int64`` column as ``%d``, a ``float64``
column as ``%r`` (``repr``: ``PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0)``, the
function ``float.__repr__`` calls, so ``inf``, ``nan`` and ``-0.0`` come out as Python
writes them), a list of ``str`` as is, ``("number", values)`` as
:func:`lpsched.batch.batsim.number_text` writes each value (a whole number below
``limit`` as an integer, else ``repr``; NaN and infinities raise as there) and ``("runs", offsets, lo, hi, first)`` as
:func:`lpsched.batch.batsim.interval_sets` writes row ``r``'s runs (those of
``offsets[first + r]:offsets[first + r + 1]``, ``[lo, hi)`` each, as ``lo-last`` or
``lo``, separated by spaces). The text is built in one growing byte buffer and
decoded once (UTF-8), without a Python object per field. The ``%`` formatting stays the
reference and the fallback (``LPSCHED_PURE_PYTHON=1``); tests/batch/test_jobs_csv_rows.py
compares both.
"""

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Free
from libc.stdlib cimport free, malloc, realloc
from libc.math cimport INFINITY, fabs, trunc
from libc.string cimport memcpy, strlen


cdef extern from "Python.h":
    char *PyOS_double_to_string(double val, char format_code, int precision, int flags,
                                int *ptype) except NULL
    const char *PyUnicode_AsUTF8AndSize(object text, Py_ssize_t *size) except NULL
    int Py_DTSF_ADD_DOT_0


cdef struct Buffer:
    char *data
    Py_ssize_t used
    Py_ssize_t size


cdef int _reserve(Buffer *buf, Py_ssize_t more) except -1:
    cdef Py_ssize_t want = buf.used + more
    cdef char *grown
    if want <= buf.size:
        return 0
    while buf.size < want:
        buf.size = 2 * buf.size if buf.size else 1 << 16
    grown = <char*>realloc(buf.data, buf.size)
    if grown == NULL:
        raise MemoryError()
    buf.data = grown
    return 0


cdef int _put(Buffer *buf, const char *text, Py_ssize_t n) except -1:
    _reserve(buf, n)
    memcpy(buf.data + buf.used, text, n)
    buf.used += n
    return 0


cdef int _put_int(Buffer *buf, long long value) except -1:
    cdef char digits[24]
    cdef int k = 0
    cdef unsigned long long v
    if value < 0:
        _put(buf, b"-", 1)
        v = <unsigned long long>(-(value + 1)) + 1
    else:
        v = <unsigned long long>value
    while True:
        digits[k] = <char>(48 + v % 10)
        k += 1
        v //= 10
        if v == 0:
            break
    _reserve(buf, k)
    while k > 0:
        k -= 1
        buf.data[buf.used] = digits[k]
        buf.used += 1
    return 0


cdef int _put_float(Buffer *buf, double value) except -1:
    cdef char *text = PyOS_double_to_string(value, b'r', 0, Py_DTSF_ADD_DOT_0, NULL)
    try:
        _put(buf, text, strlen(text))
    finally:
        PyMem_Free(text)
    return 0


cdef int _put_str(Buffer *buf, object text) except -1:
    cdef Py_ssize_t n
    cdef const char *utf8 = PyUnicode_AsUTF8AndSize(text, &n)
    _put(buf, utf8, n)
    return 0


cdef int _put_number(Buffer *buf, double value, double limit) except -1:
    # ``math.trunc`` of number_text raises on these: so does this
    if value != value:
        raise ValueError("cannot convert float NaN to integer")
    if fabs(value) == INFINITY:
        raise OverflowError("cannot convert float infinity to integer")
    if value == trunc(value) and fabs(value) < limit:
        _put_int(buf, <long long>value)
    else:
        _put_float(buf, value)
    return 0


cdef int _put_runs(Buffer *buf, const long long *offsets, const long long *lo,
                   const long long *hi, Py_ssize_t job) except -1:
    cdef long long k
    for k in range(offsets[job], offsets[job + 1]):
        if k > offsets[job]:
            _put(buf, b" ", 1)
        _put_int(buf, lo[k])
        if hi[k] - 1 != lo[k]:
            _put(buf, b"-", 1)
            _put_int(buf, hi[k] - 1)
    return 0


cdef int _check_offsets(const long long[::1] offsets, Py_ssize_t first, Py_ssize_t rows,
                        Py_ssize_t nlo, Py_ssize_t nhi) except -1:
    """The runs of rows ``first .. first + rows - 1`` lie in ``lo`` and ``hi``, in order."""
    cdef Py_ssize_t r
    for r in range(first, first + rows):
        if not (0 <= offsets[r] <= offsets[r + 1] <= min(nlo, nhi)):
            raise ValueError(f"row {r}: runs {offsets[r]}..{offsets[r + 1]} outside the "
                             f"{min(nlo, nhi)} runs given")
    return 0


def format_rows(list columns, list texts, Py_ssize_t rows, double limit=2.0 ** 53):
    """The rows' text: ``texts[0]``, then each column's value followed by the next text.

    Parameters
    ----------
    columns : list
        ``k`` columns of at least ``rows`` values each: ``int64`` or ``float64`` numpy
        arrays (one dimension, contiguous), lists of ``str``, ``("number", float64
        array)`` or ``("runs", offsets, lo, hi, first)`` (int64 arrays).
    texts : list of str
        ``k + 1`` constant texts: before the first column, between columns, after the last
        (the line end included).
    rows : int
        The rows to write.
    limit : float
        ``("number", values)``: the whole numbers written as integers are those below it
        in magnitude.

    Returns
    -------
    str
        The rows, one after the other.
    """
    cdef Py_ssize_t k = len(columns), r, c
    cdef Buffer buf
    cdef list utf8 = [t.encode("utf-8") for t in texts]
    cdef list keep = []  # the memoryviews whose pointers the loop reads
    cdef int *kind = NULL
    cdef const long long **ints = NULL
    cdef const long long **run_lo = NULL
    cdef const long long **run_hi = NULL
    cdef Py_ssize_t *run_first = NULL
    cdef const double **floats = NULL
    cdef const char **sep = NULL
    cdef Py_ssize_t *seplen = NULL
    cdef const long long[::1] iview
    cdef const double[::1] fview
    cdef list text_col
    if len(texts) != k + 1:
        raise ValueError(f"{k} columns need {k + 1} texts, not {len(texts)}")
    buf.data = NULL
    buf.used = buf.size = 0
    try:
        kind = <int*>malloc(k * sizeof(int))
        ints = <const long long**>malloc(k * sizeof(void*))
        floats = <const double**>malloc(k * sizeof(void*))
        run_lo = <const long long**>malloc(k * sizeof(void*))
        run_hi = <const long long**>malloc(k * sizeof(void*))
        run_first = <Py_ssize_t*>malloc(k * sizeof(Py_ssize_t))
        sep = <const char**>malloc((k + 1) * sizeof(void*))
        seplen = <Py_ssize_t*>malloc((k + 1) * sizeof(Py_ssize_t))
        if kind == NULL or ints == NULL or floats == NULL or sep == NULL or seplen == NULL \
                or run_lo == NULL or run_hi == NULL or run_first == NULL:
            raise MemoryError()
        for c in range(k + 1):
            sep[c] = <bytes>utf8[c]
            seplen[c] = len(<bytes>utf8[c])
        for c in range(k):
            col = columns[c]
            if isinstance(col, tuple) and col[0] == "runs":
                kind[c] = 4
                iview = col[1]
                if col[4] < 0 or iview.shape[0] < col[4] + rows + 1:
                    raise ValueError(f"runs of {iview.shape[0] - 1} rows for rows "
                                     f"{col[4]}..{col[4] + rows - 1}")
                keep.append(iview)
                ints[c] = &iview[0]
                _check_offsets(iview, col[4], rows, len(col[2]), len(col[3]))
                iview = col[2]
                keep.append(iview)
                run_lo[c] = &iview[0] if iview.shape[0] else NULL
                iview = col[3]
                keep.append(iview)
                run_hi[c] = &iview[0] if iview.shape[0] else NULL
                run_first[c] = col[4]
                continue
            if isinstance(col, tuple) and col[0] == "number":
                kind[c] = 3
                col = col[1]
            elif isinstance(col, list):
                kind[c] = 2
            elif col.dtype.kind == "f":
                kind[c] = 1
            else:
                kind[c] = 0
            if len(col) < rows:
                raise ValueError(f"a column of {len(col)} values for {rows} rows")
            if kind[c] == 2:
                continue
            elif kind[c] in (1, 3):
                fview = col
                keep.append(fview)
                floats[c] = &fview[0] if rows else NULL
            else:
                iview = col
                keep.append(iview)
                ints[c] = &iview[0] if rows else NULL
        for r in range(rows):
            _put(&buf, sep[0], seplen[0])
            for c in range(k):
                if kind[c] == 0:
                    _put_int(&buf, ints[c][r])
                elif kind[c] == 1:
                    _put_float(&buf, floats[c][r])
                elif kind[c] == 2:
                    text_col = <list>columns[c]
                    _put_str(&buf, text_col[r])
                elif kind[c] == 3:
                    _put_number(&buf, floats[c][r], limit)
                else:
                    _put_runs(&buf, ints[c], run_lo[c], run_hi[c], run_first[c] + r)
                _put(&buf, sep[c + 1], seplen[c + 1])
        return PyBytes_FromStringAndSize(buf.data, buf.used).decode("utf-8")
    finally:
        free(buf.data)
        free(kind)
        free(ints)
        free(floats)
        free(sep)
        free(seplen)
        free(run_lo)
        free(run_hi)
        free(run_first)
