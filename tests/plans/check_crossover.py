#!/usr/bin/env python3
"""One crossover (issue #28): for several jobs and providers on the frozen test catalog, and for the
issue's resnet50/GCP job on the built-in one, the runs a week above which step 2 says a commitment wins
(its text, its finding's numbers, plan_crossover and the winning row's crossover_runs_per_week) is where
`recommend --what-if runs-per-week=FROM:TO:STEP` flips from on-demand (or spot) to reserved, within one
step of the grid.

usage: check_crossover.py BINARY
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FROZEN = os.path.join(HERE, "..", "fixtures", "frozen")
FROZEN_ARGS = ["--no-default-catalog", "--catalog", os.path.join(FROZEN, "catalog.yaml"),
               "--catalog", os.path.join(FROZEN, "models.yaml"), "--catalog", os.path.join(FROZEN, "compat.yaml")]

# (catalog args, recommend args, what-if grid FROM, TO, STEP)
CASES = [
    ([], ["--model", "resnet50", "--hours-per-run", "8", "--measured-on", "V100", "--provider", "gcp",
          "--runs-per-week", "1"], 1, 40, 1),
    (FROZEN_ARGS, ["--model", "resnet50", "--runs-per-week", "1"], 0.5, 20, 0.5),
    (FROZEN_ARGS, ["--model", "resnet50", "--provider", "alpha-cloud"], 1, 40, 1),
    (FROZEN_ARGS, ["--model", "resnet50", "--provider", "gamma-compute"], 1, 60, 1),
    (FROZEN_ARGS, ["--model", "llama-2-70b", "--task", "qlora"], 0.5, 40, 0.5),
    (FROZEN_ARGS, ["--model", "llama-2-7b", "--task", "lora", "--provider", "alpha-cloud"], 1, 200, 1),
    (FROZEN_ARGS, ["--model", "bert-large", "--provider", "beta-gpu", "--runs-per-week", "3"], 1, 300, 1),
]


def run(args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUADVISE_")}
    env.update({"NO_COLOR": "1", "LC_ALL": "C", "GPUADVISE_TODAY": "2026-11-29", "COLUMNS": "300",
                "GPUADVISE_CACHE_DIR": os.path.join(HERE, ".no-cache"), "GPUADVISE_SKY_DIR": ""})
    p = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def main():
    binary = sys.argv[1]
    failures, checked = [], 0
    for catalog, args, lo, hi, step in CASES:
        name = " ".join(args)
        base = [binary] + catalog + ["recommend"] + args
        what_if = json.loads(run(base + ["--what-if", f"runs-per-week={lo}:{hi}:{step}", "--json"]))
        flips = [x["runs_per_week"] for x in what_if["what_if_crossovers"] if x["to"] == "reserved"]
        doc = json.loads(run(base + ["--json"]))
        text = run(base + ["--explain"])  # the full step table (one line a step by default)
        x = doc["plan_crossover"]
        if not flips:
            failures.append(f"{name}: the what-if grid {lo}:{hi}:{step} shows no flip to reserved (a case to fix)")
            continue
        flip = flips[0]
        if x is None or x["crossover_runs_per_week"] is None:
            failures.append(f"{name}: what-if flips at {flip} but plan_crossover says none")
            continue
        step2 = [f for s in doc["analysis"]["steps"] if s["step"] == "2" for f in s["findings"]
                 if f["rule"] == "2.crossover"]
        finding = step2[0]["numbers"]["crossover_runs_per_week"] if step2 else None
        m = re.search(r"above ([0-9.]+) runs a week of this job", re.sub(r"\s+", " ", text))
        said = float(m.group(1)) if m else None
        row = next((r for r in doc["recommendations"]
                    if (r["provider"], r["gpu"], r["instance_type"], r["region"]) ==
                    (x["provider"], x["gpu"], x["instance_type"], x["region"])), None)
        figures = {"plan_crossover": x["crossover_runs_per_week"], "2.crossover numbers": finding,
                   "step 2 text": said}
        if row is not None:
            figures["recommendations[] row"] = row["crossover_runs_per_week"]
        for where, value in figures.items():
            checked += 1
            if value is None or abs(value - flip) > step:
                failures.append(f"{name}: {where} says {value} runs a week, the what-if flips at {flip} "
                                f"(grid step {step})")
        if said is not None and abs(said - x["crossover_runs_per_week"]) > 0.05 + 1e-9:
            failures.append(f"{name}: the text says {said}, the JSON {x['crossover_runs_per_week']}")
        own = x.get("own_crossover_runs_per_week")
        if own is not None and x["against"] and (x["against"]["instance_type"], x["against"]["region"]) != (
                x["instance_type"], x["region"]) and abs(own - x["crossover_runs_per_week"]) > 0.05:
            if "against its own machine on demand" not in re.sub(r"\s+", " ", text):
                failures.append(f"{name}: the commitment's own crossover {own} differs but is not labelled")
    for f in failures:
        print("FAIL:", f)
    print(f"crossover: {len(CASES)} jobs, {checked} figures checked, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
