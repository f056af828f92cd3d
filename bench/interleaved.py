#!/usr/bin/env python3
"""Interleaved timing of a few commands (issue 32: "ratios in one interleaved run").

Runs the commands in rounds, A B C A B C ..., after a few warm-up rounds, each started with posix_spawn
(no shell) with its output to /dev/null, and writes the median wall time and the median user + system
time of each as JSON. A machine whose speed drifts (another VM on the host, a background task) moves
every command of a round alike, so the ratios of the medians hold where hyperfine's blocks (all runs of A,
then all of B) can put A and B in different states of the machine: on this project's VM the common
question against --version read 1.77x to 2.12x in blocks and 1.69x to 1.72x interleaved, the same
binary within minutes (docs/performance.md).

Usage: interleaved.py OUT.json ROUNDS COMMAND [COMMAND...]   (each COMMAND one shell-quoted string)
"""
import json
import os
import shlex
import shutil
import statistics
import sys
import time

WARMUP = 3


def run(argv, devnull):
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"interleaved.py: {' '.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    out, rounds = sys.argv[1], int(sys.argv[2])
    commands = [shlex.split(c) for c in sys.argv[3:]]
    for argv in commands:
        argv[0] = shutil.which(argv[0]) or argv[0]
    devnull = os.open(os.devnull, os.O_WRONLY)
    for _ in range(WARMUP):
        for argv in commands:
            run(argv, devnull)
    wall = [[] for _ in commands]
    cpu = [[] for _ in commands]
    for _ in range(rounds):
        for i, argv in enumerate(commands):
            w, c = run(argv, devnull)
            wall[i].append(w)
            cpu[i].append(c)
    results = [{"command": " ".join(sys.argv[3 + i].split()), "median_ms": statistics.median(wall[i]) * 1000,
                "cpu_ms": statistics.median(cpu[i]) * 1000, "rounds": rounds} for i in range(len(commands))]
    with open(out, "w") as f:
        json.dump({"results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
