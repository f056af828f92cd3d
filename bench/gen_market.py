#!/usr/bin/env python3
"""Writes a SkyPilot vms.csv-format table of a given number of rows scaled from the real rows in data/skypilot/.

usage: gen_market.py ROWS OUT.csv

Where bench/gen_catalog.py makes every row distinct and alike in shape, this one keeps what real
tables look like (issue 32's "market-1m.csv" question, --gpu L4): every row is one of the 4,394 real
rows of data/skypilot/*.csv (AWS, GCP, OCI, vast, ...: CPU-only and TPU rows, AZ duplicates, rows
without GpuInfo, regions quoted with commas), put in one header. Copy k > 0 of the real rows renames
the regions and zones ("us-east-1" -> "us-east-1~k"), as a marketplace lists the same machine in many
places, so instance types and accelerators repeat as they do in a real market. Deterministic;
standard library only.
"""
import csv
import glob
import os
import sys

HEADER = ["InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "GpuInfo", "Price",
          "SpotPrice", "Region", "AvailabilityZone"]


def real_rows(folder: str) -> list:
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
        with open(path, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                rows.append([r.get(k) or "" for k in HEADER])
    return rows


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    n, path = int(sys.argv[1]), sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    rows = real_rows(os.path.join(here, "..", "data", "skypilot"))
    region, zone = HEADER.index("Region"), HEADER.index("AvailabilityZone")
    with open(path, "w", newline="", encoding="utf-8") as out:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(HEADER)
        for i in range(n):
            row = rows[i % len(rows)]
            copy = i // len(rows)
            if copy:
                row = list(row)
                row[region] = f"{row[region]}~{copy}"
                if row[zone]:
                    row[zone] = f"{row[zone]}~{copy}"
            w.writerow(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
