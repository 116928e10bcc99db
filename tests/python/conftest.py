# Shared fixtures of the Python module's tests: where the sources and the `sgdnet` command are, and the command's JSON.
import json
import os
import pathlib
import re
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("SGDNET_SOURCE_DIR",
                                         pathlib.Path(__file__).resolve().parents[2]))
CLI = os.environ.get("SGDNET_CLI", str(SOURCE_DIR / "build" / "cli" / "sgdnet"))


@pytest.fixture
def source_dir() -> pathlib.Path:
    return SOURCE_DIR


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Runs the `sgdnet` command of the same build; stdout and stderr as text."""
    done = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"sgdnet {' '.join(map(str, args))}: exit {done.returncode}\n"
                             f"{done.stderr}")
    return done


def cli_run_json(path, *options: str) -> dict:
    """`sgdnet run PATH OPTIONS --format json`, parsed (doubles read back exactly)."""
    return json.loads(cli("run", path, *options, "--format", "json").stdout)


def expected_values(path) -> dict:
    """The closed forms of an example's header: `// expect NAME = VALUE`."""
    text = pathlib.Path(path).read_text()
    return {m.group(1): float(m.group(2))
            for m in re.finditer(r"^// expect (\S+) = (\S+)$", text, re.MULTILINE)}
