#!/usr/bin/env python3
"""Writes SkyPilot vms.csv-format tables of a given number of rows in shapes that real tables have.

usage: gen_market.py ROWS OUT.csv [--shape real|gcp|distinct|distinct-gpuinfo]

Where bench/gen_catalog.py makes every row distinct and alike in shape, these keep what real tables
look like (issue 32's "market-1m.csv" question is --gpu L4 over such a table):

  real              (default) every row one of the 4,394 real rows of data/skypilot/*.csv (AWS, GCP,
                    OCI, vast, ...: CPU-only and TPU rows, AZ duplicates, rows without GpuInfo,
                    regions quoted with commas), in one header. Copy k > 0 of the real rows renames the
                    regions and zones ("us-east-1" -> "us-east-1~k"), as a marketplace lists the same
                    machine in many places, so instance types and accelerators repeat as in a market.
  gcp               the same with data/skypilot/gcp.csv alone, in its own column order: three quarters
                    are accelerator rows without an instance type, priced with their zone's host row
                    (95 MB a million rows, about the size of issue 32's table).
  distinct          every row its own instance type, no GpuInfo, ten GPUs, 27 regions (a marketplace
                    that names each machine).
  distinct-gpuinfo  every row its own instance type, with a GpuInfo whose memory varies (8,000
                    distinct texts), five GPUs, 50 regions.

Deterministic; standard library only.
"""
import csv
import glob
import os
import random
import sys

HEADER = ["InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "GpuInfo", "Price",
          "SpotPrice", "Region", "AvailabilityZone"]
HERE = os.path.dirname(os.path.abspath(__file__))
SKYPILOT = os.path.join(HERE, "..", "data", "skypilot")


def read_rows(paths, header):
    rows = []
    for path in paths:
        with open(path, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                rows.append([r.get(k) or "" for k in header])
    return rows


def copies(n, rows, header, out):
    """Rows, copy after copy, the regions and zones of copy k > 0 renamed."""
    region, zone = header.index("Region"), header.index("AvailabilityZone")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    for i in range(n):
        row = rows[i % len(rows)]
        copy = i // len(rows)
        if copy:
            row = list(row)
            row[region] = f"{row[region]}~{copy}"
            if row[zone]:
                row[zone] = f"{row[zone]}~{copy}"
        w.writerow(row)


def distinct(n, out, gpu_info):
    rng = random.Random(5)
    out.write(",".join(HEADER) + "\n")
    if gpu_info:
        gpus = [("A100", 40960), ("L4", 23034), ("T4", 15360), ("H100", 81920), ("RTX4090", 24564)]
        for i in range(n):
            name, mib = gpus[i % 5]
            count = 1 << (i // 5 % 4)
            mib -= rng.randrange(0, 400)
            info = ("\"{'Gpus': [{'Name': '%s', 'Count': %d, 'MemoryInfo': {'SizeInMiB': %d}}], "
                    "'TotalGpuMemoryInMiB': %d}\"" % (name, count, mib, mib * count))
            out.write(f"m{i},{name},{count},{8 * count},{32 * count},{info},{0.5 * count:.3f},,r{i % 50},z\n")
        return
    gpus = ["L4", "A100", "T4", "H100", "A10G", "L40S", "V100", "A100-80GB", "H200", "RTX4090"]
    regions = [f"{g}-{d}-{i}" for g in ("us", "eu", "ap") for d in ("east", "west", "central") for i in range(1, 4)]
    for i in range(n):
        name, count = gpus[rng.randrange(10)], [1, 2, 4, 8][rng.randrange(4)]
        region = regions[rng.randrange(len(regions))]
        price = round(rng.uniform(0.3, 4) * count, 4)
        spot = round(price * rng.uniform(0.3, 0.9), 4) if rng.random() < 0.6 else ""
        out.write(f"inst-{i:07d}.{count}x,{name},{count},{8 * count},{32 * count},,{price},{spot},{region},{region}a\n")


def main() -> int:
    args = sys.argv[1:]
    shape = "real"
    if "--shape" in args:
        i = args.index("--shape")
        shape = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2 or shape not in ("real", "gcp", "distinct", "distinct-gpuinfo"):
        print(__doc__, file=sys.stderr)
        return 2
    n, path = int(args[0]), args[1]
    with open(path, "w", newline="", encoding="utf-8") as out:
        if shape == "real":
            copies(n, read_rows(sorted(glob.glob(os.path.join(SKYPILOT, "*.csv"))), HEADER), HEADER, out)
        elif shape == "gcp":
            gcp = os.path.join(SKYPILOT, "gcp.csv")
            with open(gcp, newline="", encoding="utf-8") as f:
                header = next(csv.reader(f))
            copies(n, read_rows([gcp], header), header, out)
        else:
            distinct(n, out, shape == "distinct-gpuinfo")
    return 0


if __name__ == "__main__":
    sys.exit(main())
