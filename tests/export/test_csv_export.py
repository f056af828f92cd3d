#!/usr/bin/env python3
"""--format csv and --format tsv against --format json, one command per run (issue 18, "Exports").

usage: test_csv_export.py GPUADVISE COMMAND      (COMMAND: recommend, offers, compare, ... or tsv)

For each case of COMMAND and each of its sections the same invocation is run with --format json and
with --format csv --section NAME. The rows the JSON says the table must have (the items at the
section's path; nested objects flattened with '.', one row per element of an exploded array) are
compared with the CSV read by Python's csv module (every field, exactly) and by pandas.read_csv
(float_precision="round_trip"; the same values: numbers equal as numbers, empty = null or empty text, arrays as JSON text).
Where pandas is not installed the csv-module checks still run, then the test exits 77 (ctest's
SKIP_RETURN_CODE) with the reason: it is reported as skipped, never as passed.
"""
import csv
import re
import io
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FROZEN = os.path.join(HERE, "..", "fixtures", "frozen")
CATALOG = ["--no-default-catalog", "--catalog", os.path.join(FROZEN, "catalog.yaml"),
           "--catalog", os.path.join(FROZEN, "models.yaml"), "--catalog", os.path.join(FROZEN, "compat.yaml")]

# name -> (items pointer, exploded array key, keys kept from the item): the contract of docs/json.md.
SECTIONS = {
    "recommend": {"recommendations": ("/recommendations", None, []),
                  "alternatives": ("/recommendations", "alternatives",
                                   ["rank", "provider", "gpu", "gpu_count", "instances", "instance_type", "region", "currency"]),
                  "steps": ("/analysis/steps", "findings", ["step", "name"]),
                  "workload": ("/workload", None, []), "warnings": ("/warnings", None, []), "rates": ("/rates", None, []),
                  "plan_crossover": ("/plan_crossover", None, []), "what_if": ("/what_if", None, []),
                  "what_if_crossovers": ("/what_if_crossovers", None, []), "rejected": ("/rejected", None, [])},
    "offers": {"offers": ("/offers", None, []),
               "commitments": ("/offers", "commitments", ["provider", "gpu", "gpu_count", "region", "instance_type", "currency"]),
               "gpus_covered": ("/gpus_covered", None, [])},
    "compare": {"gpus": ("/gpus", None, []), "queries": ("/queries", None, []), "warnings": ("/warnings", None, []),
                "rates": ("/rates", None, [])},
    "estimate": {"estimates": ("/estimates", None, []), "workload": ("/workload", None, [])},
    "gpus": {"gpus": ("/gpus", None, [])},
    "models": {"models": ("/models", None, [])},
    "catalog-info": {"providers": ("/providers", None, []), "rates": ("/rates", None, []), "skipped": ("/skipped", None, []),
                     "price_cache": ("/price_cache", None, []), "sources": ("/sources", None, [])},
    "catalog-validate": {"warnings": ("/warnings", None, []), "tables": ("/tables", None, []),
                         "summary": ("/summary", None, []), "files": ("/files", None, [])},
    "check-env": {"checks": ("/checks", None, []), "environment": ("/environment", None, []),
                  "suggestions": ("/suggestions", None, [])},
    "config-show": {"settings": ("/settings", None, []), "config_file": ("/config_file", None, [])},
    "catalog-update": {"sources": ("/sources", None, []), "not_upstream": ("/not_upstream", None, [])},
    "catalog-import": {"providers": ("/providers", None, []), "ignored": ("/ignored", None, [])},
    "plan": {"pools": ("/pools", None, []), "jobs": ("/pools", "jobs", ["pool"]),
             "assumptions": ("/assumptions", None, [])},
}
SECTIONS["tsv"] = SECTIONS["recommend"]

# command -> cases: (arguments, sections that must have rows, columns that must be there)
CASES = {
    "recommend": [
        (CATALOG + ["recommend", "--model", "bert", "--runs-per-week", "4"],
         ["recommendations", "alternatives", "steps", "workload"], ["currency", "cost_per_month", "parallelism.data"]),
        (CATALOG + ["--currency", "CNY", "recommend", "--model", "bert", "--runs-per-week", "4", "--explain",
                    "--what-if", "runs-per-week=1:40:3"],
         ["recommendations", "steps", "rates", "what_if", "rejected"], ["currency"]),
    ],
    "offers": [
        (CATALOG + ["offers", "--gpu", "A100"], ["offers", "gpus_covered"], ["currency", "on_demand_per_hour"]),
        (CATALOG + ["--currency", "CNY", "offers", "--plan", "reserved"], ["offers", "commitments"], ["converted_currency"]),
    ],
    "compare": [(CATALOG + ["compare", "A100", "V100", "T4"], ["gpus", "queries"], ["cheapest.on_demand.currency"])],
    "estimate": [(CATALOG + ["estimate", "--model", "bert", "--gpu", "A100"], ["estimates", "workload"], ["hours_per_run"]),
                 (CATALOG + ["estimate", "--model", "llama-2-7b", "--task", "lora"], ["estimates"], [])],
    "gpus": [(CATALOG + ["gpus"], ["gpus"], ["memory_gb"]), ([ "gpus"], ["gpus"], [])],
    "models": [(CATALOG + ["models"], ["models"], ["default_job.task"]), (["models"], ["models"], [])],
    "catalog-info": [(CATALOG + ["catalog", "info"], ["providers", "rates", "price_cache", "sources"], ["offers"])],
    "catalog-validate": [(CATALOG + ["catalog", "validate"], ["summary", "files"], [])],
    "check-env": [(CATALOG + ["check-env", "--gpu", "A100", "--pytorch", "1.12+cu102", "--driver", "535.104.05"],
                   ["checks", "environment", "suggestions"], ["ok", "message"])],
    "config-show": [(["config", "show"], ["settings", "config_file"], ["key", "value"])],
    "catalog-update": [(["catalog", "update", "--offline", "--dry-run"], ["sources"], [])],
    "catalog-import": [(["catalog", "import", "skypilot", os.path.join(FROZEN, "skypilot", "delta.csv"),
                         "--as-of", "2026-11-01", "--force", "--output", "{tmp}/imported"], ["providers"], [])],
    "plan": [(CATALOG + ["plan", os.path.join(HERE, "..", "..", "docs", "examples", "jobs-pool.yaml")],
              ["pools", "jobs", "assumptions"], ["pooled.utilisation", "saving_per_month", "currency"])],
    "tsv": [(CATALOG + ["recommend", "--model", "bert", "--runs-per-week", "4", "--explain"],
             ["recommendations", "steps", "rejected"], [])],
}

FAILURES = []


def fail(where, message):
    FAILURES.append(f"{where}: {message}")


def run(binary, args, tmp):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUADVISE_")}
    env.update({"NO_COLOR": "1", "LC_ALL": "C", "GPUADVISE_TODAY": "2026-11-29", "HOME": tmp,
                "GPUADVISE_CACHE_DIR": os.path.join(tmp, "cache"), "GPUADVISE_SKY_DIR": "", "XDG_CONFIG_HOME": tmp})
    args = [a.replace("{tmp}", tmp) for a in args]
    p = subprocess.run([binary] + args, env=env, capture_output=True, timeout=300)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8", "replace")


def pointer(doc, path):
    for token in [t for t in path.split("/") if t]:
        doc = doc[token]
    return doc


def flatten(value, name, row):
    if isinstance(value, dict) and value:
        for k, v in value.items():
            flatten(v, f"{name}.{k}" if name else k, row)
    else:
        row.append((name, value))


def expected_rows(doc, spec):
    path, explode, keep = spec
    items = pointer(doc, path)
    items = items if isinstance(items, list) else ([] if items is None else [items])
    rows = []
    for item in items:
        if explode is None:
            row = []
            flatten(item, "" if isinstance(item, dict) else path.rsplit("/", 1)[-1], row)
            rows.append(row)
            continue
        for element in item.get(explode, []):
            row = []
            for k in keep:
                if k in item:
                    flatten(item[k], k, row)
            flatten(element, explode, row)
            rows.append(row)
    columns = []
    for row in rows:
        for name, _ in row:
            if name not in columns:
                columns.append(name)
    return columns, [dict(r) for r in rows]


def same_as_csv_text(value, text):
    """The csv module's field against the JSON value: every field exactly as docs/json.md says."""
    if value is None:
        return text == ""
    if isinstance(value, bool):
        return text == ("true" if value else "false")
    if isinstance(value, (int, float)):
        try:
            return float(text) == float(value) and (not isinstance(value, int) or text == str(value))
        except ValueError:
            return False
    if isinstance(value, str):
        return text == value
    return text != "" and json.loads(text) == value  # arrays, and {} as its JSON text


def same_as_pandas(value, cell):
    """pandas' value against the JSON value: the same value, whatever type pandas inferred."""
    missing = cell is None or (isinstance(cell, float) and math.isnan(cell))
    if value is None or value == "":
        return missing
    if missing:
        return False
    if isinstance(value, bool):
        return cell is value or cell == value or str(cell) == ("true" if value else "false")
    if isinstance(value, (int, float)):
        return float(cell) == float(value)
    if isinstance(value, str):
        if isinstance(cell, str):
            return cell == value
        try:  # "8.0" (a compute capability) in a column pandas read as numbers
            return float(value) == float(cell)
        except ValueError:
            return False
    return json.loads(str(cell)) == value


NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def formula_leading(text):
    """docs/json.md: a text cell starting = + - @ tab CR that is not a plain number or "-"."""
    if text == "" or text[0] not in "=+-@\t\r" or text == "-":
        return False
    return not NUMBER.fullmatch(text[1:] if text[0] == "+" else text)


def cells(out, kind):
    if kind == "csv":
        return list(csv.reader(io.StringIO(out, newline="")))
    return [[tsv_unescape(f) for f in line.split("\t")] for line in out.split("\n")[:-1]]


def neutralised(raw, safe, kind):
    """The default output is --csv-raw's with a ' before each formula-leading text cell, nothing else."""
    return cells(safe, kind) == [["'" + f if formula_leading(f) else f for f in line] for line in cells(raw, kind)]


def tsv_unescape(text):
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}.get(text[i + 1], "\\" + text[i + 1]))
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def check(binary, command, args, must_have_rows, must_have_columns, tmp, pd):
    kind = "tsv" if command == "tsv" else "csv"
    rc_json, out_json, err_json = run(binary, ["--format", "json"] + args, tmp)
    if rc_json not in (0, 3):
        fail(" ".join(args), f"--format json exit {rc_json}: {err_json}")
        return
    doc = json.loads(out_json)
    for section, spec in SECTIONS[command].items():
        where = f"{' '.join(args)} --format {kind} --section {section}"
        try:
            columns, rows = expected_rows(doc, spec)
        except KeyError:
            rc, out, err = run(binary, ["--format", kind, "--section", section] + args, tmp)
            if rc != 2 or "--section" not in err:
                fail(where, f"no such section in the JSON, expected a usage error (exit 2), got {rc}: {err}")
            continue
        # --csv-raw: every text cell exactly as in JSON; by default a formula-leading text cell gets a '.
        rc, out, err = run(binary, ["--format", kind, "--csv-raw", "--section", section] + args, tmp)
        if rc != rc_json:
            fail(where, f"exit {rc}, --format json exits {rc_json}: {err}")
            continue
        rc_safe, out_safe, _ = run(binary, ["--format", kind, "--section", section] + args, tmp)
        if rc_safe != rc or not neutralised(out, out_safe, kind):
            fail(where, "the default output is not --csv-raw's with a ' before each formula-leading text cell")
        if section in must_have_rows and not rows:
            fail(where, "the JSON has no rows here: the case does not test this section")
        if not rows:
            if out != "":
                fail(where, f"no items, expected no output, got {out!r}")
            continue
        for col in must_have_columns if section == must_have_rows[0] else []:
            if col not in columns:
                fail(where, f"no column {col!r} (columns: {columns})")
        if kind == "csv":
            if not out.endswith("\r\n"):
                fail(where, "rows do not end with CRLF (RFC 4180)")
            table = list(csv.reader(io.StringIO(out, newline="")))
        else:
            if "\r" in out or '"' in out.splitlines()[0]:
                fail(where, "a TSV has no carriage returns and no quoting")
            table = [[tsv_unescape(f) for f in line.split("\t")] for line in out.split("\n")[:-1]]
        if table[0] != columns:
            fail(where, f"header {table[0]} != {columns}")
            continue
        if len(table) - 1 != len(rows):
            fail(where, f"{len(table) - 1} rows, the JSON has {len(rows)}")
            continue
        for i, (line, row) in enumerate(zip(table[1:], rows)):
            if len(line) != len(columns):
                fail(where, f"row {i + 1} has {len(line)} fields, the header {len(columns)}")
                continue
            for name, text in zip(columns, line):
                if not same_as_csv_text(row.get(name), text):
                    fail(where, f"row {i + 1} column {name}: {text!r} != JSON {row.get(name)!r}")
        if pd is None:
            continue
        if kind == "csv":
            frame = pd.read_csv(io.StringIO(out), keep_default_na=False, na_values=[""], float_precision="round_trip")
        else:
            frame = pd.read_csv(io.StringIO(out), sep="\t", quoting=csv.QUOTE_NONE, keep_default_na=False, na_values=[""],
                                float_precision="round_trip")
        if list(frame.columns) != columns or len(frame) != len(rows):
            fail(where, f"pandas reads {list(frame.columns)} x {len(frame)}, the JSON has {columns} x {len(rows)}")
            continue
        for i, row in enumerate(rows):
            for name in columns:
                cell = frame[name].iloc[i]
                value = row.get(name)
                if kind == "tsv" and isinstance(value, str) and isinstance(cell, str):
                    cell = tsv_unescape(cell)
                if not same_as_pandas(value, cell.item() if hasattr(cell, "item") else cell):
                    fail(where, f"pandas row {i + 1} column {name}: {cell!r} != JSON {value!r}")


def main():
    binary, command = sys.argv[1], sys.argv[2]
    try:
        import pandas as pd
    except ImportError:
        pd = None
        # CMake may have found another python3 first (pyenv, a venv); Debian's python3-pandas is in /usr/bin/python3.
        system = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(system) and os.path.exists(system) and \
                subprocess.run([system, "-c", "import pandas"], capture_output=True).returncode == 0:
            os.execv(system, [system] + sys.argv)
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "cache"))
        for args, must_have_rows, must_have_columns in CASES[command]:
            check(binary, command, args, must_have_rows, must_have_columns, tmp, pd)
        # The currency column follows --currency.
        if command == "recommend":
            _, out, _ = run(binary, ["--format", "csv"] + CASES[command][1][0], tmp)
            rows = list(csv.DictReader(io.StringIO(out, newline="")))
            if not rows or any(r["currency"] != "CNY" for r in rows):
                fail("recommend --currency CNY --format csv", "the currency column is not CNY")
    for f in FAILURES:
        print("FAIL", f)
    if FAILURES:
        return 1
    if pd is None:
        print("SKIP: python3-pandas is not installed, so the pandas half did not run (the csv-module checks passed); "
              "apt-get install python3-pandas, or ./dev test, which installs it")
        return 77
    print(f"ok: {command}: {sum(len(c[1]) for c in CASES[command])} sections with rows, csv module and pandas agree with the JSON")
    return 0


if __name__ == "__main__":
    sys.exit(main())
