#!/usr/bin/env python3
"""Writes the starting corpus of each fuzz target into fuzz/corpus/<target>/ from the shipped data,
the golden cases and hand-written cases. Run once; fuzz/run.sh --merge then keeps the corpus small.
Seeds are small pieces (a section, a few rows): libFuzzer mutates short inputs far faster."""
import glob
import hashlib
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "corpus")


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
        f.write(data)


def yaml_pieces(text, limit=3000):
    """Top-level sections cut into list items of at most `limit` bytes, each a whole document."""
    header = "schema_version: 1\n"
    for m in re.finditer(r"^([a-z_]+):.*\n((?:[ #\-].*\n|\n)*)", text, re.M):
        key, body = m.group(1), m.group(2)
        items = re.split(r"(?m)^(?=  - )", body)
        chunk = ""
        for item in items:
            if len(chunk) + len(item) > limit and chunk.strip():
                yield header + key + ":\n" + chunk
                chunk = ""
            chunk += item[:limit]
        if chunk.strip():
            yield header + key + ":\n" + chunk


HAND_YAML = [
    "", "\ufeff", "schema_version: 1\n", "schema_version: 2\n", "gpus: []\nproviders: {}\n",
    "gpus:\n  - id: x\n    family: X\n    memory_gb: .nan\n",
    "gpus:\n  - id: x\n    memory_gb: 1e309\n    tflops: {fp16: -1}\n",
    "providers:\n  - id: p\n    currency: USD\n    offers:\n      - {gpu: A100, gpu_count: 0, on_demand_per_hour: -1}\n",
    "providers:\n  - id: p\n    tables: [{format: skypilot, path: x.csv}]\n",
    "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n",
    "gpus: &g\n  - *g\n",
    "policy: {a: 1, a: 2}\n",
    "models:\n  - id: m\n    params: 1e30\n",
    "compat:\n  pytorch: [{version: '2.1', cuda: [11.8]}]\n",
    "calibration:\n  - {model: m, gpu: A100, measured: 1}\n",
    "rates:\n  - {currency: EUR, usd_per_unit: 0}\n",
    "[[[[[[]]]]]]\n", "{a: {b: {c: {}}}}\n", "- - - - x\n", "key: 'unterminated\n", "\t- tab\n",
]

HAND_CSV = [
    "", "InstanceType,AcceleratorName,AcceleratorCount,Price,Region\n",
    "InstanceType,AcceleratorName,AcceleratorCount,Price,Region\np3.2xlarge,V100,1,3.06,us-east-1\n",
    "InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region\nx,A100,1e12,-1,nan,r\n",
    "InstanceType,AcceleratorName,AcceleratorCount,Price,Region\r\nx,\"A100,1,1,r\r\n",
    "InstanceType;AcceleratorName;AcceleratorCount;Price;Region\nx;A100;1;1;r\n",
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n"
    ",A100,1,,,\"{'Name': 'A100', 'Count': 1.0, 'MemoryInfo': {'SizeInMiB': 40960}}\",2.9,1.1,us-central1,us-central1-a\n"
    "a2-highgpu-1g,,,12,85,,0.9,0.3,us-central1,us-central1-a\n",
]

GPU_SPECS = ["A100", "A100:80GB:8", "H100,H200", "80GB", "a100-80gb-sxm", "A100:8", "::", "A100::8", "0", "4097",
             "A100:1e12", "24G", "T4:16GB", "V100,", ",", "l40s:48gb:2:2", "rtx-4090", "MI300X", "1.5GB"]

CLI = [
    ["--help"], ["--version"], ["gpus"], ["gpus", "--json"], ["offers", "--gpu", "A100:80GB:8", "--sort", "price-per-gpu"],
    ["offers", "--max-price", "nan"], ["offers", "--max-price", "-1"], ["offers", "--limit", "0"],
    ["recommend", "--model", "bert", "--runs-per-week", "4"], ["recommend", "--runs-per-week", "-1"],
    ["recommend", "--params", "1e30"], ["recommend", "--top", "0"], ["recommend", "--model", "bert", "--batch-size", "0"],
    ["recommend", "--model", "bert", "--seq-len", "99999999"], ["recommend", "--model", "bert", "--epochs", "1e300"],
    ["recommend", "--model", "llama-2-7b", "--task", "lora", "--json"], ["compare", "A100", "V100", "T4"],
    ["estimate", "--model", "bert", "--gpu", "A100"], ["models"], ["models", "--kind", "cnn"], ["catalog", "info"],
    ["check-env", "--gpu", "A100", "--pytorch", "1.12+cu102"], ["recomend"], ["offers", "--gpus"], ["--gpu", "::"],
    ["recommend", "--params", "7e9", "--tokens", "1e12", "--precision", "bf16", "--interruptible"],
    ["offers", "--format", "markdown", "--currency", "EUR"], ["offers", "--plan", "spot", "--pytorch", "2.1"],
]


# Issue #17 fault classes as bytes: what special files deliver (/dev/zero: NULs; /proc/self/mem and
# FIFOs: nothing; a truncated read: half a document), invalid UTF-8 (Latin-1, overlong forms,
# surrogates, above U+10FFFF, cut sequences), C1 controls and ANSI escapes in ids and names.
BAD_UTF8 = [b"caf\xe9", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\xff\xfe", b"\xc2\x9b31m"]
FAULT_YAML = [b"\x00" * 4096, b"", b"schema_version: 1\ngpus:\n  - {id: t4, family: T4, name: NVIDIA T4, mem"] + [
    b"schema_version: 1\ngpus:\n  - {id: t4" + bad + b", family: T4, name: NVIDIA T4, memory_gb: 16, tflops: {fp16: 65}, source: test}\n"
    for bad in BAD_UTF8] + [
    b'schema_version: 1\ngpus:\n  - {id: "evil\\e[31m", family: E, name: "x\\e]0;t\\a", memory_gb: 16, tflops: {fp16: 65}, source: s}\n',
    b"schema_version: 1\npolicy: {hours_per_month: 0, run_setup_minutes: -5, max_price_age_days: 4.9e-324}\n",
    b"schema_version: 1\nrates:\n  - {currency: 'EUR ', usd_per_unit: 1.1, as_of: 9999-12-31, source: s}\n",
    b"schema_version: 1\ngpus:\n  - {id: 'a:b', family: A100, name: x, memory_gb: 16, tflops: {fp16: 0}, aliases: [A100], source: s}\n"]
FAULT_CSV = [b"\x00" * 4096, b"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region\n"
             b"gpu_1x_a100,A100,1,30,200,1.29,,S\xe3o Paulo\n",
             b"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region,Price\n"
             b"p3.2xlarge,V100,1,8,61,1e300,4.9e-324,us-east-1,0.01\n"] + [
    b"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region\np3" + bad + b",V100,1,8,61,3.06,,r\n"
    for bad in BAD_UTF8]
FAULT_CLI = [["estimate", "--model", "bert", "--zero", ""], ["offers", "--pytorch", ""], ["--json", "--format", "csv", "gpus"],
             ["estimate", "--model", "bert", "--batch-size", "0x10"], ["catalog", "valdate"], ["catalog"],
             ["--provider-name", "x", "gpus"], ["estimate", "--model", "bert", "--epochs", "abc"],
             ["compare", "A100\x1b[2J", "T4"], ["offers", "--gpu", "caf\xe9"]]


def fault_seeds():
    for data in FAULT_YAML:
        put("catalog_yaml", data)
    for i, data in enumerate(FAULT_CSV):
        put("skypilot_csv", bytes([i % 4]) + data)
    for args in FAULT_CLI:
        put("cli", "\n".join(args).encode("latin-1"))


def main():
    fault_seeds()
    for path in sorted(glob.glob(os.path.join(ROOT, "data", "*.yaml"))):
        for piece in yaml_pieces(open(path, encoding="utf-8").read()):
            put("catalog_yaml", piece)
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*", "*.yaml"))):
        put("catalog_yaml", open(path, "rb").read()[:8192])
    for text in HAND_YAML:
        put("catalog_yaml", text)

    providers = ["aws", "gcp", "verda", "lambda"]
    for path in sorted(glob.glob(os.path.join(ROOT, "data", "skypilot", "*.csv"))):
        name = os.path.splitext(os.path.basename(path))[0]
        selector = bytes([providers.index(name) if name in providers else 3])
        lines = open(path, "rb").read().splitlines(True)
        put("skypilot_csv", selector + b"".join(lines[:25]))
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*", "*.csv"))):
        put("skypilot_csv", b"\x00" + open(path, "rb").read()[:8192])
    for i, text in enumerate(HAND_CSV):
        put("skypilot_csv", bytes([i % 4]) + text.encode())

    for spec in GPU_SPECS:
        put("gpu_spec", spec)

    for cmd in sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*", "cmd"))):
        args = [l.rstrip("\n") for l in open(cmd, encoding="utf-8") if l.strip() and not l.startswith("#")]
        if any(a.startswith("--catalog") or a in ("validate", "import", "--detect") for a in args):
            continue
        put("cli", "\n".join(args))
    for args in CLI:
        put("cli", "\n".join(args))


if __name__ == "__main__":
    import sys
    fault_seeds() if sys.argv[1:] == ["--faults"] else main()
