# Compiling and solving one model from Python: compile(), Model, Result and the checks of their arguments.
from __future__ import annotations

import html
import math
import numbers
import os
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Union

from . import _sgdnet
from ._errors import Diagnostic

Source = Union[str, "os.PathLike[str]"]

SOLVERS = ("auto", "sim", "exact")
_TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}


# ---- arguments -------------------------------------------------------------------------------

def is_path(source: Source) -> bool:
    """A path (os.PathLike, or a one-line str naming a file or ending in .sgdnet) or model text."""
    if isinstance(source, os.PathLike):
        return True
    if not isinstance(source, str):
        raise TypeError(f"expected a path or the text of a model, got {type(source).__name__}")
    return "\n" not in source and (source.endswith(".sgdnet") or os.path.isfile(source))


def value_text(name: str, value: Any) -> str:
    """The `--set NAME=TEXT` text of a param value: numbers exactly, strings (units) as written."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str)):
        raise TypeError(f"param {name}: expected a number or a string such as '25Gbps', "
                        f"got {type(value).__name__} {value!r}")
    if isinstance(value, str):
        if not value.strip():
            raise ValueError(f"param {name}: empty value")
        return value
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if not math.isfinite(float(value)):
        raise ValueError(f"param {name}: expected a finite number, got {value!r}")
    return repr(float(value))


def param_sets(params: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [(name, value_text(name, value)) for name, value in params.items()]


def granularity_text(granularity: Optional[str]) -> str:
    if granularity is None:
        return ""
    if granularity not in ("fine", "coarse"):
        raise ValueError(f"unknown granularity {granularity!r}; expected 'fine' or 'coarse'")
    return granularity


def seconds(name: str, value: Any) -> float:
    """A duration: a number of seconds or a string with a time unit ('30s', '2 min', '500ms')."""
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([a-z]*)\s*", value)
        if not m or m.group(2) not in _TIME_UNITS | {"": 1.0}:
            raise ValueError(f"{name}: expected seconds or a duration such as '30s', '2min', "
                             f"got {value!r}")
        return float(m.group(1)) * _TIME_UNITS.get(m.group(2), 1.0)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected seconds or a duration string, got {value!r}")
    return float(value)


def run_arguments(solver: str = "auto", precision: float = 0.01, confidence: float = 0.95,
                  seed: int = 1, threads: Optional[int] = None, max_time: Any = None,
                  max_states: int = 5_000_000, phase_type: bool = False,
                  multiprecision: bool = False) -> dict:
    """The keyword arguments of _sgdnet.Model.run, checked: TypeError or ValueError on bad ones."""
    if not isinstance(solver, str) or solver not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; expected 'auto', 'sim' or 'exact'")
    for name, value in (("precision", precision), ("confidence", confidence)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{name}: expected a number in (0, 1), got {value!r}")
        if not 0 < value < 1:
            raise ValueError(f"{name}: expected a number in (0, 1), got {value!r}")
    for name, value, least in (("seed", seed, 0), ("threads", threads, 0),
                               ("max_states", max_states, 1)):
        if value is None and name == "threads":
            continue
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name}: expected an integer, got {value!r}")
        if value < least:
            raise ValueError(f"{name}: expected an integer >= {least}, got {value!r}")
    max_time_s = 60.0 if max_time is None else seconds("max_time", max_time)
    if not max_time_s > 0:
        raise ValueError(f"max_time: expected a positive duration, got {max_time!r}")
    return dict(solver=solver, precision=float(precision), confidence=float(confidence),
                seed=int(seed), threads=int(threads or 0), max_time_s=max_time_s,
                max_states=int(max_states), phase_type=bool(phase_type),
                multiprecision=bool(multiprecision))


# ---- results ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Measure:
    """A measure's estimate in canonical units (s, B, B/s, 1/s, tokens; "" for a probability)."""

    name: str
    mean: float
    ci_low: float
    ci_high: float
    unit: str

    @property
    def half_width(self) -> float:
        return (self.ci_high - self.ci_low) / 2

    @property
    def relative_half_width(self) -> float:
        """Half-width over |mean| (the quantity `precision` bounds); inf when the mean is 0."""
        if self.mean == 0:
            return 0.0 if self.ci_high == self.ci_low else math.inf
        return self.half_width / abs(self.mean)


@dataclass(frozen=True)
class Stats:
    """How a result was obtained: simulation counters, or the exact solver's states and method."""

    replications: int
    events: int
    simulated_s: float
    wall_s: float
    states: Optional[int] = None
    residual: Optional[float] = None
    iterations: Optional[int] = None
    method: Optional[str] = None


@dataclass(frozen=True)
class ModelStats:
    """Size of a compiled net."""

    places: int
    timed: int
    immediate: int
    arcs: int
    measures: int

    @property
    def transitions(self) -> int:
        return self.timed + self.immediate


class Result:
    """The steady state of one model: measures by name, statistics, warnings."""

    def __init__(self, model: str, params: dict[str, float], raw: dict):
        self.model: str = model
        self.params: dict[str, float] = params
        self.solver: str = raw["solver"]
        self.measures: dict[str, Measure] = {m[0]: Measure(*m) for m in raw["measures"]}
        self.stats: Stats = Stats(**raw["stats"])
        self.precision_reached: bool = raw["precision_reached"]
        self.warnings: list[str] = list(raw["warnings"])

    def __getitem__(self, name: str) -> Measure:
        return self.measures[name]

    def to_dict(self) -> dict:
        """The shape of `sgdnet run --format json`, measures with their unit, plus warnings."""
        stats = {k: v for k, v in vars(self.stats).items() if v is not None}
        return {
            "model": self.model,
            "solver": self.solver,
            "params": dict(self.params),
            "measures": {m.name: {"mean": m.mean, "ci_low": m.ci_low, "ci_high": m.ci_high,
                                  "unit": m.unit} for m in self.measures.values()},
            "stats": stats,
            "precision_reached": self.precision_reached,
            "warnings": list(self.warnings),
        }

    def _summary(self) -> str:
        s = self.stats
        if self.solver == "exact":
            how = f"{s.states} states" + (f" ({s.method})" if s.method else "")
        else:
            how = (f"{s.replications} replications, {s.events} events, "
                   f"{s.simulated_s:.4g} s simulated")
        return f"model {self.model}, solver {self.solver}: {how}, {s.wall_s:.3g} s wall"

    def _rows(self) -> Iterable[tuple[str, ...]]:
        for m in self.measures.values():
            pm = "exact" if self.solver == "exact" else f"{m.relative_half_width * 100:.2g}%"
            yield (m.name, f"{m.mean:.6g}", f"{m.ci_low:.6g}", f"{m.ci_high:.6g}", pm, m.unit)

    def __repr__(self) -> str:
        rows = [("measure", "mean", "ci_low", "ci_high", "+/-", "unit"), *self._rows()]
        widths = [max(len(r[c]) for r in rows) for c in range(6)]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
        return "\n".join([self._summary(), *lines])

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{h}</th>" for h in ("measure", "mean", "CI low", "CI high", "±",
                                                 "unit"))
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                       for r in self._rows())
        warn = "".join(f"<p>warning: {html.escape(w)}</p>" for w in self.warnings)
        return (f"<p>{html.escape(self._summary())}</p>{warn}"
                f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


# ---- models ----------------------------------------------------------------------------------

class Model:
    """A compiled model: one stochastic timed Petri net with its measures. Immutable; run() may
    be called from several threads at once (it releases the GIL)."""

    def __init__(self, native: _sgdnet.Model):
        self._native = native

    @property
    def name(self) -> str:
        return self._native.name

    @property
    def params(self) -> dict[str, float]:
        """The params after the given values, canonical units (s, B, B/s), declaration order."""
        return dict(self._native.params())

    @property
    def measure_names(self) -> list[str]:
        return self._native.measure_names()

    @property
    def warnings(self) -> list[Diagnostic]:
        return [Diagnostic.from_dict(d) for d in self._native.warnings()]

    @property
    def stats(self) -> ModelStats:
        return ModelStats(**self._native.stats())

    def emit(self, format: str = "net") -> str:
        """The net as text: "net" (canonical text), "dot", "pnml" or "json"."""
        if not isinstance(format, str):
            raise TypeError(f"emit: expected 'net', 'dot', 'pnml' or 'json', got {format!r}")
        return self._native.emit(format)

    def run(self, solver: str = "auto", precision: float = 0.01, confidence: float = 0.95,
            seed: int = 1, threads: Optional[int] = None, max_time: Any = None, *,
            max_states: int = 5_000_000, phase_type: bool = False,
            multiprecision: bool = False) -> Result:
        """Solves the steady state; see docs/python.md. Raises SolveError, ValueError, TypeError."""
        arguments = run_arguments(solver, precision, confidence, seed, threads, max_time,
                                  max_states, phase_type, multiprecision)
        return Result(self.name, self.params, self._native.run(**arguments))

    def __repr__(self) -> str:
        s = self.stats
        return (f"<sgdnet.Model {self.name}: {s.places} places, {s.transitions} transitions, "
                f"measures {', '.join(self.measure_names)}>")


def compile(source: Source, *, granularity: Optional[str] = None, **params: Any) -> Model:
    """Compiles a .sgdnet file (a path) or model text; keyword arguments set params
    (`N=16`, `bw="25Gbps"`). Raises ModelError with every diagnostic."""
    sets = param_sets(params)
    grain = granularity_text(granularity)
    if is_path(source):
        return Model(_sgdnet.compile_file(os.fspath(source), sets, grain))
    return Model(_sgdnet.compile_text(source, "<string>", sets, grain))


def import_profile(path: Source, name: Optional[str] = None) -> str:
    """The `layers` table text of a one-node PyTorch profile (`sgdnet import-profile`)."""
    return _sgdnet.import_profile(os.fspath(path), name or "")
