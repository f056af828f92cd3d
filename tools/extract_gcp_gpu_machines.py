#!/usr/bin/env python3
"""Cuts Cyclenerd's GCP pricing.yml down to its GPU machine types, line for line (the upstream
format unchanged: the about block, then compute.instance entries that carry a GPU key).

    tools/extract_gcp_gpu_machines.py pricing.yml > data/commitments/gcp-pricing.yml

gpuadvise reads the whole upstream file as well (table format gcp-pricing, docs/catalog.md); the cut
keeps the built-in data small (the whole file is 3.9 MB, its GPU machine types about 5 %).
"""
import sys

GPU_KEYS = ("a100", "a100-80gb", "h100-80gb", "h100-80gb-mega", "l4", "rtx6000")


def main(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    i = 0
    # header up to and including "  instance:"
    while i < len(lines):
        out.append(lines[i])
        if lines[i] == "  instance:":
            i += 1
            break
        i += 1
    # one block per machine type: "    name:" then deeper lines
    while i < len(lines) and (lines[i].startswith("    ") or lines[i] == ""):
        start = i
        i += 1
        while i < len(lines) and lines[i].startswith("      "):
            i += 1
        block = lines[start:i]
        keys = {l.strip().split(":")[0] for l in block[1:] if l.startswith("      ") and not l.startswith("       ")}
        if any(k in keys for k in GPU_KEYS):
            out.extend(block)
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
