#!/usr/bin/env python3
"""Pins the serving model to published measurements (tests/serving/calibration.csv).

For each row, runs `gpuadvise estimate --task batch-inference` with the row's engine, GPU, model,
weights, lengths and concurrency ("memory": as many sequences as the KV cache holds, as an
offline-throughput benchmark runs), and compares the predicted figure with the published one.
Fails when any row is off by more than its tolerance (the row's `tolerance` column, a factor;
default 1.5) or when the geometric mean of an engine's steady-state rows is off by more than 1.25. Prints the table docs/methodology.md shows.
Usage: check_calibration.py GPUADVISE [CSV] [--tolerance X] [--markdown]
"""
import csv
import json
import math
import os
import subprocess
import sys

# Models without a preset, as shape flags (from their Hugging Face config.json).
SHAPES = {
    # Qwen/Qwen3-14B config.json: 40 layers, hidden 5120, 40 heads, 8 KV heads of 128, MLP 17408.
    "qwen3-14b": ["--layers", "40", "--hidden", "5120", "--heads", "40", "--kv-heads", "8", "--head-dim",
                  "128", "--ffn", "17408", "--vocab", "151936"],
}


def predict(binary, row):
    cmd = [binary, "estimate", "--json", "--task", "batch-inference", "--engine", row["engine"], "--gpu",
           row["gpu"], "--gpus", row["count"], "--tp", row["count"], "--prompt-len", row["prompt"],
           "--output-len", row["output"], "--weights", row["weights"]]
    cmd += SHAPES.get(row["model"], ["--model", row["model"]])
    if row["weights"] == "fp8":
        cmd += ["--precision", "fp8", "--kv-cache", "fp8"]
    if row["concurrency"] != "memory":
        cmd += ["--concurrency", row["concurrency"]]
    out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    if out.returncode != 0:
        raise SystemExit(f"{row['id']}: {' '.join(cmd)} failed: {out.stderr}")
    s = json.loads(out.stdout)["estimates"][0]["serving"]
    if row["metric"] == "tokens_per_s":
        return s["tokens_per_s"]
    if row["metric"] == "tpot_ms":
        return 1000 * s["time_per_output_token_s"]
    if row["metric"] == "ttft_ms":
        return 1000 * s["time_to_first_token_s"]
    raise SystemExit(f"{row['id']}: unknown metric {row['metric']}")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    tol = 1.5
    if "--tolerance" in sys.argv:
        tol = float(sys.argv[sys.argv.index("--tolerance") + 1])
        args = [a for a in args if a != sys.argv[sys.argv.index("--tolerance") + 1]]
    binary = args[0]
    path = args[1] if len(args) > 1 else os.path.join(os.path.dirname(__file__), "calibration.csv")
    rows = list(csv.DictReader(open(path)))
    failures = []
    by_engine = {}
    lines = ["| id | engine | GPU x N | model | weights | prompt/output | concurrency | metric | published | "
             "model | ratio |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        got = predict(binary, row)
        want = float(row["published"])
        # A throughput ratio above 1 is optimistic; a latency ratio below 1 is.
        ratio = got / want
        if float(row.get("tolerance") or tol) <= tol:  # steady-state rows set the engines' means
            by_engine.setdefault(row["engine"], []).append(math.log(ratio))
        lines.append(f"| {row['id']} | {row['engine']} {row['version']} | {row['gpu']} x{row['count']} | "
                     f"{row['model']} | {row['weights']} | {row['prompt']}/{row['output']} | "
                     f"{row['concurrency']} | {row['metric']} | {want:g} | {got:.4g} | {ratio:.2f} |")
        row_tol = float(row.get("tolerance") or tol)
        if abs(math.log(ratio)) > math.log(row_tol):
            failures.append(f"{row['id']}: predicted {got:.4g}, published {want:g} (ratio {ratio:.2f}, "
                            f"tolerance {row_tol}x)")
    print("\n".join(lines))
    all_logs = [x for v in by_engine.values() for x in v]
    print(f"\nsteady-state {len(all_logs)} points: median |ratio| "
          f"{math.exp(sorted(abs(x) for x in all_logs)[len(all_logs) // 2]):.2f}x; "
          f"within 1.25x: {sum(abs(x) <= math.log(1.25) for x in all_logs)}; "
          f"within 1.5x: {sum(abs(x) <= math.log(1.5) for x in all_logs)}")
    for engine, logs in sorted(by_engine.items()):
        gm = math.exp(sum(logs) / len(logs))
        print(f"{engine}: {len(logs)} points, geometric mean ratio {gm:.2f}")
        if abs(math.log(gm)) > math.log(1.25):
            failures.append(f"{engine}: geometric mean ratio {gm:.2f} is off by more than 1.25x")
    if failures:
        print("\n".join(["FAILED:"] + failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
