# The exceptions of the sgdnet package: ModelError (compiler diagnostics with positions) and SolveError.
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Diagnostic:
    """One message of the compiler, at a 1-based line and column (0: the whole file)."""

    severity: str  # "error", "warning" or "note"
    file: str
    line: int
    column: int
    message: str
    notes: tuple[Diagnostic, ...] = field(default=())

    @staticmethod
    def from_dict(d: dict) -> Diagnostic:
        return Diagnostic(d["severity"], d["file"], d["line"], d["column"], d["message"],
                          tuple(Diagnostic.from_dict(n) for n in d["notes"]))

    def __str__(self) -> str:
        where = self.file
        if self.line:
            where += f":{self.line}:{self.column}"
        return f"{where}: {self.severity}: {self.message}"


class ModelError(Exception):
    """A model that does not compile: every diagnostic, and the text `sgdnet check` prints."""

    def __init__(self, rendered: str, diagnostics: list):
        self.diagnostics: list[Diagnostic] = [
            d if isinstance(d, Diagnostic) else Diagnostic.from_dict(d) for d in diagnostics]
        self.rendered: str = rendered
        message = rendered.rstrip("\n") or "\n".join(str(d) for d in self.diagnostics)
        super().__init__(message or "compilation failed")

    def __reduce__(self):  # pickles with its diagnostics (multiprocessing)
        return (type(self), (self.rendered, self.diagnostics))

    @property
    def errors(self) -> list[Diagnostic]:
        """The diagnostics of severity "error"."""
        return [d for d in self.diagnostics if d.severity == "error"]


class SolveError(Exception):
    """A model that cannot be solved (deadlock, unbounded place, state space too large, ...).

    `kind` is "deadlock", "bound_exceeded", "unbounded", "state_space_too_large",
    "not_exponential", "not_ergodic" or "invalid".
    """

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind: str = kind

    def __reduce__(self):
        return (type(self), (str(self), self.kind))
