# sgdnet.sweep against `sgdnet sweep`: the CSV's columns and identical doubles, grid forms, streaming rows, Ctrl-C keeping finished rows, bad arguments.
import csv
import io
import math
import os
import signal
import threading

import pandas
import pytest
import sgdnet
from sgdnet import _sweep

from conftest import cli

RING = "models/allreduce_ring_coarse.sgdnet"


def cli_sweep(path, *args):
    """The rows of `sgdnet sweep PATH ARGS` as (header, list of cell lists)."""
    rows = list(csv.reader(io.StringIO(cli("sweep", path, "-q", *args).stdout)))
    return rows[0], rows[1:]


def assert_frame_is_csv(frame, header, rows):
    assert list(frame.columns) == header
    assert len(frame) == len(rows)
    for k, row in enumerate(rows):
        for column, cell in zip(header, row):
            value = frame[column].iloc[k]
            if cell == "":
                assert math.isnan(value), (k, column)
            else:
                assert float(cell) == value, (k, column, cell, value)


def test_same_columns_and_numbers_as_the_command(source_dir):
    path = source_dir / RING
    header, rows = cli_sweep(path, "--set", "N=2..5", "--set", "bw=10Gbps,25Gbps",
                             "--seed", "3")
    frame = sgdnet.sweep(path, grid={"N": range(2, 6), "bw": ["10Gbps", "25Gbps"]},
                         solver="sim", seed=3, progress=False)
    assert isinstance(frame, pandas.DataFrame)
    assert_frame_is_csv(frame, header, rows)
    # Canonical units: 10 Gbps is 1.25e9 B/s; util.w[4] exists only from N = 5 on.
    assert sorted(set(frame["bw"])) == [1.25e9, 3.125e9]
    assert math.isnan(frame["util.w[4]"].iloc[0]) and not math.isnan(frame["util.w[4]"].iloc[-1])
    assert frame.attrs["units"]["steps_per_s"] == "1/s"
    assert frame.attrs["interrupted"] is False and frame.attrs["errors"] == []
    # What pandas reads from the command's CSV, dtypes included (params int64 here).
    csv_text = cli("sweep", path, "-q", "--set", "N=2..5", "--set", "bw=10Gbps,25Gbps",
                   "--seed", "3").stdout
    read = pandas.read_csv(io.StringIO(csv_text), float_precision="round_trip")
    pandas.testing.assert_frame_equal(frame, read, check_exact=True)
    assert frame.dtypes["N"] == "int64" and frame.dtypes["steps_per_s"] == "float64"


def test_zip_and_range_strings(source_dir):
    path = source_dir / RING
    header, rows = cli_sweep(path, "--set", "N=2..8:x2", "--set", "bw=1Gbps,10Gbps,25Gbps",
                             "--zip", "--granularity", "coarse")
    frame = sgdnet.sweep(path, grid={"N": "2..8:x2", "bw": ["1Gbps", "10Gbps", "25Gbps"]},
                         zip=True, granularity="coarse", solver="sim", progress=False)
    assert_frame_is_csv(frame, header, rows)
    assert list(frame["N"]) == [2, 4, 8]


def test_exact_solver_sweep_of_an_example(source_dir):
    path = source_dir / "examples/mm1k.sgdnet"
    header, rows = cli_sweep(path, "--set", "mm1k.K=1..6:+1", "--solver", "exact")
    frame = sgdnet.sweep(path, grid={"mm1k.K": range(1, 7)}, solver="exact", progress=False)
    assert_frame_is_csv(frame, header, rows)


def test_list_of_dicts_without_pandas(source_dir):
    rows = sgdnet.sweep(source_dir / "examples/mm1k.sgdnet", grid={"mm1k.K": [2, 4]},
                        as_frame=False, progress=False)
    assert isinstance(rows, list) and [r["mm1k.K"] for r in rows] == [2.0, 4.0]
    assert set(rows[0]) == {"mm1k.K"} | {f"{m}{s}" for m in ("thr", "full", "qlen")
                                         for s in ("", "_ci_low", "_ci_high")}


def test_without_pandas_installed(source_dir, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)  # import pandas fails
    rows = sgdnet.sweep(source_dir / "examples/mm1k.sgdnet", grid={"mm1k.K": [2]},
                        progress=False)
    assert isinstance(rows, list) and len(rows) == 1
    with pytest.raises(ImportError, match="python3-pandas"):
        sgdnet.sweep(source_dir / "examples/mm1k.sgdnet", grid={"mm1k.K": [2]}, as_frame=True)


def test_rows_stream_in_grid_order_with_progress(source_dir, capsys):
    seen = []
    frame = sgdnet.sweep(source_dir / RING, grid={"N": range(2, 8)}, solver="sim",
                         on_row=seen.append, threads=2)
    assert [r["N"] for r in seen] == [2, 3, 4, 5, 6, 7]
    assert seen[3]["steps_per_s"] == frame["steps_per_s"].iloc[3]
    assert "6/6 points" in capsys.readouterr().err


def interrupt_after(rows: int):
    """An on_row callback that sends this process SIGINT (Ctrl-C) once `rows` rows arrived."""
    seen = []

    def on_row(row):
        seen.append(row)
        if len(seen) == rows:
            os.kill(os.getpid(), signal.SIGINT)

    return on_row, seen


def test_ctrl_c_keeps_the_finished_rows(source_dir):
    on_row, seen = interrupt_after(3)
    grid = {"N": range(2, 66)}
    with pytest.warns(RuntimeWarning, match=r"sweep interrupted: \d+ of 64 points"):
        frame = sgdnet.sweep(source_dir / RING, grid=grid, solver="sim", on_row=on_row,
                             threads=1, progress=False)
    assert frame.attrs["interrupted"] is True
    assert 3 <= len(frame) < 64
    assert list(frame["N"]) == list(range(2, 2 + len(frame)))  # one thread: a prefix
    assert len(seen) == len(frame)
    # The kept rows are those of an uninterrupted sweep.
    full = sgdnet.sweep(source_dir / RING, grid={"N": range(2, 2 + len(frame))}, solver="sim",
                        threads=1, progress=False)
    pandas.testing.assert_frame_equal(frame[full.columns], full, check_exact=True)
    assert frame.drop(columns=full.columns).isna().all().all()  # measures of larger N


def test_ctrl_c_while_waiting_for_points(source_dir):
    # SIGINT from another thread shortly after the first row: it arrives while the sweep waits
    # for the next points, not inside a callback.
    timer = threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT))

    def on_row(row):
        if not timer.is_alive() and not timer.finished.is_set():
            timer.start()

    try:
        with pytest.warns(RuntimeWarning, match="sweep interrupted"):
            frame = sgdnet.sweep(source_dir / RING, grid={"N": range(40, 56, 2)}, solver="sim",
                                 threads=1, progress=False, on_row=on_row)
    finally:
        timer.cancel()
    assert frame.attrs["interrupted"] is True and 1 <= len(frame) < 8


def test_ctrl_c_can_raise_with_the_rows(source_dir):
    on_row, _ = interrupt_after(2)
    with pytest.raises(sgdnet.SweepInterrupted) as info:
        sgdnet.sweep(source_dir / RING, grid={"N": range(2, 66)}, solver="sim", on_row=on_row,
                     threads=1, progress=False, on_interrupt="raise")
    assert isinstance(info.value, KeyboardInterrupt)
    assert info.value.points == 64 and 2 <= info.value.finished < 64
    assert len(info.value.rows) == info.value.finished


def test_an_error_in_the_row_callback_stops_the_sweep(source_dir):
    def on_row(row):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        sgdnet.sweep(source_dir / RING, grid={"N": range(2, 40)}, solver="sim", on_row=on_row,
                     progress=False)


def test_solve_errors_are_kept_per_point(source_dir):
    text = ("model q;\nparam K = 2;\nnet q {\n  place p = 0;\n"
            "  transition a ~ exp(rate = 1 /s) { out p; }\n"
            "  transition s ~ exp(rate = 2 /s) { in p; }\n}\n"
            "measure thr = throughput(q.s);\n")
    with pytest.warns(RuntimeWarning, match="cannot be solved"):
        frame = sgdnet.sweep(text, grid={"K": [1, 2]}, solver="exact", max_states=100,
                             progress=False)
    assert len(frame) == 0 and len(frame.attrs["errors"]) == 2
    assert frame.attrs["errors"][0]["kind"] == "state_space_too_large"
    assert frame.attrs["errors"][0]["params"] == {"K": 1.0}


@pytest.mark.parametrize("grid,error,match", [
    ({}, TypeError, "non-empty dict"),
    ([("N", 2)], TypeError, "non-empty dict"),
    ({"N": range(5, 2)}, ValueError, "empty range"),
    ({"N": [1, None]}, TypeError, "param N"),
    ({"N": "2..x"}, ValueError, "N=2..x"),
    ({"NN": [2, 3]}, sgdnet.ModelError, "unknown param `NN`"),
])
def test_bad_grids(source_dir, grid, error, match):
    with pytest.raises(error, match=match):
        sgdnet.sweep(source_dir / RING, grid=grid, progress=False)


def test_fixed_params(source_dir):
    path = source_dir / RING
    header, rows = cli_sweep(path, "--set", "N=2..3", "--fix", "bw=25Gbps")
    frame = sgdnet.sweep(path, grid={"N": [2, 3]}, params={"bw": "25Gbps"}, solver="sim",
                         progress=False)
    assert_frame_is_csv(frame, header, rows)


def test_bad_sweep_arguments(source_dir):
    with pytest.raises(ValueError, match="unknown solver"):
        sgdnet.sweep(source_dir / RING, grid={"N": [2]}, solver="fastest")
    with pytest.raises(ValueError, match="on_interrupt"):
        sgdnet.sweep(source_dir / RING, grid={"N": [2]}, on_interrupt="ignore")
    with pytest.raises(ValueError, match="same length|same number|zip"):
        sgdnet.sweep(source_dir / RING, grid={"N": [2, 3], "bw": ["1Gbps"]}, zip=True)


@pytest.mark.parametrize("values,text", [
    (range(2, 17), "2..16"),
    (range(2, 17, 2), "2..16:+2"),
    (range(16, 1, -1), ",".join(str(n) for n in range(16, 1, -1))),
    ([1, 2.5, "3 s"], "1,2.5,3 s"),
    (4, "4"),
    ("1..64:x2", "1..64:x2"),
])
def test_grid_axes_are_the_command_ranges(values, text):
    assert _sweep.range_text("N", values) == text
