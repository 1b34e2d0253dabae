import gzip

import numpy as np
import pytest

from lpsched.core.swf import FIELDS, read_swf, to_workload, write_swf
from lpsched.errors import InvalidInstanceError, ParseError, SwfParseError

TRACE = """; Version: 2.2
; MaxProcs: 8
; MaxNodes: 4
;
    1   10  5  100   4   -1 -1   4   200 -1 1 1 1 -1 -1 1 -1 -1
    2    0  0   50  -1   -1 -1   2    -1 -1 1 1 1 -1 -1 1 -1 -1
    3    0  0   -1   2   -1 -1   2   100 -1 0 1 1 -1 -1 1 -1 -1
    4    5  0   30   3   -1 -1  -1    60 -1 1 1 1 -1 -1 1 -1 -1
    5    7  0   30  16   -1 -1  16    60 -1 1 1 1 -1 -1 1 -1 -1
    6    8  0   20  -1   -1 -1  -1    60 -1 1 1 1 -1 -1 1 -1 -1
"""


@pytest.fixture
def trace_file(tmp_path):
    path = tmp_path / "t.swf"
    path.write_text(TRACE)
    return path


def test_read_all_fields_and_header(trace_file):
    tr = read_swf(trace_file)
    assert tr.jobs == 6 and set(tr.columns) == set(FIELDS)
    assert tr.max_procs == 8 and tr.header["MaxNodes"] == "4"
    assert tr.columns["requested_time"].tolist() == [200, -1, 100, 60, 60, 60]


def test_workload_conventions_and_report(trace_file):
    w = to_workload(read_swf(trace_file))
    # job 3 has no run time, job 6 no processors, job 5 is wider than MaxProcs = 8
    assert w.job.tolist() == [2, 4, 1]  # by submit time, then file order
    assert w.submit.tolist() == [0.0, 5.0, 10.0]
    assert w.size.tolist() == [2, 3, 4]  # job 4: requested unknown -> allocated (3)
    assert w.estimate.tolist() == [50.0, 60.0, 200.0]  # job 2: estimate unknown -> run
    assert sum(w.dropped.values()) == 3 and w.fallbacks == {"size": 1, "estimate": 1}
    alloc = to_workload(read_swf(trace_file), size="allocated", estimate="runtime")
    assert alloc.size.tolist() == [2, 3, 4] and alloc.estimate.tolist() == [50.0, 30.0, 100.0]
    with pytest.raises(InvalidInstanceError, match="size"):
        to_workload(read_swf(trace_file), size="nodes")


def test_round_trip_plain_and_gzip(trace_file, tmp_path):
    tr = read_swf(trace_file)
    for name in ("copy.swf", "copy.swf.gz"):
        write_swf(tr, tmp_path / name)
        again = read_swf(tmp_path / name)
        assert again.header == tr.header
        for f in FIELDS:
            assert np.array_equal(again.columns[f], tr.columns[f])
    with gzip.open(tmp_path / "copy.swf.gz", "rt") as fh:
        assert fh.readline().startswith("; Version")


def test_malformed_lines(tmp_path):
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 1 -1 -1\n"
                   "2 0 0 ten 1 -1 -1 1 10 -1 1 1 1 -1 -1 1 -1 -1\n3 0 0\n")
    with pytest.raises(SwfParseError) as err:
        read_swf(bad)
    assert err.value.line == 3 and "bad.swf:3" in str(err.value)
    tr = read_swf(bad, lenient=True)  # recorded in the trace, not as a Python warning
    assert tr.jobs == 1 and tr.skipped == 2 and tr.skipped_lines == (3, 4)
    assert tr.records == 3
    with pytest.raises(ParseError, match="cannot read"):
        read_swf(tmp_path / "missing.swf")


def test_real_traces(shared_data):
    hpc = read_swf(shared_data("hpc2n-excerpt.swf"))
    assert hpc.jobs == 3170 and hpc.max_procs == 240
    w = to_workload(hpc)
    assert w.jobs + sum(w.dropped.values()) == hpc.jobs
    assert (np.diff(w.submit) >= 0).all() and (w.size <= 240).all() and (w.size >= 1).all()
    nasa = read_swf(shared_data("NASA-iPSC-1993-3.1-cln.swf.gz"))
    assert nasa.jobs == 18239 and nasa.max_procs == 128


def test_swf_info_cli(trace_file, tmp_path, capsys):
    import json

    from lpsched.cli import main

    assert main(["swf-info", str(trace_file), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["jobs"] == 3 and data["max_procs"] == 8 and sum(data["dropped"].values()) == 3
    bad = tmp_path / "bad.swf"
    bad.write_text("1 2 3\n")
    assert main(["swf-info", str(bad)]) == 2
    assert "bad.swf:1" in capsys.readouterr().err


# -- the checks of read_swf, the id / processor-count policy, the accounting (decision 64) -

GOOD = ("; MaxProcs: 8\n"
        "1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 1 -1 -1\n"
        "2 5 0 50 2 -1 -1 2 60 -1 1 1 1 -1 -1 1 -1 -1\n"
        "3 6 0 30 8 -1 -1 8 60 -1 1 1 1 -1 -1 1 -1 -1\n")


def test_ids_and_counts_policy(tmp_path):
    """Default: the line is an error (file:line, field). Lenient: bad ids and repeats are
    skipped and recorded, fractional counts rounded up and counted — never silent."""
    path = tmp_path / "p.swf"
    path.write_text(GOOD + "2.5 7 0 10 0.5 -1 -1 0.5 10 -1 1 1 1 -1 -1 1 -1 -1\n"
                    "3 8 0 10 1 -1 -1 1.5 10 -1 1 1 1 -1 -1 1 -1 -1\n"
                    "1e30 9 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 1 -1 -1\n")
    with pytest.raises(SwfParseError) as err:
        read_swf(path)
    assert err.value.line == 5 and "field 1 (job) = 2.5" in str(err.value)
    tr = read_swf(path, lenient=True)
    assert tr.columns["job"].tolist() == [1, 2, 3] and tr.skipped_lines == (5, 6, 7)
    assert tr.skip_reasons == {"job number not a whole number >= 0": 1,
                               "repeated job number": 1, "a field is out of range": 1}
    path.write_text(GOOD + "4 7 0 10 0.5 -1 -1 0.5 10 -1 1 1 1 -1 -1 1 -1 -1\n")
    with pytest.raises(SwfParseError, match=r"p.swf:5: field 5 \(allocated\) = 0.5"):
        read_swf(path)
    tr = read_swf(path, lenient=True)
    assert tr.rounded == {"allocated": 1, "requested_procs": 1}
    w = to_workload(tr)
    assert w.size.tolist() == [4, 2, 8, 1] and w.rounded == tr.rounded
    assert w.report()["rounded"] == {"allocated": 1, "requested_procs": 1}


def test_lenient_lines_stay_in_the_accounting(tmp_path):
    path = tmp_path / "a.swf"
    path.write_text(GOOD + "1 2 3\n" + "5 0 0 -1 1 -1 -1 1 10 -1 1 1 1 -1 -1 1 -1 -1\n")
    tr = read_swf(path, lenient=True)
    w = to_workload(tr)
    assert tr.records == 5 and w.jobs == 3
    assert w.jobs + sum(w.dropped.values()) == w.records == tr.records
    report = w.report()
    assert report["skipped_lines"] == {"count": 1, "first": [5],
                                       "reasons": {"wrong number of fields": 1}}


def test_fast_and_line_by_line_parsing_agree(tmp_path):
    """The one-call parse of a clean file and the line-by-line parse (taken as soon as a
    line is malformed) read the same values."""
    rng = np.random.default_rng(5)
    rows = rng.integers(-1, 10**6, size=(200, len(FIELDS))).astype(float)
    rows[:, 0] = np.arange(1, 201)
    rows[:, 3] = np.round(rng.uniform(0, 1e5, 200), 3)
    text = "\n".join(" ".join(repr(float(v)) if v != int(v) else str(int(v)) for v in r)
                     for r in rows)
    clean, dirty = tmp_path / "c.swf", tmp_path / "d.swf"
    clean.write_text("; MaxProcs: 64\n" + text + "\n")
    dirty.write_text("; MaxProcs: 64\n" + text + "\nnot a job line\n")
    a, b = read_swf(clean), read_swf(dirty, lenient=True)
    assert b.skipped_lines == (202,) and a.lines.tolist() == b.lines.tolist()
    for name in FIELDS:
        assert np.array_equal(a.columns[name], b.columns[name])
        assert np.array_equal(a.columns[name], rows[:, FIELDS.index(name)])


def test_machine_size_is_bounded(tmp_path):
    from lpsched.core.swf import MAX_PROCESSORS, check_processors

    assert check_processors(MAX_PROCESSORS) == MAX_PROCESSORS
    for bad in (0, -1, MAX_PROCESSORS + 1, 2.5, True, None):
        with pytest.raises(InvalidInstanceError):
            check_processors(bad)
    path = tmp_path / "w.swf"
    path.write_text("; Version: 2.2\n" + GOOD.split("\n", 1)[1]
                    + "4 9 0 10 1 -1 -1 1e15 10 -1 1 1 1 -1 -1 1 -1 -1\n")
    with pytest.raises(InvalidInstanceError, match="processors"):
        to_workload(read_swf(path), processors=10**8)
    w = to_workload(read_swf(path))  # no machine: the widest one simulated is the bound
    assert w.jobs == 3 and w.dropped == {
        "wider than 10,000,000 processors, the largest machine simulated": 1}
    assert w.size.dtype == np.int64 and w.job.dtype == np.int64


def test_status_selection_counts_per_status(tmp_path) -> None:
    """``to_workload(status=...)`` keeps the selected SWF statuses and counts the others
    per status, so jobs + dropped = records."""
    from lpsched.core.swf import parse_status, read_swf, to_workload

    lines = ["; MaxProcs: 4"] + [
        f"{i} {i} 0 10 1 -1 -1 1 10 -1 {st} 1 1 -1 -1 -1 -1 -1"
        for i, st in enumerate([1, 0, 5, 1, 1, -1, 3], start=1)]
    path = tmp_path / "s.swf"
    path.write_text("\n".join(lines) + "\n")
    trace = read_swf(path)
    assert to_workload(trace).jobs == 7
    done = to_workload(trace, status="completed")
    assert done.job.tolist() == [1, 4, 5]
    assert done.dropped == {"status 0 not selected": 1, "status 5 not selected": 1,
                            "status -1 not selected": 1, "status 3 not selected": 1}
    assert done.report()["records"] == 7
    assert to_workload(trace, status="completed,3").jobs == 4
    assert to_workload(trace, status={0, 5}).job.tolist() == [2, 3]
    assert parse_status("all") is None
    with pytest.raises(InvalidInstanceError, match="status"):
        parse_status("finished")


def test_zero_run_jobs_dropped_and_counted(tmp_path) -> None:
    """``drop_zero_run`` drops the jobs of run time 0, counted with their own reason, after
    the status selection (seed 000 Table 3.1's counts: decision 285)."""
    from lpsched.core.swf import ZERO_RUN

    lines = ["; MaxProcs: 4"] + [
        f"{i} {i} 0 {run} 1 -1 -1 1 10 -1 {st} 1 1 -1 -1 -1 -1 -1"
        for i, (run, st) in enumerate([(10, 1), (0, 1), (0, 0), (5, 5), (-1, 1), (0, 1)],
                                      start=1)]
    path = tmp_path / "z.swf"
    path.write_text("\n".join(lines) + "\n")
    trace = read_swf(path)
    assert to_workload(trace).jobs == 5  # run time -1 always dropped, 0 kept
    w = to_workload(trace, status="completed", drop_zero_run=True)
    assert w.job.tolist() == [1]
    assert w.dropped == {"status 0 not selected": 1, "status 5 not selected": 1,
                         ZERO_RUN: 2, "no run time (field 4 < 0)": 1}
    assert w.jobs + sum(w.dropped.values()) == w.records == 6
    assert to_workload(trace, drop_zero_run=True).job.tolist() == [1, 4]


def _gzip_one_line(path, size: int) -> None:
    """A .swf.gz holding a header line and then one line of ``size`` bytes (written in
    1 MiB pieces: the test never holds it)."""
    piece = b"1 " * (1 << 19)
    with gzip.open(path, "wb", compresslevel=1) as fh:
        fh.write(b"; MaxProcs: 4\n")
        for _ in range(size // len(piece)):
            fh.write(piece)
        fh.write(b"\n")


def test_a_line_longer_than_any_swf_line_is_refused_while_streaming(tmp_path) -> None:
    """A .swf.gz inflating to one 64 MiB line is refused at its line number (2) while at
    most a few MiB are held (decompressed and decoded whole, 512 MiB would take 3.2 GB);
    a plain file too; a line of MAX_LINE bytes is still read."""
    import tracemalloc

    from lpsched.core.swf import MAX_LINE

    big = tmp_path / "big.swf.gz"
    _gzip_one_line(big, 64 << 20)
    tracemalloc.start()
    try:
        with pytest.raises(SwfParseError, match=r"big.swf.gz:2.*longer than 4,096 bytes"):
            read_swf(big)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, f"peak {peak / 2**20:.0f} MiB held for a refused line"
    plain = tmp_path / "plain.swf"
    plain.write_text("; MaxProcs: 4\n" + "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 1 -1 -1\n"
                     + "; " + "x" * MAX_LINE + "\n")
    with pytest.raises(SwfParseError, match=r"plain.swf:3"):
        read_swf(plain)
    padded = tmp_path / "padded.swf"
    job = "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 1 -1 -1"
    padded.write_text("; MaxProcs: 4\n" + job + " " * (MAX_LINE - len(job)) + "\n")
    assert read_swf(padded).jobs == 1


def test_streamed_reading_keeps_every_rule(tmp_path) -> None:
    """Reading in blocks changes nothing: a byte-order mark, CRLF ends, a last line without
    its newline, a multi-byte character across a block boundary in a comment, a truncated
    and a corrupt gzip stream, an empty compressed file."""
    from lpsched.core import swf

    job = "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 1 -1 -1"
    path = tmp_path / "bom.swf"
    path.write_bytes(b"\xef\xbb\xbf; MaxProcs: 4\r\n" + job.encode() + b"\r\n2"
                     + job[1:].encode())
    tr = read_swf(path)
    assert tr.jobs == 2 and tr.max_procs == 4 and tr.lines.tolist() == [2, 3]
    comment = "; " + "é" * 1000 + "\n"
    many = tmp_path / "many.swf"
    many.write_text(comment * 600 + job + "\n", encoding="utf-8")  # > 1 MiB of comments
    assert read_swf(many).comments[599] == comment.strip()
    data = gzip.compress(("; MaxProcs: 4\n" + job + "\n").encode() * 2000)
    (tmp_path / "cut.swf.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ParseError, match="truncated gzip"):
        read_swf(tmp_path / "cut.swf.gz")
    (tmp_path / "bad.swf.gz").write_bytes(data[:20] + b"\x00" * 40 + data[60:])
    with pytest.raises(ParseError, match=r"corrupt gzip|truncated gzip"):
        read_swf(tmp_path / "bad.swf.gz")
    (tmp_path / "empty.swf.gz").write_bytes(gzip.compress(b""))
    with pytest.raises(ParseError, match="empty file"):
        read_swf(tmp_path / "empty.swf.gz")
    assert swf._BLOCK == 1 << 20
