# Type stubs of the sgdnet Python package (docs/python.md describes every name).
import os
from typing import Any, Callable, Iterable, Literal, Mapping, Optional, Union

Source = Union[str, os.PathLike[str]]
SolverName = Literal["auto", "sim", "exact"]
EmitName = Literal["net", "dot", "pnml", "json"]
Duration = Union[float, int, str]
ParamValue = Union[int, float, str]
GridAxis = Union[range, Iterable[ParamValue], ParamValue]

__version__: str

class Diagnostic:
    severity: Literal["error", "warning", "note"]
    file: str
    line: int
    column: int
    message: str
    notes: tuple[Diagnostic, ...]

class ModelError(Exception):
    diagnostics: list[Diagnostic]
    rendered: str
    @property
    def errors(self) -> list[Diagnostic]: ...

class SolveError(Exception):
    kind: Literal["deadlock", "bound_exceeded", "unbounded", "state_space_too_large",
                  "not_exponential", "not_ergodic", "invalid"]

class SweepInterrupted(KeyboardInterrupt):
    rows: Any
    finished: int
    points: int

class Measure:
    name: str
    mean: float
    ci_low: float
    ci_high: float
    unit: str
    @property
    def half_width(self) -> float: ...
    @property
    def relative_half_width(self) -> float: ...

class Stats:
    replications: int
    events: int
    simulated_s: float
    wall_s: float
    states: Optional[int]
    residual: Optional[float]
    iterations: Optional[int]
    method: Optional[str]

class ModelStats:
    places: int
    timed: int
    immediate: int
    arcs: int
    measures: int
    @property
    def transitions(self) -> int: ...

class Result:
    model: str
    params: dict[str, float]
    solver: Literal["sim", "exact"]
    measures: dict[str, Measure]
    stats: Stats
    precision_reached: bool
    warnings: list[str]
    def __getitem__(self, name: str) -> Measure: ...
    def to_dict(self) -> dict[str, Any]: ...
    def _repr_html_(self) -> str: ...

class Model:
    @property
    def name(self) -> str: ...
    @property
    def params(self) -> dict[str, float]: ...
    @property
    def measure_names(self) -> list[str]: ...
    @property
    def warnings(self) -> list[Diagnostic]: ...
    @property
    def stats(self) -> ModelStats: ...
    def emit(self, format: EmitName = "net") -> str: ...
    def run(self, solver: SolverName = "auto", precision: float = 0.01,
            confidence: float = 0.95, seed: int = 1, threads: Optional[int] = None,
            max_time: Optional[Duration] = None, *, max_states: int = 5_000_000,
            phase_type: bool = False, multiprecision: bool = False) -> Result: ...

def compile(source: Source, *, granularity: Optional[Literal["fine", "coarse"]] = None,
            **params: ParamValue) -> Model: ...

def import_profile(path: Source, name: Optional[str] = None) -> str: ...

def sweep(source: Source, grid: Mapping[str, GridAxis], *, zip: bool = False,
          params: Optional[Mapping[str, ParamValue]] = None,
          granularity: Optional[Literal["fine", "coarse"]] = None,
          solver: SolverName = "auto", precision: float = 0.01, confidence: float = 0.95,
          seed: int = 1, threads: Optional[int] = None, max_time: Optional[Duration] = None,
          max_states: int = 5_000_000, phase_type: bool = False, multiprecision: bool = False,
          progress: bool = True, on_row: Optional[Callable[[dict[str, Any]], None]] = None,
          on_interrupt: Literal["return", "raise"] = "return",
          as_frame: Optional[bool] = None) -> Any: ...
