#!/usr/bin/env python3
"""Writes a `catalog update`-style cache holding every cloud's table, for the cache benchmark.

usage: make_cache.py DATA_SKYPILOT_DIR OUT_CACHE_DIR [--plain]

One <cache>/skypilot/<cloud>/vms.csv per shipped table (aws.csv + aws-g-family.csv joined as upstream keeps
them in one file), with a meta.json dated today, so that every provider of the built-in data is read from the
cache instead of the built-in snapshot. Each folder is laid out as `catalog update` writes it (skypilot/<cloud>
a link to .<cloud>.v-bench), so the first command writes its compact store (vms.store) and the next ones read
that; with --plain the folders are plain directories, which gpuadvise only reads (the CSV parsed every time).
"""
import datetime
import json
import os
import sys


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--plain"]
    plain = len(args) != len(sys.argv) - 1
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    src, out = args
    today = datetime.date.today().isoformat()
    tables = {}
    for name in sorted(os.listdir(src)):
        if not name.endswith(".csv"):
            continue
        cloud = name[:-4].split("-")[0]
        with open(os.path.join(src, name), encoding="utf-8", newline="") as f:
            lines = f.read().splitlines(keepends=True)
        if cloud in tables:
            tables[cloud] += lines[1:]
        else:
            tables[cloud] = lines
    for cloud, lines in tables.items():
        d = os.path.join(out, "skypilot", cloud if plain else f".{cloud}.v-bench")
        os.makedirs(d, exist_ok=True)
        if not plain:
            os.symlink(f".{cloud}.v-bench", os.path.join(out, "skypilot", cloud))
        with open(os.path.join(d, "vms.csv"), "w", encoding="utf-8", newline="") as f:
            f.writelines(lines)
        meta = {"url": f"file://{os.path.abspath(src)}/{cloud}.csv", "schema_version": 9, "etag": "",
                "last_modified": "", "fetched_at": today + "T00:00:00Z", "as_of": today,
                "rows_read": len(lines) - 1, "rows_kept": len(lines) - 1}
        with open(os.path.join(d, "meta.json"), "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=2)
    print(f"{len(tables)} clouds in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
