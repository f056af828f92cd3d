#!/usr/bin/env python3
"""Man pages against --help: every option each `gpuadvise ... --help` lists appears in the man page of
its command (gpuadvise.1 for the global ones, gpuadvise-COMMAND.1 for a command and its subcommands),
every visible command has a page, and `man -l` renders each page without a warning.

usage: check_man.py GPUADVISE MAN1_DIR
"""
import glob
import os
import re
import subprocess
import sys

OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z0-9][\w-]*)")


def help_text(binary, path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUADVISE_")}
    proc = subprocess.run([binary] + path + ["--help"], capture_output=True, text=True, env=env, timeout=60)
    if proc.returncode != 0:
        raise SystemExit(f"FAIL: gpuadvise {' '.join(path)} --help exited {proc.returncode}: {proc.stderr}")
    return proc.stdout


def sections(text):
    """{'Options': [lines], 'Subcommands': [lines], ...} from CLI11's help layout."""
    out, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^([A-Z][A-Za-z ]*):$", line)
        if m:
            current = m.group(1)
            out[current] = []
        elif current and line.startswith("  "):
            out[current].append(line)
        elif not line.strip():
            continue
        else:
            current = None
    return out


def options_of(text):
    names = set()
    s = sections(text)
    for key in ("Options", "Positionals"):
        for line in s.get(key, []):
            if re.match(r"^  \S", line):  # an option line, not a wrapped description
                first = line.strip().split("  ")[0]
                for name in OPTION.findall(first.split(" ")[0]):
                    names.add(name)
    return names


def subcommands_of(text):
    return [line.split()[0] for line in sections(text).get("Subcommands", []) if re.match(r"^  \S", line)]


def render(page):
    env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="100", MAN_KEEP_FORMATTING="")
    proc = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", page], capture_output=True, env=env, timeout=60)
    text = re.sub(r".\x08", "", proc.stdout.decode("utf-8", "replace"))
    # groff's UTF-8 output spells \- as U+2212 and may hyphenate with U+2010: compare as ASCII.
    text = text.replace("\u2212", "-").replace("\u2010", "-")
    return proc.returncode, text, proc.stderr.decode("utf-8", "replace")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary, man_dir = sys.argv[1], sys.argv[2]
    failures = []
    pages = {}
    for page in sorted(glob.glob(os.path.join(man_dir, "*.1*"))):
        rc, text, err = render(page)
        name = os.path.basename(page).split(".")[0]
        if rc != 0 or err.strip():
            failures.append(f"man -l {page}: exit {rc}, warnings:\n{err}")
        pages[name] = text
    root_help = help_text(binary, [])
    todo = [([], root_help)]
    top = subcommands_of(root_help)
    if not top:
        failures.append("no commands found in gpuadvise --help")
    checked = 0
    while todo:
        path, text = todo.pop()
        page = "gpuadvise" + ("-" + path[0] if path else "")
        if page not in pages:
            failures.append(f"no man page {page}.1 for 'gpuadvise {' '.join(path)}'")
            continue
        for opt in sorted(options_of(text)):
            checked += 1
            if not re.search(r"(?<![\w-])" + re.escape(opt) + r"(?![\w-])", pages[page]):
                failures.append(f"{page}(1) does not mention {opt} (from 'gpuadvise {' '.join(path)} --help')")
        for sub in subcommands_of(text):
            if path:
                if not re.search(r"\b" + re.escape(" ".join(path[1:] + [sub])) + r"\b", pages[page]):
                    failures.append(f"{page}(1) does not describe 'gpuadvise {' '.join(path + [sub])}'")
            todo.append((path + [sub], help_text(binary, path + [sub])))
    if failures:
        print("FAIL:\n" + "\n".join(failures))
        return 1
    print(f"ok: {len(pages)} pages render without warnings; {checked} options of every --help found in them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
