#!/usr/bin/env python3
"""The pandas baseline (issue 32): the benchmark's `offers` query with pandas over the same CSV.

usage: baseline_pandas.py CATALOG.csv

Same question as `gpuadvise --catalog FILE --provider-name bench offers --gpu A100 --plan on-demand
--sort price-per-gpu --limit 10`: the A100 rows with an on-demand price above 0, one per (instance
type, count, region) with the lowest price over zones, sorted by price per GPU, top 10. It maps only the
generator's accelerator name (no GPU catalog, no variant choice, no lint). bench/vs_duckdb.sh runs it
with a python3 that has pandas, skipping it otherwise.
"""
import sys

import pandas as pd


def main() -> int:
    df = pd.read_csv(sys.argv[1], usecols=["InstanceType", "AcceleratorName", "AcceleratorCount", "Price",
                                           "Region"])
    df = df[(df["AcceleratorName"] == "A100") & (df["Price"] > 0)]
    df = df.groupby(["InstanceType", "AcceleratorCount", "Region"], as_index=False)["Price"].min()
    df["per_gpu"] = df["Price"] / df["AcceleratorCount"]
    top = df.sort_values(["per_gpu", "InstanceType", "AcceleratorCount", "Region"], kind="stable").head(10)
    print(top.to_string(index=False))
    print(f"{len(df)} matching offers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
