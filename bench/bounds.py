#!/usr/bin/env python3
"""The work at the documented input bounds (issue 31), at growing sizes, so that growth is seen to be linear.

usage: bench/bounds.py BINARY [OUT.md]      (bench/run.sh runs it; appends a table to OUT.md)

- `plan` with a 1 / 2 / 4 MB `gpu:` value (the did-you-mean lookup);
- `plan` reading 1k / 10k (the bound) / 10,001 (refused) jobs whose last is invalid (the jobs reader alone:
  time and peak memory), and planning 1k / 10k jobs of one workload and 1k / 2k / 10k distinct ones;
- `plan` with one bert job whose peak is at the bound (1,000,000 instances busy at once) and one just past it,
  and with N jobs of the same name (1k / 10k: each duplicate reported once, at most 100 lines printed);
- `offers` on a SkyPilot tree of 1k / 5k / 10k clouds;
- `catalog update rates` on hostile ECB files of 1 / 2 / 4 MB (tags that never close, attributes repeated),
  served by a local HTTP server (never the internet).
Median of 3 runs, wall-clock ms; no limit is asserted here (timings belong in the bench, not in the tests).
"""
import http.server
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time


def median_ms(cmd, env, runs=3):
    times, last = [], None
    for _ in range(runs):
        t = time.perf_counter()
        last = subprocess.run(cmd, env=env, capture_output=True, timeout=600)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), last


def peak_mb(cmd, env):
    """Peak resident set of one run of `cmd`, MB (wait4's ru_maxrss of that child alone)."""
    child = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024


def main():
    binary = os.path.abspath(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 else None
    tmp = tempfile.mkdtemp(prefix="gpuadvise-bounds-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUADVISE_")}
    env.update({"GPUADVISE_CACHE_DIR": os.path.join(tmp, "cache"), "GPUADVISE_SKY_DIR": "", "LC_ALL": "C"})
    rows = []

    def plan(name, text):
        path = os.path.join(tmp, name + ".yaml")
        with open(path, "w") as f:
            f.write(text)
        ms, p = median_ms([binary, "plan", path, "-q"], env)
        rows.append((f"plan: {name}", f"{os.path.getsize(path) / 1e3:.0f} KB", f"{ms:.0f}", f"exit {p.returncode}"))

    job = "  - {{name: {n}, model: bert, provider: gcp, hours_per_run: {h}, measured_on: a100-40gb-sxm, runs_per_week: {r}}}\n"
    plan("peak at the bound (1e6 instances)", "jobs:\n" + job.format(n="big", h=1e6, r=168))
    plan("peak past the bound (hours 1e6 x 10000 runs)", "jobs:\n" + job.format(n="big", h=1e6, r=10000))
    for n in (1000, 10000):
        plan(f"{n} jobs of one name", "jobs:\n" + "".join("  - {name: same, model: bert}\n" for _ in range(n)))

    # The jobs reader alone: N distinct jobs and an unknown model in the last, so every job is read and
    # checked (YAML, fields, workload) and nothing is planned; 10,000 is the bound, 10,001 is refused
    # before any job is read. Time and peak memory per job should not grow.
    job_line = "  - {{name: j{i}, model: bert, runs_per_week: 1}}\n"
    for n in (1000, 10000, 10001):
        path = os.path.join(tmp, f"read-{n}.yaml")
        with open(path, "w") as f:
            f.write("jobs:\n" + "".join(job_line.format(i=i) for i in range(n - 1)) + "  - {name: last, model: bertt}\n")
        ms, p = median_ms([binary, "plan", path, "-q"], env)
        mb = peak_mb([binary, "plan", path, "-q"], env)
        rows.append((f"plan: the reader alone, {n:,} distinct jobs (last one invalid)",
                     f"{os.path.getsize(path) / 1e6:.1f} MB", f"{ms:.0f}", f"exit {p.returncode}, {mb:.0f} MB peak"))
    # Planned on the built-in catalog: N jobs of one workload (their options are found once and shared)
    # and N distinct workloads (each evaluated: the pool sizer's work per job and offer), up to the bound.
    kinds = {"of one workload": "  - {{name: j{i}, model: bert, runs_per_week: 1}}\n",
             "distinct": "  - {{name: j{i}, model: bert, runs_per_week: {r}, batch_size: {b}}}\n"}
    for kind, line in kinds.items():
        for n in ((1000, 10000) if kind != "distinct" else (1000, 2000, 10000)):
            path = os.path.join(tmp, f"plan-{kind[:3]}-{n}.yaml")
            with open(path, "w") as f:
                f.write("jobs:\n" + "".join(line.format(i=i, r=1 + i % 997, b=8 + i) for i in range(n)))
            ms, p = median_ms([binary, "plan", path, "-q"], env, runs=1)
            mb = peak_mb([binary, "plan", path, "-q"], env) if n < 10000 or kind != "distinct" else float("nan")
            rows.append((f"plan: {n:,} jobs {kind} planned", f"{os.path.getsize(path) / 1e3:.0f} KB", f"{ms:.0f}",
                         f"exit {p.returncode}, {mb:.0f} MB peak"))

    # A SkyPilot tree of N one-table clouds (`offers` on it): was 111 s at 10,000 clouds (an exact
    # reserve per table, the providers and offers scanned once per table and once per offer).
    header = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
    row = "B200_1x,B200,1.0,26.0,354.0,5.8,AU,,\n"
    for n in (1000, 5000, 10000):
        tree = os.path.join(tmp, f"tree-{n}")
        for i in range(n):
            os.makedirs(os.path.join(tree, f"c{i}"), exist_ok=True)
            with open(os.path.join(tree, f"c{i}", "vms.csv"), "w") as f:
                f.write(header + row)
        ms, p = median_ms([binary, "--catalog", tree, "offers", "--gpu", "b200", "--limit", "3", "-q"], env)
        rows.append((f"offers on a SkyPilot tree of {n:,} clouds", f"{n:,} tables", f"{ms:.0f}", f"exit {p.returncode}"))

    for mb in (1, 2, 4):  # the did-you-mean lookup of a huge gpu: value (was 20 s at 2 MB)
        plan(f"a {mb} MB gpu: value", "jobs:\n  - {name: a, model: bert, gpu: " + "g" * (mb << 20) + "}\n")

    files = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            body = files.get(self.path, b"")
            self.send_response(200 if self.path in files else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    for mb in (1, 2, 4):
        for kind, unit in (("unclosed <Cube tags", b"<Cube "), ("repeated attributes", b"rate rate rate rate ")):
            body = b"<Cube time='2026-11-27' " + unit * (mb * 1000000 // len(unit)) + b">"
            files[f"/{mb}-{len(unit)}.xml"] = body
            ms, p = median_ms([binary, "catalog", "update", "rates", "--rates-url", f"{base}/{mb}-{len(unit)}.xml"], env)
            rows.append((f"catalog update rates: {kind}", f"{len(body) / 1e6:.0f} MB", f"{ms:.0f}", f"exit {p.returncode}"))
    server.shutdown()

    table = ["", "Work at the input bounds (bench/bounds.py; median of 3, ms):", "",
             "| case | input | median ms | result |", "|---|---:|---:|---|"]
    table += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    text = "\n".join(table) + "\n"
    print(text)
    if out:
        with open(out, "a") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
