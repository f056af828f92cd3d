#!/usr/bin/env python3
"""recommend --emit skypilot|dstack (issue #30) on the frozen catalog and its launchers.yaml layer.

For the picks of a single GPU, an 8-GPU node, a multi-node layout, a spot plan, a reserved plan and an
online service, each emitted file must parse as YAML and match tests/launch/schema.yaml (written from the
launchers' documented task formats; the sources are named there), and carry what the pick says (nodes,
spot, replicas, the layout's variables). A provider a launcher does not support exits 3 with a message
and writes nothing; -o over an existing file without --force is refused and leaves the file as it was;
with --force it is replaced; without -o the report is not printed (stdout is the file).

usage: test_launchers.py BINARY
"""
import os
import re
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:  # python3-yaml (./dev setup installs it)
    print("skipped: PyYAML (python3-yaml) is not installed")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
FROZEN = os.path.join(HERE, "..", "fixtures", "frozen")
CATALOG = ["--no-default-catalog"] + [a for f in ("catalog.yaml", "models.yaml", "compat.yaml", "launchers.yaml")
                                      for a in ("--catalog", os.path.join(FROZEN, f))]

failures = []


def run(binary, args, cwd=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUADVISE_")}
    env.update({"NO_COLOR": "1", "LC_ALL": "C", "GPUADVISE_TODAY": "2026-11-29", "COLUMNS": "100",
                "GPUADVISE_CACHE_DIR": os.path.join(tempfile.gettempdir(), "gpuadvise-launch-no-cache"),
                "GPUADVISE_SKY_DIR": ""})
    return subprocess.run([binary] + CATALOG + args, capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def typed(value, kind):
    return {"str": isinstance(value, str), "int": isinstance(value, int) and not isinstance(value, bool),
            "bool": isinstance(value, bool), "map": isinstance(value, dict), "list": isinstance(value, list)}[kind]


def against(doc, rules, where):
    """Checks one mapping against a schema block: required keys, known keys, types, patterns."""
    if not check(isinstance(doc, dict), f"{where}: not a mapping"):
        return
    for key in rules.get("required", []):
        check(key in doc, f"{where}: missing {key}")
    for key, value in doc.items():
        kind = rules["keys"].get(key)
        if not check(kind is not None, f"{where}: key {key} is not in the launcher's documented format"):
            continue
        check(typed(value, kind), f"{where}.{key}: {value!r} is not {kind}")
        pattern = rules.get("patterns", {}).get(key)
        if pattern:
            check(re.fullmatch(pattern, str(value)) is not None, f"{where}.{key}: {value!r} does not match {pattern}")


def skypilot(doc, schema, case):
    s = schema["skypilot"]
    against(doc, s, case)
    against(doc.get("resources"), s["resources"], case + ".resources")
    if "service" in doc:
        against(doc["service"], s["service"], case + ".service")
        against(doc["service"].get("readiness_probe"), s["readiness_probe"], case + ".service.readiness_probe")
    for key in ("setup", "run"):
        lines = [line for line in doc.get(key, "").splitlines() if line.strip()]
        check(lines and all(line.lstrip().startswith("#") for line in lines),
              f"{case}.{key}: not a placeholder of comments only: {doc.get(key)!r}")
        check("FILL IN" in doc.get(key, ""), f"{case}.{key}: not marked FILL IN")


def dstack(doc, schema, case):
    s = schema["dstack"]
    against(doc, s, case)
    against(doc.get("resources"), s["resources"], case + ".resources")
    for item in doc.get("env", []):
        check(re.fullmatch(s["env_pattern"], item) is not None, f"{case}.env: {item!r}")
    check(all(str(c).startswith("# FILL IN") for c in doc.get("commands", [])), f"{case}.commands: not placeholders")


def envs_of(doc, launcher):
    if launcher == "skypilot":
        return {k: str(v) for k, v in doc.get("envs", {}).items()}
    return dict(item.split("=", 1) for item in doc.get("env", []))


# name: (recommend arguments, what the pick must show)
CASES = {
    "single": (["recommend", "--model", "resnet50", "--provider", "aws"],
               {"gpus": 1, "nodes": 1, "spot": False}),
    "node8": (["recommend", "--model", "llama-2-13b", "--task", "finetune", "--provider", "aws", "--dataset-gb", "900"],
              {"gpus": 8, "nodes": 1, "spot": False, "disk": 900}),
    "multinode": (["recommend", "--model", "llama-2-70b", "--task", "finetune", "--provider", "aws", "--nodes", "2"],
                  {"gpus": 8, "nodes": 2, "spot": False}),
    "spot": (["recommend", "--model", "resnet50", "--provider", "aws", "--interruptible", "--plan", "spot"],
             {"gpus": 1, "nodes": 1, "spot": True}),
    "reserved": (["recommend", "--model", "llama-2-70b", "--task", "finetune", "--provider", "aws", "--plan",
                  "reserved", "--runs-per-week", "20"],
                 {"gpus": 8, "spot": False, "commitment": True}),
    "serve": (["recommend", "--model", "llama-3-8b", "--task", "serve", "--requests-per-day", "10000", "--provider",
               "aws", "--gpu", "A100", "--plan", "on-demand"],
              {"service": True, "spot": False}),
}


def main():
    binary = os.path.abspath(sys.argv[1])
    with open(os.path.join(HERE, "schema.yaml"), encoding="utf-8") as f:
        schema = yaml.safe_load(f)
    for case, (args, want) in CASES.items():
        for launcher in ("skypilot", "dstack"):
            name = f"{case}/{launcher}"
            proc = run(binary, args + ["--emit", launcher])
            if not check(proc.returncode == 0, f"{name}: exit {proc.returncode}: {proc.stderr}"):
                continue
            try:
                doc = yaml.safe_load(proc.stdout)
            except yaml.YAMLError as e:
                check(False, f"{name}: not YAML: {e}")
                continue
            (skypilot if launcher == "skypilot" else dstack)(doc, schema, name)
            header = [line for line in proc.stdout.splitlines() if line.startswith("#")]
            text = "\n".join(header)
            for word in ("Estimate:", " h a run" if not want.get("service") else " a month", "as of 2026-11-01",
                         "Command: gpuadvise ", "--emit " + launcher):
                check(word in text, f"{name}: header lacks {word!r}:\n{text}")
            check(("commitment bought from aws outside" in text) == bool(want.get("commitment")),
                  f"{name}: commitment line {'missing' if want.get('commitment') else 'unexpected'}")
            envs = envs_of(doc, launcher)
            check(all(k in envs for k in ("TP", "PP", "DP", "MICRO_BATCH")), f"{name}: layout variables {envs}")
            if launcher == "skypilot":
                res = doc["resources"]
                check(res.get("cloud") == "aws" and res.get("region") == "us-east-1" and "instance_type" in res,
                      f"{name}: cloud/region/instance_type {res}")
                count = int(res["accelerators"].split(":")[1])
                nodes = doc.get("num_nodes", 1)
                spot = res["use_spot"]
                replicas = doc.get("service", {}).get("replicas")
                disk = res.get("disk_size")
            else:
                check(doc["backends"] == ["aws"] and doc.get("regions") == ["us-east-1"], f"{name}: backends/regions")
                count = int(doc["resources"]["gpu"].split(":")[2])
                nodes = doc.get("nodes", 1)
                spot = doc["spot_policy"] == "spot"
                replicas = doc.get("replicas") if doc["type"] == "service" else None
                disk = doc["resources"].get("disk")
                disk = int(disk[:-2]) if disk else None
                check(doc["type"] == ("service" if want.get("service") else "task"), f"{name}: type {doc['type']}")
            if "gpus" in want:
                check(count == want["gpus"], f"{name}: {count} GPUs a node, expected {want['gpus']}")
            if "nodes" in want:
                check(nodes == want["nodes"], f"{name}: {nodes} nodes, expected {want['nodes']}")
            check(spot == want["spot"], f"{name}: spot {spot}")
            check((replicas is not None) == bool(want.get("service")), f"{name}: replicas {replicas}")
            if want.get("service"):
                check(isinstance(replicas, int) and replicas >= 1, f"{name}: replicas {replicas}")
            if "disk" in want:
                check(disk == want["disk"], f"{name}: disk {disk}, expected {want['disk']}")

    # A provider a launcher cannot run: exit 3, a message naming it, nothing on stdout.
    for launcher in ("skypilot", "dstack"):
        proc = run(binary, ["recommend", "--model", "resnet50", "--provider", "alpha-cloud", "--emit", launcher])
        check(proc.returncode == 3 and "alpha-cloud" in proc.stderr and proc.stdout == "",
              f"unsupported/{launcher}: exit {proc.returncode}, stderr {proc.stderr!r}, stdout {proc.stdout[:200]!r}")

    # A service whose replica would span instances: exit 3, nothing written (neither format describes it).
    for launcher in ("skypilot", "dstack"):
        proc = run(binary, ["recommend", "--model", "llama-3-8b", "--task", "serve", "--requests-per-day", "10000",
                            "--provider", "aws", "--gpu", "T4", "--emit", launcher])
        check(proc.returncode == 3 and "spans 2 instances" in proc.stderr and proc.stdout == "",
              f"serve across instances/{launcher}: exit {proc.returncode}, {proc.stderr!r}")

    # -o: never over an existing file without --force; with it, the file is replaced; the report follows.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "task.yaml")
        base = ["recommend", "--model", "resnet50", "--provider", "aws", "--emit", "skypilot", "-o", path]
        proc = run(binary, base)
        check(proc.returncode == 0 and os.path.exists(path), f"-o new file: exit {proc.returncode} {proc.stderr}")
        check(proc.stdout.startswith("Answer: rent ") and "Workload: resnet50" in proc.stdout,
              "-o: the report is not printed on stdout")
        with open(path, encoding="utf-8") as f:
            check(yaml.safe_load(f)["resources"]["cloud"] == "aws", "-o: the file is not the task")
        with open(path, "w", encoding="utf-8") as f:
            f.write("keep me\n")
        proc = run(binary, base)
        check(proc.returncode == 2 and "--force" in proc.stderr, f"-o existing: exit {proc.returncode} {proc.stderr}")
        with open(path, encoding="utf-8") as f:
            check(f.read() == "keep me\n", "-o existing without --force: the file was changed")
        check(sorted(os.listdir(tmp)) == ["task.yaml"], f"-o existing: leftovers {os.listdir(tmp)}")
        proc = run(binary, base + ["--force"])
        with open(path, encoding="utf-8") as f:
            check(proc.returncode == 0 and "resources" in yaml.safe_load(f), f"--force: exit {proc.returncode}")
        check(sorted(os.listdir(tmp)) == ["task.yaml"], f"--force: leftovers {os.listdir(tmp)}")
        # Unsupported with -o: nothing written.
        other = os.path.join(tmp, "none.yaml")
        proc = run(binary, ["recommend", "--model", "resnet50", "--provider", "alpha-cloud", "--emit", "dstack",
                            "-o", other])
        check(proc.returncode == 3 and not os.path.exists(other), f"unsupported -o: exit {proc.returncode}")

    # Options that need --emit; a --pick beyond the list.
    for extra in (["--pick", "2"], ["-o", "x.yaml"], ["--force"]):
        proc = run(binary, ["recommend", "--model", "resnet50", "--provider", "aws"] + extra)
        check(proc.returncode == 2 and "--emit" in proc.stderr, f"{extra} without --emit: exit {proc.returncode}")
    proc = run(binary, ["recommend", "--model", "resnet50", "--provider", "aws", "--top", "2", "--emit", "dstack",
                        "--pick", "3"])
    check(proc.returncode == 2 and "--pick 3" in proc.stderr, f"--pick 3 of 2: exit {proc.returncode} {proc.stderr}")

    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
