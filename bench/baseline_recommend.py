#!/usr/bin/env python3
"""The Python baseline for `recommend`: the equivalent filter + cost computation over the same CSV.

usage: baseline_recommend.py CATALOG.csv

For every offer whose GPUs hold the job (BERT-Large fine-tune needs about 14 GB per GPU), it
estimates the run time from the GPU's dense FP16 TFLOPS, prices a month of 4 runs a week on
on-demand and spot, and prints the 5 cheapest. Far less than gpuadvise's rule engine (no scaling,
Pareto, reserved break-even, warnings), so it is a floor, not an equal. Standard library only.
"""
import csv
import heapq
import re
import sys

SIZE = re.compile(r"'SizeInMiB':\s*(\d+)")
TFLOPS = {"A100": 312, "H100-SXM": 989, "H100": 756, "H200": 989, "L4": 121, "T4": 65, "L40S": 362,
          "RTX4090": 165, "V100": 125, "B200": 2250}
WORK_TFLOP = 6 * 336e6 * 88_641 * 384 * 2 / 1e12  # 6 N tokens, two epochs
NEED_GB = 14.1
RUNS_PER_MONTH = 4 * 30.4 / 7


def main() -> int:
    best = []
    with open(sys.argv[1], newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            name = r["AcceleratorName"]
            if name not in TFLOPS or not r["Price"]:
                continue
            mem_gb = int(SIZE.search(r["GpuInfo"]).group(1)) / 1024
            if mem_gb < NEED_GB:
                continue
            count = int(float(r["AcceleratorCount"]))
            hours = WORK_TFLOP / (TFLOPS[name] * 0.4 * count) / 3600
            for plan, price in (("on_demand", r["Price"]), ("spot", r["SpotPrice"])):
                if price and float(price) > 0:
                    cost = float(price) * hours * RUNS_PER_MONTH
                    heapq.heappush(best, (-cost, r["InstanceType"], r["Region"], plan))
                    if len(best) > 5:
                        heapq.heappop(best)
    for cost, instance, region, plan in sorted(best, reverse=True):
        print(f"{instance:28} {region:16} {plan:10} {-cost:10.2f} USD/month")
    return 0


if __name__ == "__main__":
    sys.exit(main())
