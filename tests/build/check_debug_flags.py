#!/usr/bin/env python3
"""The release build compiles with line tables only (-g1), not full debug info.

CMake appends its own "-O2 -g -DNDEBUG" to a CMAKE_CXX_FLAGS_RELWITHDEBINFO_INIT value, and the later -g
wins: every release build had full debug info (a cli unity batch 49.5 s of CPU instead of 27.7 s) until the
flags became the cache entry itself (CMakeLists.txt, docs/performance.md). This reads the build's
compile_commands.json and fails when a C++ compile's last -g option asks for more than line tables.

Usage: check_debug_flags.py BUILD_DIR
"""
import json
import pathlib
import shlex
import sys


def last_debug_option(command: str):
    last = None
    for token in shlex.split(command):
        if token.startswith("-g") and (token[2:] in ("", "0", "1", "2", "3") or token[2:].startswith("line-")):
            last = token
    return last


def main() -> int:
    build = pathlib.Path(sys.argv[1])
    entries = json.loads((build / "compile_commands.json").read_text())
    cxx = [e for e in entries if e["file"].endswith((".cpp", ".cxx", ".cc"))]
    if not cxx:
        print(f"no C++ compile commands in {build}/compile_commands.json", file=sys.stderr)
        return 1
    full = []
    for e in cxx:
        option = last_debug_option(e.get("command") or " ".join(e.get("arguments", [])))
        if option in ("-g", "-g2", "-g3"):
            full.append(f"{e['file']}: {option}")
    if full:
        print(f"{len(full)} of {len(cxx)} C++ compiles ask for full debug info (want -g1):", file=sys.stderr)
        for line in full[:10]:
            print("  " + line, file=sys.stderr)
        return 1
    print(f"{len(cxx)} C++ compiles, none with full debug info")
    return 0


if __name__ == "__main__":
    sys.exit(main())
