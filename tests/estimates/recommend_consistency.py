#!/usr/bin/env python3
"""Price and time come from one configuration: for the top 10 of several recommend scenarios,
`estimate` with the same GPU, instances (--nodes), GPUs per instance (--gpus), network and layout
gives the same hours per run (within 1 %), and the configuration's counts agree
(instances x GPUs per instance = total GPUs = data x tensor x pipeline).

usage: recommend_consistency.py GPUADVISE
"""
import json
import subprocess
import sys

SCENARIOS = [
    ["--model", "gpt2", "--nodes", "2"],
    ["--model", "llama-2-13b", "--zero", "3"],
    ["--model", "llama-2-13b"],
    ["--model", "bert", "--runs-per-week", "4"],
    ["--model", "llama-2-70b", "--task", "finetune"],
    ["--model", "resnet50", "--nodes", "2"],
    ["--model", "llama-2-7b", "--task", "inference", "--tokens-per-month", "1e9"],
]
# Options of a scenario that describe the job (passed to estimate too); the rest are recommend's.
RECOMMEND_ONLY = {"--nodes": 1, "--runs-per-week": 1, "--tokens-per-month": 1, "--requests-per-day": 1}


def run(exe, args):
    p = subprocess.run([exe] + args, capture_output=True, text=True)
    if p.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p.returncode, json.loads(p.stdout)


def job_args(scenario):
    out, i = [], 0
    while i < len(scenario):
        if scenario[i] in RECOMMEND_ONLY:
            i += 1 + RECOMMEND_ONLY[scenario[i]]
            continue
        out.append(scenario[i])
        i += 1
    return out


def main():
    exe = sys.argv[1]
    failures, checked = [], 0
    for scenario in SCENARIOS:
        code, rec = run(exe, ["recommend", *scenario, "--top", "10", "--json"])
        if code != 0 or not rec["recommendations"]:
            failures.append(f"recommend {' '.join(scenario)}: no recommendation")
            continue
        for c in rec["recommendations"]:
            lay = c["parallelism"]
            where = f"recommend {' '.join(scenario)} #{c['rank']} {c['provider']} {c['gpu']} x{c['gpu_count']}"
            if (c["instances"] != lay["nodes"] or lay["gpus_per_node"] != c["gpus_per_instance"]
                    or c["gpu_count"] != lay["nodes"] * lay["gpus_per_node"]):
                failures.append(f"{where}: instances/nodes/GPUs disagree: {c['instances']} {lay}")
            if lay["data"] * lay["tensor"] * lay["pipeline"] != c["gpu_count"]:
                failures.append(f"{where}: layout {lay} does not cover {c['gpu_count']} GPUs")
            args = ["estimate", *job_args(scenario), "--gpu", c["gpu"], "--gpus", str(lay["gpus_per_node"]),
                    "--nodes", str(lay["nodes"]), "--tp", str(lay["tensor"]), "--json"]
            if c.get("serving") is None:
                args += ["--pp", str(lay["pipeline"]), "--micro-batch", str(lay["micro_batch"]),
                         "--grad-checkpointing" if lay["activation_checkpointing"] else "--no-grad-checkpointing"]
                if "--zero" not in scenario:
                    args += ["--zero", str(lay["zero_stage"])]
            if c["network_gbps"]:
                args += ["--network-gbps", str(c["network_gbps"])]
            _, est = run(exe, args)
            e = est["estimates"][0]
            checked += 1
            if e["parallelism"] != lay:
                failures.append(f"{where}: estimate chose {e['parallelism']}, recommend {lay}")
            rh, eh = c["job_hours_per_run"], e["hours_per_run"]
            if not (eh and abs(eh - rh) <= 0.01 * rh + 1e-6):
                failures.append(f"{where}: recommend {rh} h per run, estimate {eh} h ({' '.join(args)})")
    for f in failures:
        print("FAIL", f)
    print(f"{checked} recommendations checked against estimate, {len(failures)} failures")
    return 1 if failures or checked < 30 else 0


if __name__ == "__main__":
    sys.exit(main())
