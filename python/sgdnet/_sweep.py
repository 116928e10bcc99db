# Sweeping a model's params from Python: the grid as `--set NAME=RANGE` texts, rows streamed from the C++ sweep engine, a pandas DataFrame.
from __future__ import annotations

import math
import numbers
import os
import sys
import time
import warnings
from typing import Any, Callable, Iterable, Mapping, Optional

from . import _sgdnet
from ._model import Source, granularity_text, is_path, param_sets, run_arguments, value_text


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during sweep(on_interrupt="raise"): `rows`, what sweep would have returned (a
    DataFrame or a list of dicts), has every finished point."""

    def __init__(self, rows: Any, finished: int, points: int):
        super().__init__(f"sweep interrupted: {finished} of {points} points finished and kept")
        self.rows = rows
        self.finished = finished
        self.points = points


def range_text(name: str, values: Any) -> str:
    """The RANGE of `--set NAME=RANGE` for a grid axis: a range, a list, a scalar or a RANGE str."""
    if isinstance(values, str):
        return values
    if isinstance(values, range):
        if len(values) == 0:
            raise ValueError(f"grid {name}: empty range {values!r}")
        if values.step == 1:
            return f"{values.start}..{values[-1]}"
        if values.step > 0:
            return f"{values.start}..{values[-1]}:+{values.step}"
    if isinstance(values, (numbers.Real,)):
        return value_text(name, values)
    if isinstance(values, Iterable):
        texts = [value_text(name, v) for v in values]
        if not texts:
            raise ValueError(f"grid {name}: no values")
        if any("," in t for t in texts):
            raise ValueError(f"grid {name}: a value may not contain ',': {texts!r}")
        return ",".join(texts)
    raise TypeError(f"grid {name}: expected a range, a list of values or a RANGE string such as "
                    f"'1..64:x2', got {type(values).__name__}")


def axes_texts(grid: Mapping[str, Any]) -> list[str]:
    if not isinstance(grid, Mapping) or not grid:
        raise TypeError("grid: expected a non-empty dict {param: values}, such as "
                        "{'N': range(2, 17)}")
    for name in grid:
        if not isinstance(name, str):
            raise TypeError(f"grid: param names are strings, got {name!r}")
    return [f"{name}={range_text(name, values)}" for name, values in grid.items()]


def _pandas(as_frame: Optional[bool]) -> Any:
    """pandas when a DataFrame is wanted and available; None for a list of dicts."""
    if as_frame is False:
        return None
    try:
        import pandas
    except ImportError:
        if as_frame:
            raise ImportError("sweep(as_frame=True) needs pandas (Debian: python3-pandas)")
        return None
    return pandas


class _Progress:
    """A one-line progress display on stderr: points done, elapsed time, ETA."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.shown = False

    def __call__(self, solved: int, failed: int, to_solve: int) -> None:
        elapsed = time.monotonic() - self.start
        eta = elapsed / solved * (to_solve - solved) if solved else 0.0
        width = 30
        fill = width * solved // max(to_solve, 1)
        failures = f", {failed} failed" if failed else ""
        sys.stderr.write(f"\r[{'#' * fill}{' ' * (width - fill)}] {solved}/{to_solve} points"
                         f"{failures}, {_hms(elapsed)} elapsed, ETA {_hms(eta)}")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _hms(seconds: float) -> str:
    t = int(seconds + 0.5)
    return f"{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}"


class _Rows:
    """Turns the engine's rows into dicts with the command's CSV columns, in grid order."""

    def __init__(self, columns: list[str], measures: list[str],
                 on_row: Optional[Callable[[dict], None]]):
        self.columns = columns
        self.measures = measures
        self.on_row = on_row
        self.rows: list[dict] = []
        self.units: dict[str, str] = {}
        self.errors: list[dict] = []
        self.warnings: list[tuple[dict, str]] = []  # (point's params, message)

    def __call__(self, row: tuple) -> None:
        _index, values, result, error = row
        params = {name: value for name, _text, value in values}
        if error is not None:
            self.errors.append({"params": params, "message": error[0], "kind": error[1]})
            return
        out: dict[str, float] = dict(params)
        by_name = {m[0]: m for m in result["measures"]}
        for name in self.measures:
            m = by_name.get(name)
            out[name], out[name + "_ci_low"], out[name + "_ci_high"] = (
                (m[1], m[2], m[3]) if m else (math.nan, math.nan, math.nan))
            if m and name not in self.units:
                for column in (name, name + "_ci_low", name + "_ci_high"):
                    self.units[column] = m[4]
        self.warnings += [(params, w) for w in result["warnings"]]
        self.rows.append(out)
        if self.on_row is not None:
            self.on_row(dict(out))


def sweep(source: Source, grid: Mapping[str, Any], *, zip: bool = False,
          params: Optional[Mapping[str, Any]] = None, granularity: Optional[str] = None,
          solver: str = "auto", precision: float = 0.01, confidence: float = 0.95,
          seed: int = 1, threads: Optional[int] = None, max_time: Any = None,
          max_states: int = 5_000_000, phase_type: bool = False, multiprecision: bool = False,
          progress: bool = True, on_row: Optional[Callable[[dict], None]] = None,
          on_interrupt: str = "return", as_frame: Optional[bool] = None) -> Any:
    """Solves the model at every point of `grid` (docs/python.md): a DataFrame with the
    columns of `sgdnet sweep`'s CSV, or a list of dicts without pandas."""
    axes = axes_texts(grid)
    sets = param_sets(params or {})
    grain = granularity_text(granularity)
    run = run_arguments(solver, precision, confidence, seed, threads, max_time, max_states,
                        phase_type, multiprecision)
    if on_interrupt not in ("return", "raise"):
        raise ValueError(f"on_interrupt: expected 'return' or 'raise', got {on_interrupt!r}")
    if on_row is not None and not callable(on_row):
        raise TypeError("on_row: expected a function of one row (a dict)")
    pandas = _pandas(as_frame)
    path = is_path(source)
    native = _sgdnet.compile_sweep(os.fspath(source) if path else source, path, axes, sets,
                                   grain, bool(zip), run)
    rows = _Rows(native.columns(), native.measure_names(), on_row)
    display = _Progress() if progress else None
    try:
        summary = native.run(rows, display)
    finally:
        if display is not None:
            display.close()
    return _finish(rows, summary, pandas, on_interrupt)


def _frame(rows: _Rows, summary: dict, pandas: Any) -> Any:
    """The rows as a DataFrame: params as int64 when every value is an integer (as
    pandas.read_csv reads the command's CSV), measures as float64."""
    frame = pandas.DataFrame(rows.rows, columns=rows.columns, dtype=float)
    for column in rows.columns[:len(rows.columns) - 3 * len(rows.measures)]:
        values = frame[column]
        if len(values) and all(float(v).is_integer() and abs(v) < 2**53 for v in values):
            frame[column] = values.astype("int64")
    frame.attrs.update(units=dict(rows.units), errors=list(rows.errors),
                       warnings=list(rows.warnings), interrupted=summary["interrupted"],
                       precision_reached=summary["precision_reached"])
    return frame


def _warn(rows: _Rows, summary: dict) -> None:
    """Warns of the points that failed and of a precision not reached (the solver's own
    remarks stay data, in attrs["warnings"], as in Result.warnings)."""
    for e in rows.errors:
        warnings.warn(f"point {e['params']} cannot be solved: {e['message']}", RuntimeWarning,
                      stacklevel=4)
    if not summary["precision_reached"]:
        warnings.warn("the precision was not reached at some points within max_time; their "
                      "intervals are wider than asked", RuntimeWarning, stacklevel=4)


def _finish(rows: _Rows, summary: dict, pandas: Any, on_interrupt: str) -> Any:
    """The rows as a DataFrame (or list), with the warnings and errors the sweep gave."""
    out = _frame(rows, summary, pandas) if pandas is not None else rows.rows
    _warn(rows, summary)
    if summary["interrupted"]:
        finished = len(rows.rows) + len(rows.errors)
        if on_interrupt == "raise":
            raise SweepInterrupted(out, finished, summary["points"])
        warnings.warn(f"sweep interrupted: {finished} of {summary['points']} points finished "
                      f"and kept", RuntimeWarning, stacklevel=3)
    return out
