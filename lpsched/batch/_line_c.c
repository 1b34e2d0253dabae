/* The compiled FCFS/EASY kernel on a line (decisions 443-449): the event loop of
 * lpsched/batch/line.py's Python kernel, rule for rule, against the CPython C API only.
 *
 * line.py's Python kernel (_run_python and the _Line moves it calls: start_job,
 * finish_job, _fcfs_starts, _shadow, _easy_backfill) is the reference and the fallback;
 * this file repeats it with C arrays in place of Python lists, and
 * tests/batch/test_line_compiled.py holds both equal
 * (start, end, processor runs, first reservations, events, progress calls, errors). The
 * caller (line.py) sends only inputs on which both are defined identically: integer sizes
 * in [0, m] and estimates without NaN, so every sorted key below is unique and totally
 * ordered (a NaN estimate, whose tuple comparisons Python orders its own way, stays on the
 * Python kernel).
 *
 * Built with -ffp-contract=off and without -ffast-math: every double operation is the one
 * Python does (now + run, now + estimate, t_h + 1e-9 * max(1.0, |t_h|)), rounded once.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { double e; int64_t seq; int64_t j; } End;   /* heap of ends (e, seq, j) */
typedef struct { double r; int64_t j; } Rel;                /* sorted (release, job) */

/* (a, i) < (b, j) as Python compares two tuples of a float and an int */
static inline int rel_lt(double a, int64_t i, double b, int64_t j) {
    return a == b ? i < j : a < b;
}

static inline int end_lt(const End *x, const End *y) {
    return x->e == y->e ? x->seq < y->seq : x->e < y->e;
}

static void heap_push(End *h, Py_ssize_t *n, End item) {
    Py_ssize_t k = (*n)++;
    while (k > 0) {
        Py_ssize_t p = (k - 1) >> 1;
        if (!end_lt(&item, &h[p])) break;
        h[k] = h[p];
        k = p;
    }
    h[k] = item;
}

static End heap_pop(End *h, Py_ssize_t *n) {
    End top = h[0], last = h[--(*n)];
    Py_ssize_t k = 0, size = *n;
    for (;;) {
        Py_ssize_t c = 2 * k + 1;
        if (c >= size) break;
        if (c + 1 < size && end_lt(&h[c + 1], &h[c])) c++;
        if (!end_lt(&h[c], &last)) break;
        h[k] = h[c];
        k = c;
    }
    if (size) h[k] = last;
    return top;
}

/* the free processors: sorted, maximal runs [lo, hi) at lo[base .. base + len) */
typedef struct { int64_t *lo, *hi; Py_ssize_t base, len, cap; } Free;

static int free_insert(Free *f, Py_ssize_t k, int64_t a, int64_t b) {
    if (f->base > 0 && k < f->len - k) {  /* shift the k runs before it one place left */
        memmove(f->lo + f->base - 1, f->lo + f->base, (size_t)k * sizeof(int64_t));
        memmove(f->hi + f->base - 1, f->hi + f->base, (size_t)k * sizeof(int64_t));
        f->base--;
    } else {
        if (f->base + f->len == f->cap) {
            if (f->base > 0) {
                memmove(f->lo, f->lo + f->base, (size_t)f->len * sizeof(int64_t));
                memmove(f->hi, f->hi + f->base, (size_t)f->len * sizeof(int64_t));
                f->base = 0;
            } else {
                Py_ssize_t cap = 2 * f->cap + 8;
                int64_t *lo = PyMem_Realloc(f->lo, (size_t)cap * sizeof(int64_t));
                if (!lo) return -1;
                f->lo = lo;
                int64_t *hi = PyMem_Realloc(f->hi, (size_t)cap * sizeof(int64_t));
                if (!hi) return -1;
                f->hi = hi;
                f->cap = cap;
            }
        }
        Py_ssize_t at = f->base + k;
        memmove(f->lo + at + 1, f->lo + at, (size_t)(f->len - k) * sizeof(int64_t));
        memmove(f->hi + at + 1, f->hi + at, (size_t)(f->len - k) * sizeof(int64_t));
    }
    f->lo[f->base + k] = a;
    f->hi[f->base + k] = b;
    f->len++;
    return 0;
}

static void free_delete(Free *f, Py_ssize_t k) {
    if (k < f->len - k - 1) {  /* shift the k runs before it one place right */
        memmove(f->lo + f->base + 1, f->lo + f->base, (size_t)k * sizeof(int64_t));
        memmove(f->hi + f->base + 1, f->hi + f->base, (size_t)k * sizeof(int64_t));
        f->base++;
    } else {
        Py_ssize_t at = f->base + k;
        memmove(f->lo + at, f->lo + at + 1, (size_t)(f->len - k - 1) * sizeof(int64_t));
        memmove(f->hi + at, f->hi + at + 1, (size_t)(f->len - k - 1) * sizeof(int64_t));
    }
    f->len--;
}

/* the runs taken, in order: two growing bytearrays of int64 (no copy at the end) */
typedef struct { PyObject *lo, *hi; int64_t *plo, *phi; Py_ssize_t len, cap; } Out;

static int out_append(Out *o, int64_t a, int64_t b) {
    if (o->len == o->cap) {
        Py_ssize_t cap = o->cap < 1024 ? 1024 : 2 * o->cap;
        if (PyByteArray_Resize(o->lo, cap * 8) < 0 || PyByteArray_Resize(o->hi, cap * 8) < 0)
            return -1;
        o->plo = (int64_t *)PyByteArray_AS_STRING(o->lo);
        o->phi = (int64_t *)PyByteArray_AS_STRING(o->hi);
        o->cap = cap;
    }
    o->plo[o->len] = a;
    o->phi[o->len] = b;
    o->len++;
    return 0;
}

typedef struct {
    /* inputs */
    const double *subs, *run, *est;
    const int64_t *order, *size;
    Py_ssize_t n;
    PyObject *error;
    /* outputs */
    double *start, *end, *first_resv;
    int64_t *off, *cnt;
    Out out;
    /* state */
    double *rel;
    Free fr;
    End *ends;
    Py_ssize_t nends;
    Rel *rels;
    Py_ssize_t nrel;
    int64_t nfree, seq, version, nstarted;
} Line;

static int schedule_error(PyObject *error, double e, double now) {
    PyObject *fe = PyFloat_FromDouble(e), *fn = PyFloat_FromDouble(now);
    if (fe && fn)
        PyErr_Format(error, "cannot schedule an event at %R before now = %R", fe, fn);
    Py_XDECREF(fe);
    Py_XDECREF(fn);
    return -1;
}

/* start job j now: the size lowest free ids, its end in the heap, its release sorted */
static int start_job(Line *L, int64_t j, double now) {
    int64_t left = L->size[j];
    Py_ssize_t a0 = L->out.len, k = 0;
    Free *f = &L->fr;
    while (left) {
        int64_t a = f->lo[f->base + k], b = f->hi[f->base + k];
        if (b - a <= left) {
            if (out_append(&L->out, a, b) < 0) return -1;
            left -= b - a;
            k++;
        } else {
            if (out_append(&L->out, a, a + left) < 0) return -1;
            f->lo[f->base + k] = a + left;
            left = 0;
        }
    }
    if (k) {
        f->base += k;
        f->len -= k;
        if (!f->len) f->base = 0;
    }
    L->off[j] = a0;
    L->cnt[j] = L->out.len - a0;
    L->nfree -= L->size[j];
    L->start[j] = now;
    L->nstarted++;
    double e = now + L->run[j];
    L->end[j] = e;
    if (!(e >= now)) return schedule_error(L->error, e, now);
    double released = now + L->est[j];
    L->rel[j] = released;
    /* insort (bisect_right) */
    Py_ssize_t lo = 0, hi = L->nrel;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (rel_lt(released, j, L->rels[mid].r, L->rels[mid].j)) hi = mid;
        else lo = mid + 1;
    }
    memmove(L->rels + lo + 1, L->rels + lo, (size_t)(L->nrel - lo) * sizeof(Rel));
    L->rels[lo].r = released;
    L->rels[lo].j = j;
    L->nrel++;
    L->seq++;
    End item = {e, L->seq, j};
    heap_push(L->ends, &L->nends, item);
    return 0;
}

/* job j ends: its runs are free again (merged with their neighbours), its release leaves */
static int finish_job(Line *L, int64_t j) {
    Free *f = &L->fr;
    for (int64_t r = L->off[j]; r < L->off[j] + L->cnt[j]; r++) {
        int64_t a = L->out.plo[r], b = L->out.phi[r];
        Py_ssize_t lo = 0, hi = f->len;
        const int64_t *fl = f->lo + f->base;
        while (lo < hi) {  /* bisect_left */
            Py_ssize_t mid = (lo + hi) / 2;
            if (fl[mid] < a) lo = mid + 1;
            else hi = mid;
        }
        Py_ssize_t k = lo;
        if (k && f->hi[f->base + k - 1] == a) {
            if (k < f->len && f->lo[f->base + k] == b) {
                f->hi[f->base + k - 1] = f->hi[f->base + k];
                free_delete(f, k);
            } else {
                f->hi[f->base + k - 1] = b;
            }
        } else if (k < f->len && f->lo[f->base + k] == b) {
            f->lo[f->base + k] = a;
        } else if (free_insert(f, k, a, b) < 0) {
            PyErr_NoMemory();
            return -1;
        }
    }
    L->nfree += L->size[j];
    double r = L->rel[j];
    Py_ssize_t lo = 0, hi = L->nrel;
    while (lo < hi) {  /* bisect_left */
        Py_ssize_t mid = (lo + hi) / 2;
        if (rel_lt(L->rels[mid].r, L->rels[mid].j, r, j)) lo = mid + 1;
        else hi = mid;
    }
    if (lo >= L->nrel || L->rels[lo].j != j) {
        PyErr_SetString(PyExc_RuntimeError, "lpsched: a running job's release was not found");
        return -1;
    }
    memmove(L->rels + lo, L->rels + lo + 1, (size_t)(L->nrel - lo - 1) * sizeof(Rel));
    L->nrel--;
    L->version++;
    return 0;
}

static int call_progress(PyObject *progress, int64_t started, Py_ssize_t n, double now) {
    PyObject *res = PyObject_CallFunction(progress, "LnN", (long long)started, n,
                                          PyFloat_FromDouble(now));
    if (!res) return -1;
    Py_DECREF(res);
    return 0;
}

static void release_buffers(Py_buffer *views, int count) {
    for (int k = 0; k < count; k++)
        if (views[k].obj) PyBuffer_Release(&views[k]);
}

static PyObject *simulate(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer v[10];
    memset(v, 0, sizeof(v));
    Py_ssize_t n;
    long long m;
    int easy;
    PyObject *progress, *error;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*nLpOOw*w*w*w*w*", &v[0], &v[1], &v[2], &v[3],
                          &v[4], &n, &m, &easy, &progress, &error, &v[5], &v[6], &v[7],
                          &v[8], &v[9])) {
        release_buffers(v, 10);
        return NULL;
    }
    for (int k = 0; k < 10; k++) {
        if (n < 0 || v[k].len != n * 8) {
            release_buffers(v, 10);
            return PyErr_Format(PyExc_ValueError, "buffer %d holds %zd bytes, not 8 * %zd",
                                k, v[k].len, n);
        }
    }
    Line L;
    memset(&L, 0, sizeof(L));
    L.subs = v[0].buf;
    L.order = v[1].buf;
    L.run = v[2].buf;
    L.size = v[3].buf;
    L.est = v[4].buf;
    L.n = n;
    L.error = error;
    L.start = v[5].buf;
    L.end = v[6].buf;
    L.first_resv = v[7].buf;
    L.off = v[8].buf;
    L.cnt = v[9].buf;
    L.nfree = m;
    Py_ssize_t nalloc = n ? n : 1;
    L.rel = PyMem_Malloc((size_t)nalloc * sizeof(double));
    L.ends = PyMem_Malloc((size_t)nalloc * sizeof(End));
    L.rels = PyMem_Malloc((size_t)nalloc * sizeof(Rel));
    int64_t *queue = PyMem_Malloc((size_t)nalloc * sizeof(int64_t));
    Py_ssize_t *started = PyMem_Malloc((size_t)nalloc * sizeof(Py_ssize_t));
    L.fr.cap = 64;
    L.fr.lo = PyMem_Malloc((size_t)L.fr.cap * sizeof(int64_t));
    L.fr.hi = PyMem_Malloc((size_t)L.fr.cap * sizeof(int64_t));
    L.out.lo = PyByteArray_FromStringAndSize(NULL, 0);
    L.out.hi = PyByteArray_FromStringAndSize(NULL, 0);
    PyObject *result = NULL;
    if (!L.rel || !L.ends || !L.rels || !queue || !started || !L.fr.lo || !L.fr.hi) {
        PyErr_NoMemory();
        goto done;
    }
    if (!L.out.lo || !L.out.hi) goto done;
    if (m) {
        L.fr.lo[0] = 0;
        L.fr.hi[0] = m;
        L.fr.len = 1;
    }

    Py_ssize_t i = 0, qh = 0, qt = 0;  /* the queue: queue[qh .. qt) */
    int64_t npass = 0, tick = 0;
    int memo_set = 0, scan_set = 0;
    int64_t memo_version = 0, memo_size = 0, memo_nfree = 0, memo_have = 0;
    double memo_t = 0.0;
    int64_t scan_version = 0, scan_head = 0, scan_free = 0;
    double scan_t = 0.0;
    Py_ssize_t scan_from = 1;
    double now = 0.0;
    for (;;) {
        double t = L.nends ? L.ends[0].e : INFINITY;
        if (i < n && L.subs[i] < t) t = L.subs[i];
        if (t == INFINITY) break;
        now = t;
        tick++;
        if (!(tick & 4095)) {
            if (progress != Py_None && call_progress(progress, L.nstarted, n, t) < 0)
                goto done;
            if (PyErr_CheckSignals() < 0) goto done;
        }
        while (L.nends && L.ends[0].e == t) {
            End top = heap_pop(L.ends, &L.nends);
            if (finish_job(&L, top.j) < 0) goto done;
        }
        while (i < n && L.subs[i] == t) queue[qt++] = L.order[i++];
        npass++;
        /* one pass: FCFS while the head fits */
        Py_ssize_t k = qh;
        int64_t avail = L.nfree;
        while (k < qt && L.size[queue[k]] <= avail) {
            avail -= L.size[queue[k]];
            k++;
        }
        if (k > qh) {
            Py_ssize_t first = qh;
            qh = k;
            for (Py_ssize_t q = first; q < k; q++)
                if (start_job(&L, queue[q], now) < 0) goto done;
            L.version++;
        }
        if (qh == qt || !easy) continue;
        /* EASY: the head's shadow time and the extra processors */
        int64_t head = queue[qh], size_h = L.size[head], have;
        double t_h;
        if (memo_set && memo_version == L.version && memo_size == size_h
                && memo_nfree == L.nfree && memo_t >= now
                && (!L.nrel || L.rels[0].r >= now)) {
            t_h = memo_t;
            have = memo_have;
        } else {
            have = L.nfree;
            t_h = now;
            for (Py_ssize_t r = 0; r < L.nrel; r++) {
                double tr = L.rels[r].r;
                if (tr > t_h) {
                    if (have >= size_h) break;
                    t_h = tr;
                }
                have += L.size[L.rels[r].j];
            }
            memo_set = 1;
            memo_version = L.version;
            memo_size = size_h;
            memo_nfree = L.nfree;
            memo_t = t_h;
            memo_have = have;
        }
        int64_t free_then = have;
        if (L.first_resv[head] != L.first_resv[head]) L.first_resv[head] = t_h;
        int64_t extra = free_then - size_h;
        double at = fabs(t_h);
        double bound = t_h + 1e-9 * (at > 1.0 ? at : 1.0);
        int same = scan_set && scan_version == L.version && scan_head == head
                   && scan_t == t_h && scan_free == free_then;
        int64_t state_version = L.version;
        Py_ssize_t nstart = 0, len = qt - qh;
        for (Py_ssize_t q = same ? scan_from : 1; q < len; q++) {
            int64_t j = queue[qh + q], size = L.size[j];
            if (size > L.nfree) continue;
            int ends_first = now + L.est[j] <= bound;
            if (ends_first || size <= extra) {
                started[nstart++] = q;
                if (start_job(&L, j, now) < 0) goto done;
                L.version++;
                if (!ends_first) extra -= size;
            }
        }
        if (nstart) {  /* remove the started jobs, the later ones moved up in order */
            Py_ssize_t w = qh + started[0], s = 0;
            for (Py_ssize_t r = qh + started[0]; r < qt; r++) {
                if (s < nstart && r == qh + started[s]) {
                    s++;
                    continue;
                }
                queue[w++] = queue[r];
            }
            qt = w;
            scan_set = 0;
            scan_from = 1;
        } else {
            scan_set = 1;
            scan_version = state_version;
            scan_head = head;
            scan_t = t_h;
            scan_free = free_then;
            scan_from = qt - qh;
        }
    }
    if (progress != Py_None && call_progress(progress, L.nstarted, n, now) < 0) goto done;
    if (PyByteArray_Resize(L.out.lo, L.out.len * 8) < 0
            || PyByteArray_Resize(L.out.hi, L.out.len * 8) < 0)
        goto done;
    result = Py_BuildValue("OOL", L.out.lo, L.out.hi, (long long)npass);
done:
    Py_XDECREF(L.out.lo);
    Py_XDECREF(L.out.hi);
    PyMem_Free(L.rel);
    PyMem_Free(L.ends);
    PyMem_Free(L.rels);
    PyMem_Free(queue);
    PyMem_Free(started);
    PyMem_Free(L.fr.lo);
    PyMem_Free(L.fr.hi);
    release_buffers(v, 10);
    return result;
}

static PyMethodDef methods[] = {
    {"simulate", simulate, METH_VARARGS,
     "simulate(subs, order, run, size, est, n, m, easy, progress, error, start, end, "
     "first_resv, off, cnt) -> (runs_lo, runs_hi, passes)\n\n"
     "The FCFS/EASY event loop of lpsched.batch.line's Python kernel on C arrays: the inputs "
     "are float64/int64 buffers of n items in submission order (subs, order) or job order "
     "(run, size, est); start, end, first_resv, off and cnt are written in place; the runs "
     "taken come back as two bytearrays of int64."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_line_c",
    "The compiled FCFS/EASY kernel of lpsched.batch.line (line.py's Python kernel is the "
    "reference and the fallback).", -1, methods, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__line_c(void) { return PyModule_Create(&module); }
