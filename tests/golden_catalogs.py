#!/usr/bin/env python3
"""Guard: at most MAX_SMOKE of the recommend/compare/offers/estimate golden cases run on the built-in
catalog; the others run on the frozen fixture catalog (tests/fixtures/frozen/) with --no-default-catalog,
so that replacing the shipped prices (data/market.yaml's tables) changes only those smoke cases.

usage: golden_catalogs.py GOLDEN_DIR
A case counts as "on the built-in catalog" when its cmd lacks --no-default-catalog. The smoke cases
are listed in SMOKE; a case that is neither listed nor on a --no-default-catalog catalog fails the test,
as does a listed case that no longer exists or a case that reads the built-in data/ files directly.
"""
import os
import sys

COMMANDS = ("recommend", "compare", "offers", "estimate")
MAX_SMOKE = 3
# The cases that deliberately keep running on the shipped data (one per priced command).
SMOKE = {"recommend-bert", "offers-market-a100", "compare-a100-v100-t4"}


def case_args(case_dir):
    with open(os.path.join(case_dir, "cmd"), encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1]
    problems, builtin = [], []
    for name in sorted(os.listdir(root)):
        case = os.path.join(root, name)
        if not os.path.isfile(os.path.join(case, "cmd")) or not name.startswith(tuple(c + "-" for c in COMMANDS)):
            continue
        args = case_args(case)
        if "--no-default-catalog" not in args:
            builtin.append(name)
            if name not in SMOKE:
                problems.append(f"{name}: runs on the built-in catalog; add --no-default-catalog and the frozen "
                                f"catalog (tests/fixtures/frozen/README.md), or make it one of the smoke cases")
        else:
            for a in args:
                if "data/" in a.replace("\\", "/"):
                    problems.append(f"{name}: reads the shipped data ({a}); use the frozen copy in tests/fixtures/frozen/")
    missing = sorted(SMOKE - set(os.listdir(root)))
    for name in missing:
        problems.append(f"{name}: listed as a smoke case but there is no such golden case")
    if len(SMOKE) > MAX_SMOKE or len(builtin) > MAX_SMOKE:
        problems.append(f"{len(builtin)} cases run on the built-in catalog ({', '.join(builtin)}); at most {MAX_SMOKE} may")
    for p in problems:
        print("golden_catalogs: " + p)
    if not problems:
        print(f"golden_catalogs: {len(builtin)} smoke case(s) on the built-in catalog: {', '.join(builtin)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
