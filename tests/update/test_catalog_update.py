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
OVERRIDE = {}  # path -> (status, body, headers): issue 31's hostile downloads
LOCK = threading.Lock()
STALL = threading.Event()
STALLED = threading.Event()  # set when a stalled request has arrived


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", ctype="text/csv", extra=None, length=None):
        # Logged before anything is sent: end_headers() flushes the headers, and an answer without a body
        # (304) is then complete, so the client may finish and the test read the log before this thread
        # appends to it (a 304 went missing from the log under load).
        with LOCK:
            LOG.append((self.path, self.headers.get("If-None-Match"), self.headers.get("If-Modified-Since"), status))
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path in OVERRIDE:  # a hostile answer for one path: (status, body bytes, headers)
            status, body, extra = OVERRIDE[self.path]
            if status == "stall":
                STALLED.set()
                STALL.wait(60)
                status = 200
            return self.send(status, body, extra=extra, length=len(body))
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


def check_stores(binary, cache, tmp, env, check):
    """The compact stores (vms.store beside each cached vms.csv, issue #32): `catalog update` writes them;
    a command reads the table from its store with the same answer as from the CSV; a stale or corrupt store
    (moved cache, another build, a changed CSV, flipped or missing bytes, a FIFO) is said, the CSV read
    instead, and the store written again. Runs on a copy of the cache, which it leaves changed."""
    for cloud in ("aws", "lambda", "oci"):
        check(os.path.isfile(os.path.join(cache, "skypilot", cloud, "vms.store")),
              f"catalog update wrote no vms.store for {cloud}")
    copy = os.path.join(tmp, "cache-stores")
    shutil.copytree(cache, copy, symlinks=True)
    store = os.path.join(copy, "skypilot", "aws", "vms.store")
    args = [["offers", "--json", "--limit", "1000"], ["catalog", "info", "--json"],
            ["recommend", "--model", "bert", "--provider", "aws", "--json"]]

    def answer(expect_warning=None, what=""):
        outs = []
        for a in args:
            p = subprocess.run([binary, *a], env=env(GPUADVISE_CACHE_DIR=copy), capture_output=True, text=True,
                               timeout=60)
            check(p.returncode == 0, f"stores, {what}: {' '.join(a)} exits 0", p)
            said = " ".join(p.stderr.split())
            if expect_warning is None:
                check("price cache store" not in said, f"stores, {what}: unexpected warning", p)
            else:
                check("price cache store " + expect_warning in said, f"stores, {what}: not said: {expect_warning}", p)
            outs.append(p.stdout.replace(copy, "CACHE"))
            expect_warning = None  # said once: the first command writes the store again
        return outs

    # The copy's stores name the original path: stale once, then written again and used.
    first = answer("stale: written for another path or provider", "moved cache")
    used = answer(None, "after the rewrite")
    check(used == first, "stores: the answer from the stores differs from the CSV's")
    for name in ("aws", "lambda", "oci"):
        os.remove(os.path.join(copy, "skypilot", name, "vms.store"))
    check(answer(None, "no store") == first, "stores: the answer without stores differs")
    check(os.path.isfile(store), "stores: a missing store in an update's folder is not written again")
    check(answer(None, "store written by the command") == first, "stores: the rewritten store answers differently")
    data = open(store, "rb").read()
    for what, damaged, said in [
            ("a flipped byte", data[:-1] + bytes([data[-1] ^ 0xFF]), "corrupt: its size or checksum"),
            ("truncated", data[:len(data) // 2], "corrupt: its size or checksum"),
            ("empty", b"", "corrupt: not a gpuadvise table store"),
            ("another build", data[:24] + bytes(8) + data[32:], "stale: written by another gpuadvise build"),
            ("an older format", b"gpuadvise-table-store-0\n" + data[24:], "stale: written in another store format")]:
        with open(store, "wb") as f:
            f.write(damaged)
        check(answer(said, what) == first, f"stores, {what}: the answer differs from the CSV's")
        check(open(store, "rb").read() == data, f"stores, {what}: not written again")
    os.remove(store)
    os.mkfifo(store)
    check(answer("corrupt:", "a FIFO") == first, "stores, a FIFO: the answer differs")
    check(os.path.isfile(store) and not os.path.islink(store), "stores, a FIFO: not replaced by a store")
    # The CSV changed after its store was written: the new row is read, not the store's rows.
    csv = os.path.join(copy, "skypilot", "aws", "vms.csv")
    with open(csv, "a") as f:
        f.write(row("g5.2xlarge", "A10G", 1, 22888, "1.212", "us-east-1", "use1-az1"))
    changed = answer("stale: vms.csv changed after it was written", "changed CSV")
    check("g5.2xlarge" in changed[0] and "g5.2xlarge" not in first[0], "stores: the changed CSV's row is not read")
    check(answer(None, "after the changed CSV") == changed, "stores: the store of the changed CSV answers differently")


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
        # The built-in AWS reserved prices still attach to the cached table's offers (a newer copy of the
        # provider's price list keeps its commitment tables): g5.xlarge in us-east-1 at 1.006 USD/h.
        o = subprocess.run([binary, "offers", "--gpu", "A10G", "--provider", "aws", "--plan", "reserved", "--json"],
                           env=env(), capture_output=True, text=True)
        reserved = json.loads(o.stdout)["offers"] if o.returncode == 0 else []
        check(any(x["instance_type"] == "g5.xlarge" and x["commitments"] for x in reserved),
              "the built-in AWS commitments are not attached to the cached g5.xlarge", o)
        info = subprocess.run([binary, "catalog", "info", "--json"], env=env(), capture_output=True, text=True)
        provs = {x["id"]: x for x in json.loads(info.stdout)["providers"]} if info.returncode == 0 else {}
        check("gpuadvise cache" in provs.get("aws", {}).get("source", ""), "catalog info names the cache for aws", info)
        check("lambda" in provs, "lambda comes from the cache", info)
        rates = {r["from"]: r for r in json.loads(info.stdout).get("rates", [])} if info.returncode == 0 else {}
        check(rates.get("CNY", {}).get("as_of") == "2026-11-27", "ECB rates layered (CNY dated 2026-11-27)", info)
        check(abs(rates.get("CNY", {}).get("rate", 0) - 1.05 / 7.56) < 1e-9, "CNY rate = USD per EUR / CNY per EUR", info)

        check_stores(binary, cache, tmp, env, check)

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

        # Issue #29: without a network (every URL refused) one line per cause, not one per source and
        # again in the table; no "Every command now layers…" or "the others were updated" when nothing
        # was, also with --dry-run. An unknown source is a usage error before any request.
        s2 = socket.socket()
        s2.bind(("127.0.0.1", 0))
        gone = f"http://127.0.0.1:{s2.getsockname()[1]}"
        s2.close()
        before = tree_state(cache)
        for extra in ([], ["--dry-run"]):
            p = subprocess.run([binary, "catalog", "update", "--skypilot-url", gone, "--gcp-pricing-url",
                                gone + "/gcp/pricing.yml", "--rates-url", gone + "/ecb/eurofxref-daily.xml",
                                "--connect-timeout", "2", *extra], env=env(), capture_output=True, text=True,
                               timeout=120)
            what = "no network" + (" --dry-run" if extra else "")
            errors = [l for l in p.stderr.splitlines() if l.startswith("gpuadvise: error:")]
            check(p.returncode == 1, f"{what}: exit 1", p)
            check(len(errors) == 1 and "sources (aws, " in errors[0] and "rates)" in errors[0]
                  and errors[0].endswith(f"connection refused or unreachable ({gone})"),
                  f"{what}: one error line for the one cause, naming every source", p)
            check((p.stdout + p.stderr).count("connection refused") == 1, f"{what}: the cause said once", p)
            check("Every command now layers" not in p.stdout, f"{what}: no layering note when nothing was updated", p)
            check("were updated" not in p.stderr and "nothing was updated" in p.stderr,
                  f"{what}: the hint says nothing was updated", p)
            check(len(p.stderr.splitlines()) <= 3, f"{what}: stderr is the cause and the hint", p)
        check(tree_state(cache) == before, "no network: cache byte-identical")
        # One failed beside one updated: the hint counts what was updated.
        FILES["/catalogs/v9/lambda/vms.csv"] = LAMBDA + row("gpu_1x_h100_pcie", "H100", 1, 81920, "2.49", "us-east-1", "")
        p = update("aws", "lambda", fault="500")
        check(p.returncode == 1 and "1 other source was updated" in p.stderr, "500 beside an update: the hint counts it", p)
        check("Every command now layers" in p.stdout and "\naws " not in p.stdout, "the failed source is not in the table", p)
        for bad_source, hint in (("nosuchcloud", "sources: aws, "), ("lamda", "did you mean 'lambda'?")):
            with LOCK:
                LOG.clear()
            before = tree_state(cache)
            p = update(bad_source)
            with LOCK:
                log = list(LOG)
            check(p.returncode == 2 and f"unknown source '{bad_source}'" in p.stderr and hint in p.stderr,
                  f"update {bad_source}: usage error (exit 2) with the sources", p)
            check(not log, f"update {bad_source}: no request sent ({log})")
            check(tree_state(cache) == before, f"update {bad_source}: cache untouched")

        # 4. Issue 31: every downloaded file is read and linted by the reader that will use it before it
        # replaces anything; a bad one leaves the cache byte-identical, exits 1 naming the source.
        p = update("aws", "lambda", "gcp-pricing", "rates")
        check(p.returncode == 0, "issue 31: a good update first", p)
        rates_path, gcp_path = "/ecb/eurofxref-daily.xml", "/gcp/pricing.yml"
        deep = "".join("  " * i + "k:\n" for i in range(3000))
        alias_bomb = ("about:\n  generated: Thu Jul 30 06:13:17 2026\na: &a [x, x, x, x, x, x, x, x, x]\n"
                      + "".join(f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
                                for p, c in zip("abcdefgh", "bcdefghi"))
                      + "compute:\n  instance:\n    a2-highgpu-1g:\n      a100: 1\n      cost: *i\n")
        bad = [
            ("rates", rates_path, ECB.replace("</Cube></Cube></gesmes:Envelope>", "")[:-40], "does not close"),
            ("rates", rates_path, ECB.replace("rate='160.10'", "rate='1e-300'"), "JPY: the rate '1e-300'"),
            ("rates", rates_path, ECB.replace("rate='1.0500'", "rate='1e300'"), "USD: the rate '1e300'"),
            ("rates", rates_path, ECB.replace("rate='7.5600'", "rate='-7'"), "CNY: the rate '-7'"),
            ("rates", rates_path, ECB.replace("2026-11-27", "2026-02-30"), "'2026-02-30' is not a real date"),
            ("rates", rates_path, ECB.replace("2026-11-27", "2099-01-01"), "2099-01-01 is in the future"),
            ("rates", rates_path, ECB.replace("currency='CNY'", "currency='C\nY'"), "is not a currency code"),
            ("rates", rates_path, ECB.replace("<Cube currency='CNY'", "<Cube currency='JPY'"), "JPY: given twice"),
            ("rates", rates_path, "<Cube " * 20000, "does not close"),
            ("gcp-pricing", gcp_path, GCP_PRICING.replace("  instance:\n", "  instance: [\n"), "does not read"),
            ("gcp-pricing", gcp_path, alias_bomb, "YAML alias"),
            ("gcp-pricing", gcp_path, "about:\n" + deep, "nesting deeper than"),
            ("gcp-pricing", gcp_path, "[" * 100000, "nesting deeper than"),
            ("gcp-pricing", gcp_path, GCP_PRICING.replace("hour: 3.673385", "hour: -3.67"), "hour is not a price"),
            ("gcp-pricing", gcp_path, GCP_PRICING.replace("hour: 3.673385", "hour: lots"), "hour is not a price"),
            ("gcp-pricing", gcp_path, GCP_PRICING.replace("Thu Jul 30", "Thu Feb 31"), "not a real date"),
            ("gcp-pricing", gcp_path, GCP_PRICING.replace("  generated: Thu Jul 30 06:13:17 2026\n", ""),
             "no readable about.generated date"),
            ("gcp-pricing", gcp_path, GCP_PRICING.replace("a100: 1", "cpu: 1").replace("l4: 1", "cpu: 4"),
             "lists no GPU machine types"),
        ]
        for source, path, body, reason in bad:
            before = tree_state(cache)
            OVERRIDE[path] = (200, body.encode(), {})
            p = update(source)
            del OVERRIDE[path]
            what = f"bad {source} ({reason})"
            check(p.returncode == 1, f"{what}: exits 1", p)
            check(f"catalog update: {source}: " in p.stderr and reason in p.stderr, f"{what}: names the source and reason", p)
            check("internal error" not in p.stderr, f"{what}: no internal error", p)
            check(tree_state(cache) == before, f"{what}: cache byte-identical")
        o = subprocess.run([binary, "catalog", "info", "--json"], env=env(), capture_output=True, text=True)
        check(o.returncode == 0, "after the bad downloads every command still reads the cache", o)

        # A 304 into an empty cache (or after the cached file was deleted): the request was not
        # conditional, so the 304 is refused; with the file gone the next request asks unconditionally.
        empty = os.path.join(tmp, "empty-cache")
        OVERRIDE["/catalogs/v9/lambda/vms.csv"] = (304, b"", {"ETag": '"x"'})
        p = update("lambda", extra_env={"GPUADVISE_CACHE_DIR": empty})
        del OVERRIDE["/catalogs/v9/lambda/vms.csv"]
        check(p.returncode == 1 and "lambda: HTTP 304" in p.stderr, "304 into an empty cache: exit 1, named", p)
        check(not os.path.exists(os.path.join(empty, "skypilot", "lambda", "vms.csv")), "304: nothing cached")
        os.remove(os.path.join(cache, "skypilot", "lambda", "vms.csv"))
        with LOCK:
            LOG.clear()
        p = update("lambda", "--json")
        with LOCK:
            log = list(LOG)
        check(p.returncode == 0 and json.loads(p.stdout)["sources"][0]["result"] == "updated",
              "deleted cached file: updated again", p)
        check(log and not log[0][1] and not log[0][2], f"deleted cached file: the request is unconditional ({log})")

        # An ETag of bytes FF FE: kept as bytes and sent back exactly (If-None-Match), no abort.
        etag = '"\xff\xfe"'
        oci_new = OCI_V8 + row("VM.GPU.A10.2", "A10", 2, 24576, "4", "eu-amsterdam-1", "eu-amsterdam-1-AD-1")
        OVERRIDE["/catalogs/v9/oci/vms.csv"] = (200, oci_new.encode(), {"ETag": etag})
        p = update("oci")
        check(p.returncode == 0 and "internal error" not in p.stderr, "ETag FF FE: first update exits 0", p)
        with LOCK:
            LOG.clear()
        p = update("oci")
        with LOCK:
            log = list(LOG)
        del OVERRIDE["/catalogs/v9/oci/vms.csv"]
        check(p.returncode == 0, "ETag FF FE: second update exits 0", p)
        check(log and log[0][1] == etag, f"ETag FF FE sent back byte for byte (log: {log})")
        # An ETag over 1 KB is kept for nothing (not sent back: no E2BIG, no huge request); one over curl's
        # 100 KB header limit fails with that reason, not "Out of memory".
        oci_newer = oci_new + row("VM.GPU.A10.4", "A10", 4, 24576, "8", "eu-amsterdam-1", "eu-amsterdam-1-AD-1")
        OVERRIDE["/catalogs/v9/oci/vms.csv"] = (200, oci_newer.encode(), {"ETag": '"' + "e" * 2000 + '"'})
        p = update("oci")
        check(p.returncode == 0 and "internal error" not in p.stderr, "a 2 KB ETag: exit 0", p)
        with LOCK:
            LOG.clear()
        p = update("oci")
        with LOCK:
            log = list(LOG)
        check(p.returncode == 0 and log and not log[0][1], f"a 2 KB ETag is not sent back ({log[:1]})", p)
        before = tree_state(cache)
        OVERRIDE["/catalogs/v9/oci/vms.csv"] = (200, oci_new.encode(), {"ETag": '"' + "e" * 200000 + '"'})
        p = update("oci")
        del OVERRIDE["/catalogs/v9/oci/vms.csv"]
        check(p.returncode == 1 and "oci: " in p.stderr and "header" in p.stderr and "Out of memory" not in p.stderr,
              "a 200 KB ETag: exit 1 naming the header", p)
        check(tree_state(cache) == before, "a 200 KB ETag: cache byte-identical")

        # The cached vms.csv a FIFO or a link to /dev/zero: the update does not hang, it replaces it.
        for kind in ("fifo", "zero"):
            f = os.path.join(cache, "skypilot", "lambda", "vms.csv")
            os.remove(f)
            if kind == "fifo":
                os.mkfifo(f)
            else:
                os.symlink("/dev/zero", f)
            p = update("lambda", timeout=30)
            check(p.returncode == 0, f"cached vms.csv is a {kind}: the update finishes", p)
            check(os.path.isfile(f) and not os.path.islink(f) and "gpu_1x_a10" in open(f).read(),
                  f"cached vms.csv {kind} replaced by the table")
            m = os.path.join(cache, "skypilot", "lambda", "meta.json")
            os.remove(m)
            os.mkfifo(m) if kind == "fifo" else os.symlink("/dev/zero", m)
            p = update("lambda", timeout=30)
            check(p.returncode == 0, f"cached meta.json is a {kind}: the update finishes", p)
            o = subprocess.run([binary, "offers", "--provider", "lambda"], env=env(), capture_output=True, text=True,
                               timeout=30)
            check(o.returncode == 0, f"meta.json {kind}: offers does not hang", o)

        # Killed while downloading (SIGINT, SIGTERM, SIGKILL): the helper dies with gpuadvise.
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            STALLED.clear()
            OVERRIDE["/catalogs/v9/aws/vms.csv"] = ("stall", AWS.encode(), {})
            proc = subprocess.Popen([binary, "catalog", "update", "aws", "--skypilot-url", base, "--timeout", "60"],
                                    env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            check(STALLED.wait(60), f"{sig.name}: the download reached the server")
            children = []
            for t in os.listdir(f"/proc/{proc.pid}/task"):
                children += open(f"/proc/{proc.pid}/task/{t}/children").read().split()
            check(children, f"{sig.name}: no helper process seen")
            proc.send_signal(sig)
            proc.communicate(timeout=60)
            def exited(pid):  # gone, or a zombie; the process may vanish between the checks
                try:
                    with open(f"/proc/{pid}/stat") as stat:
                        return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
                except (FileNotFoundError, ProcessLookupError):
                    return True
            gone = False
            for _ in range(200):
                gone = all(exited(c) for c in children)
                if gone:
                    break
                time.sleep(0.05)
            STALL.set()
            time.sleep(0.1)
            STALL.clear()
            del OVERRIDE["/catalogs/v9/aws/vms.csv"]
            if not gone:
                for c in children:
                    try:
                        os.kill(int(c), signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            check(gone, f"{sig.name} to gpuadvise: the download helper was left running")
        # What a killed update left (NAME.tmp.PID) the next one removes.
        for left in ("skypilot/aws/vms.csv.tmp.99999", "rates/meta.json.tmp.12"):
            open(os.path.join(cache, left), "w").write("partial\n")
        p = update("lambda")
        check(p.returncode == 0, "an update after a killed one exits 0", p)
        leftovers = [os.path.join(d, f) for d, _, fs in os.walk(cache) for f in fs if ".tmp." in f]
        check(not leftovers, f"temporary files left: {leftovers}")

        # SIGKILL at each step of an update (GPUADVISE_TEST_KILL_UPDATE_AT): the table and its meta.json
        # are one transaction, so the next command sees the old pair or the new one; the next update
        # removes what the killed one left. Also from a plain directory (an older gpuadvise's cache).
        sky = os.path.join(cache, "skypilot")
        lam = os.path.join(sky, "lambda")
        for plain in (True, False):
            for step in range(1, 7):
                if plain:  # the cache as an older gpuadvise wrote it: a directory, not a link
                    saved = {n: open(os.path.join(lam, n), "rb").read() for n in ("vms.csv", "meta.json")}
                    if os.path.islink(lam):
                        os.remove(lam)
                    else:
                        shutil.rmtree(lam)
                    os.makedirs(lam)
                    for n, b in saved.items():
                        open(os.path.join(lam, n), "wb").write(b)
                old_csv = open(os.path.join(lam, "vms.csv")).read()
                FILES["/catalogs/v9/lambda/vms.csv"] = LAMBDA + row(f"gpu_kill_{plain}_{step}", "A10", 1, 24576,
                                                                    f"0.7{step}", "us-east-1", "")
                p = update("lambda", extra_env={"GPUADVISE_TEST_KILL_UPDATE_AT": str(step)})
                what = f"killed at step {step} ({'plain directory' if plain else 'link'})"
                check(p.returncode == -signal.SIGKILL, f"{what}: the test hook did not kill the update", p)
                csv = open(os.path.join(lam, "vms.csv")).read()
                meta = json.load(open(os.path.join(lam, "meta.json")))
                new = f"gpu_kill_{plain}_{step}" in csv
                check(csv == old_csv or new, f"{what}: the table is neither the old nor the new one")
                check(meta["rows_kept"] == len(csv.splitlines()) - 1, f"{what}: meta.json does not match the table")
                o = subprocess.run([binary, "offers", "--provider", "lambda", "--json"], env=env(),
                                   capture_output=True, text=True, timeout=60)
                check(o.returncode == 0, f"{what}: offers reads the cache", o)
                p = update("lambda")
                check(p.returncode == 0, f"{what}: the next update exits 0", p)
                left = sorted(n for n in os.listdir(sky) if n.startswith(".lambda.") and ".v-" not in n)
                versions = [n for n in os.listdir(sky) if n.startswith(".lambda.v-")]
                check(not left and len(versions) == 1, f"{what}: leftovers {left} {versions}")
                check(os.path.realpath(lam) == os.path.join(os.path.realpath(sky), versions[0] if versions else ""),
                      f"{what}: the link does not point at the one version")
    except Exception:  # an unexpected state (a file missing after a step) is one more failure, reported
        import traceback
        failures.append("exception:\n" + traceback.format_exc())
    finally:
        server.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)

    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
