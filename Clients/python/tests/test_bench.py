"""`lightbox bench ops` runs end to end (a short run: its numbers are for people, not asserts)."""

import subprocess

from conftest import REPO, binary

OPERATIONS = ("echo", "service.ping", "auth.status", "library.fetchAssets", "library.query",
              "provider.describe", "image.request (cached)", "owner.assets (page)")


def test_bench_ops_measures_every_operation_beside_the_echo():
    run = subprocess.run([binary("lightbox"), "bench", "ops", "--rounds", "1", "--requests", "5", "--concurrency", "2"],
                         capture_output=True, text=True, timeout=300, cwd=REPO)
    assert run.returncode == 0, run.stderr
    rows = [line.split() for line in run.stdout.splitlines()[3:]]
    for clients in ("1", "2"):
        for name in OPERATIONS:
            words = name.split()
            row = next((row for row in rows if row[:len(words)] == words and row[len(words)] == clients), None)
            assert row is not None, f"no row for {name} with {clients} client(s):\n{run.stdout}"
            values = [float(value) for value in row[len(words) + 1:]]
            p50, p99, rate, ratio = values[:4]
            assert 0 < p50 <= p99 and rate > 0 and ratio > 0
            # Each operation also through LightboxClient; the echo has no such column.
            assert len(values) == (4 if name == "echo" else 5) and all(value > 0 for value in values)


def test_bench_scale_imports_and_measures_a_generated_library():
    run = subprocess.run([binary("lightbox"), "bench", "scale", "--count", "300", "--selection", "120", "--repeats", "2"],
                         capture_output=True, text=True, timeout=300, cwd=REPO)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("bench scale: 300 assets, limited selection of 120")
    for label in ("import", "library.query, first page", "library.query, page at 90%", "owner.assets, first page",
                  "owner.assets, page at 90%", "library.fetchAssets, 100 ids", "library.query, limited app", "peak memory"):
        assert any(line.strip().startswith(label) for line in run.stdout.splitlines()), f"no {label} line:\n{run.stdout}"
