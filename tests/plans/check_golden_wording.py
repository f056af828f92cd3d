#!/usr/bin/env python3
"""Over every golden's expected output (tests/golden/*/stdout; issue #28): no utilisation above 100 %
is printed (a load over a month's hours is said in instances), and no break-even is claimed for an
option whose provider has no commitment price in the catalog.

usage: check_golden_wording.py GOLDEN_DIR
"""
import glob
import os
import re
import sys

SHARE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*%\s+of\s+(?:a|the)\s+(?:month|term's hours)")
NO_PRICE = re.compile(r"no commitment prices? (?:known )?for|has no commitment price for|"
                      r"the catalog has no commitment price")
BREAK_EVEN_CLAIM = re.compile(r"chosen on the break-even|against a break-even|breaks even at")


def blocks(text):
    """Step 2's findings: the text table's rows from '2 ' to '3 ', and each JSON/CSV message line."""
    flat = text.replace("\\n", "\n")
    for m in re.finditer(r"^2 (?:training frequency|serving schedule).*?(?=^3 |\Z)", flat, re.M | re.S):
        yield re.sub(r"\s+", " ", m.group(0))
    for line in flat.splitlines():
        if '"message"' in line or line.startswith("2\t") or ",2," in line[:40]:
            yield line


def main():
    golden = sys.argv[1]
    problems, files = [], 0
    for path in sorted(glob.glob(os.path.join(golden, "*", "stdout"))):
        files += 1
        case = os.path.basename(os.path.dirname(path))
        text = open(path, encoding="utf-8", errors="replace").read()
        flat = re.sub(r"\s+", " ", text)
        for m in SHARE.finditer(flat):
            if float(m.group(1)) > 100:
                problems.append(f"{case}: prints a utilisation above 100 %: '{m.group(0)}'")
        # Step 2 of an output that says the top option's provider has no commitment price must not
        # claim a break-even anywhere in the step (the #28 finding: "chosen on the break-even instead").
        for b in blocks(text):
            if NO_PRICE.search(b) and BREAK_EVEN_CLAIM.search(b):
                problems.append(f"{case}: a break-even claimed without a commitment price: '{b.strip()[:160]}'")
    for p in problems:
        print("FAIL:", p)
    print(f"golden wording: {files} outputs, {len(problems)} problem(s)")
    return 1 if problems or files == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
