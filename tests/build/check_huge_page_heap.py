#!/usr/bin/env python3
"""The built-in catalog is loaded into a heap advised for transparent huge pages (issue #32).

`recommend` on the built-in catalog touches ~3 MB of fresh heap; one page fault per 4 KiB page made 700
faults, about 40 % of its wall time on the project's VM (~10 us a fault). io::prepare_heap, called before
the snapshot is decoded, advises huge pages (madvise MADV_HUGEPAGE) on the heap the load allocates from.

This runs the common question with its standard output on a pipe that is already full, so the process
stops at its first write, after all of its work and with its heap still mapped; reads /proc/PID/smaps;
then drains the pipe and checks the answer. It fails when no anonymous mapping of the process carries the
advice (VmFlags "hg"), or when the answer is wrong. The huge pages themselves are not required (a host
may have none free): the advice is what the program controls. Skipped (77) where the kernel has no THP.

Usage: check_huge_page_heap.py GPUADVISE
"""
import fcntl
import os
import subprocess
import sys
import tempfile
import time

THP = "/sys/kernel/mm/transparent_hugepage/enabled"


def fill(fd: int) -> int:
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    written = 0
    try:
        while True:
            written += os.write(fd, b"x" * 4096)
    except BlockingIOError:
        pass
    fcntl.fcntl(fd, fcntl.F_SETFL, flags)
    return written


def stat_fields(pid: int):
    with open(f"/proc/{pid}/stat") as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return rest[0], int(rest[11]) + int(rest[12])  # state, utime + stime


def wait_blocked(proc: subprocess.Popen) -> bool:
    """True once the process sleeps with its CPU time unchanged for half a second (it is in write)."""
    deadline = time.monotonic() + 60
    last, same = None, 0
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        state, ticks = stat_fields(proc.pid)
        same = same + 1 if state == "S" and ticks == last else 0
        last = ticks
        if same >= 5:
            return True
        time.sleep(0.1)
    return False


def advised_mappings(pid: int):
    out, current = [], None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split()
            if "-" in head[0] and not head[0].endswith(":"):
                lo, hi = (int(x, 16) for x in head[0].split("-"))
                current = {"range": head[0], "size": hi - lo, "name": head[5] if len(head) > 5 else ""}
            elif head[0] == "AnonHugePages:" and current is not None:
                current["anon_huge_kb"] = int(head[1])
            elif head[0] == "VmFlags:" and current is not None:
                if "hg" in head[1:]:
                    out.append(current)
                current = None
    return out


def main() -> int:
    if not os.path.exists(THP):
        print(f"SKIP: no {THP} (a kernel without transparent huge pages)")
        return 77
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GPUADVISE_CACHE_DIR=os.path.join(tmp, "cache"),
                   XDG_CONFIG_HOME=os.path.join(tmp, "config"), NO_COLOR="1")
        read_end, write_end = os.pipe()
        filled = fill(write_end)
        proc = subprocess.Popen([binary, "recommend", "--model", "bert", "--runs-per-week", "4", "-q"],
                                stdout=write_end, stderr=subprocess.PIPE, env=env)
        os.close(write_end)
        try:
            if not wait_blocked(proc):
                print("FAIL: the process did not stop at its first write (exit "
                      f"{proc.poll()}); the check needs it alive with its heap mapped")
                return 1
            advised = [m for m in advised_mappings(proc.pid) if m["size"] >= 2 << 20]
            mode = open(THP).read().strip()
        finally:
            chunks = []
            while True:
                chunk = os.read(read_end, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
            os.close(read_end)
            proc.wait(timeout=60)
        output = b"".join(chunks)[filled:].decode()
        if proc.returncode != 0 or "Answer: rent" not in output:
            print(f"FAIL: recommend exited {proc.returncode}; stderr: {proc.stderr.read().decode()}")
            return 1
    if not advised:
        print("FAIL: no mapping of 2 MiB or more carries MADV_HUGEPAGE (VmFlags hg): the built-in "
              "catalog was loaded on 4 KiB pages (io::prepare_heap before the snapshot is decoded)")
        return 1
    for m in advised:
        print(f"advised: {m['range']} {m['size'] >> 20} MiB {m['name'] or '(anonymous)'}, "
              f"AnonHugePages {m.get('anon_huge_kb', 0)} kB (THP mode: {mode})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
