#!/usr/bin/env python3
"""The Python baseline: the benchmark's `offers` query done in plain Python over the same CSV.

usage: baseline.py CATALOG.csv

Same work as `gpuadvise --no-default-catalog --catalog FILE offers --gpu A100 --plan on-demand
--sort price-per-gpu --limit 10` minus what Python makes hard: it maps only the generator's
accelerator names, reads GpuInfo memory with a regex and dedupes nothing. Standard library only.
"""
import csv
import re
import sys

SIZE = re.compile(r"'SizeInMiB':\s*(\d+)")


def main() -> int:
    rows = []
    with open(sys.argv[1], newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["AcceleratorName"] != "A100" or not r["Price"]:
                continue
            price = float(r["Price"])
            if price <= 0:
                continue
            mem = int(SIZE.search(r["GpuInfo"]).group(1)) // 1024
            form = "sxm" if "sxm" in r["InstanceType"] else "pcie"
            count = int(float(r["AcceleratorCount"]))
            rows.append((price / count, f"a100-{mem}gb-{form}", count, r["Region"], r["InstanceType"], price))
    rows.sort(key=lambda x: x[0])
    for per_gpu, gpu, count, region, instance, price in rows[:10]:
        print(f"{gpu:16} {count:2} {region:16} {instance:28} {price:10.2f} {per_gpu:8.3f}")
    print(f"{len(rows)} matching offers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
