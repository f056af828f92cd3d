#!/usr/bin/env python3
"""recommend --task serve on the frozen catalog (issue #26's "Done when" lines).

Usage: test_service.py GPUADVISE
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from frozen_catalog import run  # noqa: E402  (tests/frozen_catalog.py: the frozen catalog, the pinned environment)

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def main(binary):
    base = ["recommend", "--model", "llama-3-8b", "--task", "serve", "--requests-per-day", "10000"]
    # 1. At least one always-on replica a month; replicas, concurrency, latency named; no training wording.
    text = run(binary, *base)
    check(text.returncode == 0, f"serve: exit {text.returncode}: {text.stderr}")
    for word in ("samples x", "epochs", "batch size", "sequence length", "per run", "runs/month"):
        check(word not in text.stdout, f"serve: training wording '{word}' in the output")
    for word in ("REPLICAS", "CONC", "TTFT", "TPOT", "an online service up 24 h a day"):
        check(word in text.stdout, f"serve: '{word}' missing from the output")
    out = run(binary, *base, "--json")
    d = json.loads(out.stdout)
    check(d["workload"]["inference_mode"] == "serve", "serve: workload.inference_mode")
    for c in d["recommendations"]:
        s = c["serving"]
        for key in ("replicas", "concurrency_per_replica", "peak_rps", "ttft_s", "tpot_s", "utilisation",
                    "cost_per_month", "cost_per_million_tokens", "engine"):
            check(key in s and s[key] is not None, f"serve: serving.{key} missing in #{c['rank']}")
        always_on = 730 * c["price_per_hour"] * c["instances"]
        check(c["plan"] == "reserved" or c["cost_per_month"] >= always_on - 0.01,
              f"serve: #{c['rank']} costs {c['cost_per_month']} a month, under 730 h x its price ({always_on})")
        check(s["ttft_s"] <= 2.0 and s["tpot_s"] <= 0.2, f"serve: #{c['rank']} misses the default targets")
        check(s["replicas"] >= 1 and s["utilisation"] <= 1.0, f"serve: #{c['rank']} replicas/utilisation")
    # 2. At 10x and 100x the traffic: more replicas, a lower cost per million tokens (--what-if).
    w = json.loads(run(binary, *base, "--what-if", "requests-per-day=10k:1M", "--json").stdout)["what_if"]
    at = {p["requests_per_day"]: p["best"] for p in w}
    check(all(x in at for x in (1e4, 1e5, 1e6)), f"what-if points: {sorted(at)}")
    if all(x in at for x in (1e4, 1e5, 1e6)):
        gpus = [at[x]["gpu_count"] * 1.0 for x in (1e4, 1e5, 1e6)]
        replicas = [at[x]["replicas"] for x in (1e4, 1e5, 1e6)]
        per_m = [at[x]["cost_per_million_tokens"] for x in (1e4, 1e5, 1e6)]
        check(replicas[2] > replicas[0] or gpus[2] > gpus[0], f"what-if: replicas {replicas}, GPUs {gpus}")
        check(per_m[0] > per_m[1] > per_m[2], f"what-if: cost per million tokens {per_m} does not fall")
    # 3. batch-inference keeps the throughput pricing, without latency targets.
    b = run(binary, "recommend", "--model", "llama-3-8b", "--task", "batch-inference", "--tokens-per-month",
            "500M", "--json")
    check(b.returncode == 0, f"batch-inference: exit {b.returncode}: {b.stderr}")
    if b.returncode == 0:
        bd = json.loads(b.stdout)
        check(bd["workload"]["inference_mode"] == "batch-inference", "batch-inference: inference_mode")
        top = bd["recommendations"][0]
        check("replicas" not in top["serving"] and "ttft_s" not in top["serving"],
              "batch-inference: service keys in serving")
        check(top["hours_per_run"] < 24, f"batch-inference: {top['hours_per_run']} h a run (billed as a service?)")
        check(not any("latency targets" in a for a in bd["workload"]["assumptions"]),
              "batch-inference: latency targets assumed")
    # 4. A target no offer meets: exit 3 naming the nearest miss.
    m = run(binary, *base, "--tpot-ms", "1")
    check(m.returncode == 3, f"unmeetable target: exit {m.returncode}")
    check("best TPOT" in m.stdout + m.stderr and "against 1 ms" in m.stdout + m.stderr,
          f"unmeetable target: no nearest miss named: {m.stdout[-400:]} {m.stderr}")
    # 5. serve needs traffic; a non-LLM cannot be served as a service.
    check(run(binary, "recommend", "--model", "llama-3-8b", "--task", "serve").returncode == 2, "serve without traffic")
    check(run(binary, "recommend", "--model", "bert", "--task", "serve", "--requests-per-day", "1k").returncode == 2,
          "serve of bert")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
