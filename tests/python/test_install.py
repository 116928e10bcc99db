# `cmake --install` of the Python module: installed into the prefix's dist-packages, importable there, loading the prefix's libsgdnet.
import os
import pathlib
import subprocess
import sys

import pytest

BUILD_DIR = os.environ.get("SGDNET_BUILD_DIR")

CHECK = """
import sgdnet, sys
model = sgdnet.compile(sys.argv[1])
print(sgdnet.__file__)
print(model.run(solver="exact").measures["thr"].mean)
print([line.split()[-1] for line in open("/proc/self/maps") if "libsgdnet.so" in line][0])
"""


@pytest.mark.skipif(not BUILD_DIR, reason="needs SGDNET_BUILD_DIR (set by ctest)")
def test_installed_package_imports_from_the_prefix(tmp_path, source_dir):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", BUILD_DIR, "--prefix", prefix], check=True,
                   capture_output=True)
    inits = list(prefix.glob("lib/python3*/dist-packages/sgdnet/__init__.py"))
    assert len(inits) == 1, inits
    package = inits[0].parent
    assert (package / "__init__.pyi").is_file() and (package / "py.typed").is_file()
    env = dict(os.environ, PYTHONPATH=str(package.parent))
    out = subprocess.run([sys.executable, "-c", CHECK, source_dir / "examples/mm1k.sgdnet"],
                         check=True, capture_output=True, text=True, env=env, cwd=tmp_path)
    module_file, thr, library = out.stdout.split("\n")[:3]
    assert pathlib.Path(module_file).is_relative_to(prefix)
    assert pathlib.Path(library).resolve().is_relative_to(prefix.resolve())
    assert float(thr) > 0
