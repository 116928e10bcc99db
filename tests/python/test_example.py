# examples/python/ring_vs_ps.py runs as documented: it sweeps both schemes and writes a PNG plot.
import os
import subprocess
import sys


def test_ring_vs_ps_example_writes_a_png(tmp_path, source_dir):
    png = tmp_path / "ring_vs_ps.png"
    done = subprocess.run([sys.executable, source_dir / "examples/python/ring_vs_ps.py",
                           "-o", png], capture_output=True, text=True, cwd=tmp_path,
                          env=dict(os.environ, MPLBACKEND="Agg"))
    assert done.returncode == 0, done.stderr
    assert "ring all-reduce:" in done.stdout and "PS sync (2 shards):" in done.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 10_000
    assert "Warning" not in done.stderr, done.stderr
