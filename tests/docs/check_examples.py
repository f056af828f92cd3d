#!/usr/bin/env python3
"""Every example command line runs on the shipped catalog (issue #28).

usage: check_examples.py BINARY SOURCE_DIR

Collects every `gpuadvise …` line of the code blocks of docs/*.md and README.md (a `$ ` prompt and `\\` continuation
lines allowed) and every line under "Examples:" in the --help of every command, and runs each with the
built-in catalog. An example must exit 0, unless its own comment says which code it shows
(`# not compatible (exit 3)`): then it must exit with that code. A line that cannot run here is in
SKIPPED below with its reason (a synopsis, the network, this machine's GPU), and must still be found, so
that the list stays true.

How a line runs: no shell. The command is what comes before a pipe or a redirection (`| jq …`,
`> report.html`: gpuadvise's output is discarded instead), `gpuadvise …` (the docs' "with your catalog
options") runs without them, `~` is a scratch home directory holding a SkyPilot tree
(~/skypilot-catalog/catalogs/v9/<cloud>/vms.csv, from data/skypilot/), and the working directory is a
fresh scratch one for each line, in which `docs/` and `tests/` are the repository's and every file of docs/examples/ is
present by its name (`plan jobs.yaml`, `--catalog lab.yaml`).
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

# Lines found but not run, each with the reason (matched exactly, after joining continuation lines).
SKIPPED = {
    "gpuadvise catalog update": "downloads from the internet (tests/update runs catalog update against a local server)",
    "gpuadvise catalog update aws lambda --dry-run": "downloads from the internet (tests/update runs --dry-run "
                                                     "against a local server)",
    "gpuadvise check-env": "probes this machine: exit 0 needs an NVIDIA GPU with PyTorch installed",
}
SYNOPSIS = re.compile(r"\[[A-Z-]")  # `gpuadvise [GLOBAL OPTIONS] COMMAND`, `check-env [--gpu NAME]`


def doc_lines(source):
    """(where, line) of every gpuadvise command line in a code block of docs/*.md and README.md."""
    found = []
    for path in sorted(glob.glob(os.path.join(source, "docs", "*.md"))) + [os.path.join(source, "README.md")]:
        in_block = False
        pending, start = None, 0
        with open(path, encoding="utf-8") as f:
            for number, raw in enumerate(f, 1):
                line = raw.rstrip("\n")
                if line.lstrip().startswith("```"):
                    in_block = not in_block
                    continue
                if not in_block:
                    continue
                text = line.strip()
                if pending is not None:
                    pending += " " + text.rstrip("\\").strip()
                    if not text.endswith("\\"):
                        found.append((f"{os.path.relpath(path, source)}:{start}", pending))
                        pending = None
                    continue
                if text.startswith("$ "):
                    text = text[2:].strip()
                if not (text.startswith("gpuadvise ") or text == "gpuadvise"):
                    continue
                if text.endswith("\\"):
                    pending, start = text.rstrip("\\").strip(), number
                else:
                    found.append((f"{os.path.relpath(path, source)}:{number}", text))
    return found


def help_lines(binary, env):
    """(where, line) of every example under "Examples:" in each command's --help."""
    found = []
    todo = [[]]
    seen = set()
    while todo:
        words = todo.pop()
        wide = dict(env, COLUMNS="1000")  # an example wrapped at the width is joined below all the same
        p = subprocess.run([binary, *words, "--help"], env=wide, capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            raise SystemExit(f"gpuadvise {' '.join(words)} --help exits {p.returncode}: {p.stderr}")
        section = None
        for line in p.stdout.splitlines():
            if not line.strip():
                section = None
                continue
            if not line.startswith(" "):
                section = line.strip().rstrip(":").upper()
                continue
            where = " ".join(["gpuadvise", *words, "--help"])
            if section == "EXAMPLES":
                if line.startswith("    ") and found and found[-1][0] == where:  # a wrapped example
                    found[-1] = (where, found[-1][1] + " " + line.strip())
                else:
                    found.append((where, line.strip()))
            elif section == "SUBCOMMANDS" and re.match(r"^  \S", line):
                name = line.split()[0]
                if name not in seen:
                    seen.add(name)
                    todo.append(words + [name])
    return found


def expected_exit(line):
    """The exit code a line's comment names ("(exit 3)"), else 0."""
    if "#" not in line:
        return 0
    m = re.search(r"\(exit (\d)\)", line.split("#", 1)[1])
    return int(m.group(1)) if m else 0


def command_of(line, home):
    """The argument list gpuadvise runs for an example line."""
    words = shlex.split(line, comments=True)
    for stop in ("|", ">", ">>", "2>", "<"):
        if stop in words:
            words = words[: words.index(stop)]
    words = [w for w in words if w != "…"]
    return [os.path.join(home, w[2:]) if w.startswith("~/") else w for w in words[1:]]


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix="gpuadvise-docs-")
    try:
        home = os.path.join(tmp, "home")
        work = os.path.join(tmp, "work")
        cache = os.path.join(tmp, "cache")
        os.makedirs(cache)
        tree = os.path.join(home, "skypilot-catalog", "catalogs", "v9")
        for csv in sorted(glob.glob(os.path.join(source, "data", "skypilot", "*.csv"))):
            cloud = os.path.splitext(os.path.basename(csv))[0]
            os.makedirs(os.path.join(tree, cloud))
            shutil.copy(csv, os.path.join(tree, cloud, "vms.csv"))

        def fresh_work_dir():  # each example in its own: one's --output is not in the next one's way
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
            for name in ("docs", "tests"):
                os.symlink(os.path.join(source, name), os.path.join(work, name))
            for f in glob.glob(os.path.join(source, "docs", "examples", "*")):
                os.symlink(f, os.path.join(work, os.path.basename(f)))
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPUADVISE_")}
        env.update({"NO_COLOR": "1", "LC_ALL": "C", "TERM": "dumb", "COLUMNS": "100", "HOME": home,
                    "XDG_CONFIG_HOME": os.path.join(home, ".config"), "GPUADVISE_TODAY": "2026-11-29",
                    "GPUADVISE_CACHE_DIR": cache, "GPUADVISE_SKY_DIR": ""})

        lines = doc_lines(source) + help_lines(binary, env)
        failures, ran, skipped_seen = [], 0, set()
        for where, line in lines:
            key = line.split("#", 1)[0].strip() if " #" in line else line.strip()
            if key in SKIPPED:
                skipped_seen.add(key)
                continue
            if SYNOPSIS.search(key):
                continue
            want = expected_exit(line)
            args = command_of(line, home)
            fresh_work_dir()
            p = subprocess.run([binary, *args], cwd=work, env=env, capture_output=True, text=True, timeout=300)
            ran += 1
            if p.returncode != want:
                tail = "\n    ".join(p.stderr.strip().splitlines()[-4:])
                failures.append(f"{where}: `{line}` exits {p.returncode}, expected {want}\n    {tail}")
        for key in sorted(set(SKIPPED) - skipped_seen):
            failures.append(f"SKIPPED lists `{key}`, which no doc or --help example has any more")
        if ran < 40:
            failures.append(f"only {ran} example lines ran: the extraction is broken")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print(f"{ran} example lines ran, {len(SKIPPED)} skipped by reason; {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
