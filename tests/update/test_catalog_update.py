#!/usr/bin/env python3
"""`gpuadvise catalog update` against a fixture HTTP server (never the internet).

usage: test_catalog_update.py BINARY

Starts a small HTTP server (Python standard library) on 127.0.0.1 with an ephemeral port, serving a
SkyPilot-style fixture tree (catalogs/v9/<cloud>/vms.csv; v8 only for one cloud), a GCP price file and
an ECB rates file, with ETag/Last-Modified and conditional requests, plus faults by path. Checks:
every cloud of the tree is fetched and `offers --gpu A10G --provider aws` lists g5 rows with the fetched
date; a second run sends conditional requests and rewrites nothing (server log, inodes); each fault
(404, 500, connection refused, a stall past the timeout, a truncated body, an HTML page, a changed
header, a read-only cache, a full disk, two updates at once) exits 1 naming the cloud and the reason and
leaves the cache byte-identical (checksums).
"""
import email.utils
import hashlib
import http.server
import json
import os
import resource
import signal
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

HEADER = ("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
          "AvailabilityZone\n")
GPU = "\"{'Gpus': [{'Name': '%s', 'Manufacturer': 'NVIDIA', 'Count': %d, 'MemoryInfo': {'SizeInMiB': %d}}], " \
      "'TotalGpuMemoryInMiB': %d}\""


def row(instance, gpu, count, mib, price, region, zone):
    return f"{instance},{gpu},{count},8,32,{GPU % (gpu, count, mib, mib * count)},{price},,{region},{zone}\n"


AWS = HEADER + "".join([
    row("g5.xlarge", "A10G", 1, 22888, "1.006", "us-east-1", "use1-az1"),
    row("g5.xlarge", "A10G", 1, 22888, "1.006", "us-east-1", "use1-az2"),
    row("g5.12xlarge", "A10G", 4, 22888, "5.672", "us-east-1", "use1-az1"),
    row("g6.xlarge", "L4", 1, 22888, "0.8048", "us-west-2", "usw2-az1"),
    "m5.large,,,2,8,,0.096,,us-east-1,use1-az1\n",  # a CPU row: not kept
])
LAMBDA = HEADER + row("gpu_1x_a10", "A10", 1, 24576, "0.75", "us-east-1", "") + \
    row("gpu_8x_h100_sxm5", "H100", 8, 81920, "23.92", "us-east-1", "")
OCI_V8 = HEADER + row("VM.GPU.A10.1", "A10", 1, 24576, "2", "eu-amsterdam-1", "eu-amsterdam-1-AD-1")
GCP_PRICING = """---
about:
  generated: Thu Jul 30 06:13:17 2026
  url: https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator
compute:
  instance:
    a2-highgpu-1g:
      a100: 1
      cost:
        us-central1:
          hour: 3.673385
          month_1y: 1689.37
    g2-standard-4:
      l4: 1
      cost:
        us-central1:
          hour: 0.70683228
region:
  us-central1: {}
"""
ECB = """<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
<Cube><Cube time='2026-11-27'>
<Cube currency='USD' rate='1.0500'/><Cube currency='JPY' rate='160.10'/><Cube currency='CNY' rate='7.5600'/>
</Cube></Cube></gesmes:Envelope>
"""

FILES = {
    "/catalogs/v9/aws/vms.csv": AWS,
    "/catalogs/v9/lambda/vms.csv": LAMBDA,
    "/catalogs/v8/oci/vms.csv": OCI_V8,  # only under v8: the update falls back to it
    "/gcp/pricing.yml": GCP_PRICING,
    "/ecb/eurofxref-daily.xml": ECB,
}
LAST_MODIFIED = email.utils.formatdate(time.time() - 3600, usegmt=True)
LOG = []  # (path, if-none-match, if-modified-since, status)
LOCK = threading.Lock()
STALL = threading.Event()
STALLED = threading.Event()  # set when a stalled request has arrived


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", ctype="text/csv", extra=None, length=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        with LOCK:  # before the body: the client may exit as soon as it has the response
            LOG.append((self.path, self.headers.get("If-None-Match"), self.headers.get("If-Modified-Since"), status))
        self.wfile.write(body)

    def do_GET(self):
        fault = os.environ.get("FIXTURE_FAULT", "")
        path = self.path
        faulty = fault and path.endswith(f"/{FAULT_CLOUD}/vms.csv")
        if faulty and fault == "500":
            return self.send(500, b"oops\n", "text/plain")
        if faulty and fault == "404":
            return self.send(404, b"no\n", "text/plain")
        if faulty and fault == "html":
            return self.send(200, b"<!DOCTYPE html><html><body>Rate limited</body></html>\n", "text/html")
        if faulty and fault == "header":
            return self.send(200, b"InstanceType,AcceleratorName,AcceleratorCount,GpuInfo,Cost,Region\n"
                                  b"g5.xlarge,A10G,1,,1.006,us-east-1\n")
        if faulty and fault == "truncated":
            body = FILES[path].encode()
            self.close_connection = True
            return self.send(200, body[: len(body) // 2], length=len(body))
        if faulty and fault == "stall":
            STALLED.set()  # the client is past its cache lock and waiting on us
            STALL.wait(60)
            return self.send(200, FILES[path].encode())
        if path not in FILES:
            return self.send(404, b"not found\n", "text/plain")
        body = FILES[path].encode()
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        if self.headers.get("If-None-Match") == etag:
            return self.send(304, b"", extra={"ETag": etag, "Last-Modified": LAST_MODIFIED}, length=0)
        self.send(200, body, extra={"ETag": etag, "Last-Modified": LAST_MODIFIED})


FAULT_CLOUD = "aws"


def tree_state(root):
    """path -> (sha256, inode) of every file under root (the empty .lock file an update creates is not data)."""
    state = {}
    for d, _, files in os.walk(root):
        for f in files:
            if f == ".lock":
                continue
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                state[os.path.relpath(p, root)] = (hashlib.sha256(fh.read()).hexdigest(), os.stat(p).st_ino)
    return state


def main():
    binary = os.path.abspath(sys.argv[1])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.handle_error = lambda request, address: None  # a stalled reply's client has gone: expected
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    tmp = tempfile.mkdtemp(prefix="gpuadvise-update-")
    cache = os.path.join(tmp, "cache")
    failures = []

    def env(**extra):
        e = {k: v for k, v in os.environ.items() if not k.startswith("GPUADVISE_")}
        e.update({"GPUADVISE_CACHE_DIR": cache, "GPUADVISE_SKY_DIR": "", "LC_ALL": "C", "NO_COLOR": "1",
                  "GPUADVISE_TODAY": time.strftime("%Y-%m-%d", time.gmtime())})
        e.update(extra)
        return e

    def update(*args, fault="", cloud="aws", extra_env=None, timeout=60):
        global FAULT_CLOUD
        FAULT_CLOUD = cloud
        os.environ["FIXTURE_FAULT"] = fault
        cmd = [binary, "catalog", "update", "--skypilot-url", base, "--gcp-pricing-url", base + "/gcp/pricing.yml",
               "--rates-url", base + "/ecb/eurofxref-daily.xml", "--timeout", "3", "--connect-timeout", "2", *args]
        p = subprocess.run(cmd, env=env(**(extra_env or {})), capture_output=True, text=True, timeout=timeout)
        os.environ["FIXTURE_FAULT"] = ""
        return p

    def check(cond, what, p=None):
        if not cond:
            failures.append(what + ("" if p is None else f"\n  exit {p.returncode}\n  stdout: {p.stdout}\n  stderr: {p.stderr}"))

    try:
        # 1. First update: the clouds of the fixture tree (aws, lambda; oci from v8), GCP prices, rates.
        p = update("aws", "lambda", "oci", "gcp-pricing", "rates", "--json")
        check(p.returncode == 0, "first update exits 0", p)
        out = json.loads(p.stdout) if p.returncode == 0 else {"sources": []}
        by = {s["source"]: s for s in out["sources"]}
        for s in ("aws", "lambda", "oci", "gcp-pricing", "rates"):
            check(by.get(s, {}).get("result") == "updated", f"{s} updated", p)
        check(by.get("aws", {}).get("rows_read") == 5 and by.get("aws", {}).get("rows_kept") == 4,
              "aws: 5 rows read, 4 kept (the CPU row dropped)", p)
        check("v8/oci" in by.get("oci", {}).get("url", ""), "oci falls back to schema v8", p)
        check(by.get("aws", {}).get("upstream_last_modified") == LAST_MODIFIED, "upstream Last-Modified reported", p)
        today = time.strftime("%Y-%m-%d", time.gmtime())

        # offers --gpu A10G --provider aws lists g5 rows with the fetched date.
        o = subprocess.run([binary, "offers", "--gpu", "A10G", "--provider", "aws", "--json"], env=env(),
                           capture_output=True, text=True)
        check(o.returncode == 0, "offers after update exits 0", o)
        offers = json.loads(o.stdout)["offers"] if o.returncode == 0 else []
        check(offers and all(x["instance_type"].startswith("g5.") for x in offers), "A10G offers are g5 rows", o)
        check(offers and all(x["as_of"] == today for x in offers), "offers carry the fetched date", o)
        check(len(offers) == 2, "two g5 offers (zone duplicates merged)", o)
        info = subprocess.run([binary, "catalog", "info", "--json"], env=env(), capture_output=True, text=True)
        provs = {x["id"]: x for x in json.loads(info.stdout)["providers"]} if info.returncode == 0 else {}
        check("gpuadvise cache" in provs.get("aws", {}).get("source", ""), "catalog info names the cache for aws", info)
        check("lambda" in provs, "lambda comes from the cache", info)
        rates = {r["from"]: r for r in json.loads(info.stdout).get("rates", [])} if info.returncode == 0 else {}
        check(rates.get("CNY", {}).get("as_of") == "2026-11-27", "ECB rates layered (CNY dated 2026-11-27)", info)
        check(abs(rates.get("CNY", {}).get("rate", 0) - 1.05 / 7.56) < 1e-9, "CNY rate = USD per EUR / CNY per EUR", info)

        # 2. Second update: conditional requests, nothing rewritten (same inodes, same bytes).
        before = tree_state(cache)
        with LOCK:
            LOG.clear()
        p = update("aws", "lambda", "oci", "gcp-pricing", "rates", "--json")
        check(p.returncode == 0, "second update exits 0", p)
        with LOCK:
            log = list(LOG)
        served = [e for e in log if e[3] == 304]
        check(len(served) == 5, f"five 304 answers to conditional requests (log: {log})")
        check(all(e[1] for e in served), "each sent If-None-Match")
        check(tree_state(cache) == before, "second run rewrites nothing (checksums and inodes)")

        # 3. Faults: each exits 1 naming the cloud and the reason; the cache stays byte-identical.
        FILES["/catalogs/v9/aws/vms.csv"] = AWS + row("g5.2xlarge", "A10G", 1, 22888, "1.212", "us-east-1", "use1-az1")
        faults = [
            ("404", "HTTP 404"), ("500", "HTTP 500"), ("html", "HTML page"), ("header", "lacks column 'Price'"),
            ("truncated", "truncated"), ("stall", "timed out"),
        ]
        for fault, reason in faults:
            before = tree_state(cache)
            p = update("aws", fault=fault)
            STALL.set(); STALL.clear()
            check(p.returncode == 1, f"{fault}: exits 1", p)
            check("catalog update: aws:" in p.stderr and reason in p.stderr, f"{fault}: names aws and '{reason}'", p)
            check(tree_state(cache) == before, f"{fault}: cache byte-identical")
        # Other clouds still update when one fails.
        FILES["/catalogs/v9/lambda/vms.csv"] = LAMBDA + row("gpu_1x_a100", "A100", 1, 40960, "1.29", "us-east-1", "")
        p = update("aws", "lambda", fault="500")
        check(p.returncode == 1 and "aws: HTTP 500" in p.stderr, "aws fails beside lambda", p)
        check("gpu_1x_a100" in open(os.path.join(cache, "skypilot", "lambda", "vms.csv")).read(), "lambda still updated")

        # Connection refused.
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
        s.close()
        before = tree_state(cache)
        p = subprocess.run([binary, "catalog", "update", "aws", "--skypilot-url", f"http://127.0.0.1:{dead}"],
                           env=env(), capture_output=True, text=True, timeout=60)
        check(p.returncode == 1 and "aws:" in p.stderr and "connection refused" in p.stderr, "refused: exit 1, named", p)
        check(tree_state(cache) == before, "refused: cache byte-identical")

        # Read-only cache directory (skipped as root, who can write anyway).
        if os.geteuid() != 0:
            before = tree_state(cache)
            for d, _, _ in os.walk(cache):
                os.chmod(d, 0o555)
            p = update("aws")
            for d, _, _ in os.walk(cache):
                os.chmod(d, 0o755)
            check(p.returncode == 1 and "aws:" in p.stderr, "read-only cache: exit 1 naming aws", p)
            check(tree_state(cache) == before, "read-only cache: byte-identical")
        # A full disk: /dev/full as the cache's temporary file is not possible portably; a cache directory
        # whose skypilot/aws is a file (so no file can be written under it) stands in for "cannot write".
        ro = os.path.join(tmp, "blocked")
        os.makedirs(os.path.join(ro, "skypilot"))
        open(os.path.join(ro, "skypilot", "aws"), "w").write("not a directory\n")
        before = tree_state(ro)
        p = update("aws", extra_env={"GPUADVISE_CACHE_DIR": ro})
        check(p.returncode == 1 and "aws:" in p.stderr and "cannot" in p.stderr, "unwritable cache: exit 1, named", p)
        check(tree_state(ro) == before, "unwritable cache: byte-identical")
        # A full disk: writes fail once a file reaches 64 bytes (RLIMIT_FSIZE, SIGXFSZ ignored, so write()
        # returns EFBIG as it returns ENOSPC on a full disk). aws's new table no longer fits.
        def small_files():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))
        before = tree_state(cache)
        p = subprocess.run([binary, "catalog", "update", "aws", "--skypilot-url", base], env=env(),
                           capture_output=True, text=True, timeout=60, preexec_fn=small_files)
        check(p.returncode == 1 and "catalog update: aws:" in p.stderr and "too large" in p.stderr.lower(),
              "full disk: exit 1 naming aws and the write error", p)
        check(tree_state(cache) == before, "full disk: cache byte-identical")
        check(not [f for f in os.listdir(os.path.join(cache, "skypilot", "aws")) if ".tmp." in f],
              "full disk: no temporary file left")

        # Two updates at once: the second finds the lock held and exits 1 without touching the cache.
        before = tree_state(cache)
        os.environ["FIXTURE_FAULT"] = "stall"
        # The first holds the lock while its download stalls; the second starts only once the stalled
        # request has reached the server (no sleep: under a loaded sanitizer build a start takes seconds).
        STALLED.clear()
        first = subprocess.Popen([binary, "catalog", "update", "aws", "--skypilot-url", base, "--timeout", "60"],
                                 env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(STALLED.wait(60), "lock held: the first update reached the server")
        p = subprocess.run([binary, "catalog", "update", "lambda", "--skypilot-url", base], env=env(),
                           capture_output=True, text=True, timeout=60)
        STALL.set()
        first.communicate(timeout=60)
        STALL.clear()
        os.environ["FIXTURE_FAULT"] = ""
        check(p.returncode == 1 and "another 'gpuadvise catalog update' is running" in p.stderr, "lock held: exit 1", p)

        # --dry-run writes nothing; --offline fetches nothing.
        before = tree_state(cache)
        p = update("aws", "--dry-run", "--json")
        check(p.returncode == 0 and tree_state(cache) == before, "--dry-run writes nothing", p)
        with LOCK:
            LOG.clear()
        p = subprocess.run([binary, "catalog", "update", "--offline", "aws", "--json"], env=env(), capture_output=True,
                           text=True)
        check(p.returncode == 0 and not LOG, "--offline sends no request", p)
    finally:
        server.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)

    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
