#!/usr/bin/env python3
"""Writes SkyPilot vms.csv-format catalogs of a given number of offers for the benchmark.

usage: gen_catalog.py OFFERS OUT.csv [--seed N]

Every row is a distinct (instance type, accelerator, count, region), so OFFERS rows give OFFERS
offers. The mix looks like the real tables: quoted Python-literal GpuInfo, AWS-style columns,
form factors in the instance names (as on cudo, vast, nebius), some spot prices, float noise.
Standard library only; deterministic for a seed.
"""
import random
import sys

# (SkyPilot name, instance-type stem, per-GPU memory MiB, on-demand USD per GPU-hour)
GPUS = [
    ("A100", "a100-sxm", 40960, 1.6),
    ("A100", "a100-sxm", 81920, 2.1),
    ("A100", "a100-pcie", 81920, 1.8),
    ("H100-SXM", "h100-sxm", 81920, 2.9),
    ("H100", "h100-pcie", 81920, 2.4),
    ("H200", "h200-sxm", 144384, 3.8),
    ("L4", "l4", 24576, 0.7),
    ("T4", "t4", 16384, 0.35),
    ("L40S", "l40s", 49152, 1.1),
    ("RTX4090", "rtx4090", 24576, 0.4),
    ("V100", "v100-sxm2", 16384, 0.9),
    ("B200", "b200-sxm", 184320, 5.5),
]
REGIONS = [f"{geo}-{i}" for geo in ("us-east", "us-west", "eu-central", "eu-north", "ap-south", "ap-northeast",
                                     "sa-east", "me-central") for i in range(1, 7)]
COUNTS = [1, 2, 4, 8]
HEADER = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n"


def main() -> int:
    args = sys.argv[1:]
    seed = 7
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    offers, path = int(args[0]), args[1]
    rng = random.Random(seed)
    per_combo = len(GPUS) * len(COUNTS) * len(REGIONS)
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write(HEADER)
        for n in range(offers):
            variant = n // per_combo  # makes instance types unique once the combinations run out
            name, stem, mib, usd = GPUS[n % len(GPUS)]
            count = COUNTS[(n // len(GPUS)) % len(COUNTS)]
            region = REGIONS[(n // (len(GPUS) * len(COUNTS))) % len(REGIONS)]
            vcpus = 8 * count + 4 * (variant % 4)
            ram = 64.0 * count
            instance = f"{stem}-{count}x{vcpus}v-{variant}"
            gpu_info = ("\"{'Gpus': [{'Name': '%s', 'Manufacturer': 'NVIDIA', 'Count': %d, 'MemoryInfo': "
                        "{'SizeInMiB': %d}}], 'TotalGpuMemoryInMiB': %d}\"" % (name, count, mib, mib * count))
            price = round(usd * count * rng.uniform(0.7, 1.6), 4) + 1e-12 * (n % 3)  # float noise on some rows
            spot = "" if rng.random() < 0.4 else "%.6f" % (price * rng.uniform(0.3, 0.8))
            out.write(f"{instance},{name},{count},{vcpus},{ram},{gpu_info},{price!r},{spot},{region},{region}a\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
