#!/usr/bin/env python3
"""Golden test runner: runs the gpuadvise binary for one case folder and compares its stdout,
stderr and exit code with the files kept in that folder.

A case folder holds:
  cmd      the arguments, one per line (no shell; blank lines and lines starting with '#' skipped)
  env      optional KEY=VALUE lines added to the environment
  stdin    optional bytes fed to standard input
  stdout, stderr, exit   the expectations

The binary runs with the case folder as its working directory (so `--catalog catalog.yaml`
names a file beside `cmd`), with NO_COLOR=1, LC_ALL=C, GPUADVISE_TODAY=2026-11-29, no
GPUADVISE_CATALOG, no price cache and no ~/.sky/catalogs. With GPUADVISE_UPDATE_GOLDEN=1 the expectations are rewritten instead of
compared; review the diff before committing.
"""
import difflib
import os
import subprocess
import sys


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: golden.py BINARY CASE_DIR", file=sys.stderr)
        return 2
    binary, case = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with open(os.path.join(case, "cmd"), encoding="utf-8") as f:
        args = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUADVISE_")}
    env.update({"NO_COLOR": "1", "LC_ALL": "C", "TERM": "dumb", "GPUADVISE_TODAY": "2026-11-29"})
    # Output fits the terminal width (COLUMNS, else the tty, else 100): pinned so that goldens do not
    # depend on the terminal running the tests (a case's env may set another width).
    env["COLUMNS"] = "100"
    # No `catalog update` cache and no ~/.sky/catalogs of the machine running the tests (a case's env may set them).
    env.update({"GPUADVISE_CACHE_DIR": os.path.join(case, ".no-cache"), "GPUADVISE_SKY_DIR": ""})
    env_file = os.path.join(case, "env")
    if os.path.exists(env_file):
        with open(env_file, encoding="utf-8") as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    env[k] = v
    stdin = b""
    if os.path.exists(os.path.join(case, "stdin")):
        with open(os.path.join(case, "stdin"), "rb") as f:
            stdin = f.read()
    proc = subprocess.run([binary] + args, cwd=case, env=env, input=stdin, capture_output=True, timeout=120)
    actual = {"stdout": proc.stdout.decode("utf-8", "replace"), "stderr": proc.stderr.decode("utf-8", "replace"),
              "exit": f"{proc.returncode}\n"}

    if os.environ.get("GPUADVISE_UPDATE_GOLDEN") == "1":
        for name, text in actual.items():
            with open(os.path.join(case, name), "w", encoding="utf-8", newline="") as f:  # CSV keeps its CRLF
                f.write(text)
        print(f"updated {case}")
        return 0

    failed = False
    for name, text in actual.items():
        path = os.path.join(case, name)
        expected = open(path, encoding="utf-8", newline="").read() if os.path.exists(path) else ""
        if expected != text:
            failed = True
            print(f"--- {name} differs for {os.path.basename(case)} (args: {' '.join(args)})")
            sys.stdout.writelines(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                                       "expected/" + name, "actual/" + name))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
