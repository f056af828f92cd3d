"""The frozen catalog and the pinned environment that the python test drivers run gpuadvise with.

tests/fixtures/frozen/ is the catalog the engine goldens run on (tests/golden_catalogs.py): prices that
a refresh of data/ never changes. `run(binary, *args, frozen=True)` runs gpuadvise on it alone
(--no-default-catalog), with no colour, the C locale, today pinned to 2026-11-29, no ~/.sky/catalogs,
no `catalog update` cache and none of the caller's GPUADVISE_* variables; frozen=False runs the same
environment on the shipped catalog.

Used by tests/training/test_big_jobs.py and tests/serving/test_service.py (each adds this folder to
sys.path: `sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))`).
"""
import os
import subprocess

TESTS = os.path.dirname(os.path.abspath(__file__))
FROZEN = os.path.join(TESTS, "fixtures", "frozen")
# The frozen catalog's files, in the order the engine goldens name them.
CATALOG = ["--no-default-catalog"] + [a for f in ("catalog.yaml", "models.yaml", "models-2026.yaml", "compat.yaml")
                                      for a in ("--catalog", os.path.join(FROZEN, f))]


def env():
    """The caller's environment without GPUADVISE_*, pinned as the goldens pin it."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("GPUADVISE_")}
    e.update({"NO_COLOR": "1", "LC_ALL": "C", "GPUADVISE_TODAY": "2026-11-29", "GPUADVISE_SKY_DIR": "",
              "GPUADVISE_CACHE_DIR": os.path.join(TESTS, ".no-cache")})
    return e


def run(binary, *args, frozen=True):
    """gpuadvise ARGS (on the frozen catalog unless frozen=False), text output captured."""
    return subprocess.run([binary, *(CATALOG if frozen else []), *args], capture_output=True, text=True, env=env())
