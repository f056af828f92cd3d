#!/usr/bin/env python3
"""Operating-system fault tests (issue #17, docs/fuzzing.md "Fault classes"): real OS objects —
/dev/full, a closed standard output, a pipe closed early, FIFOs, /dev/zero, directories, sockets, a
sparse file over the size cap, an injected EIO (strace -e inject), fake nvidia-smi programs that hang
or leave a background child holding the pipe, and imports killed (SIGKILL) at each step.

usage: faults.py BINARY CASE      (CASE: one of the functions named case_*)
No case asserts a duration; each subprocess has a generous timeout so that a hang fails instead of
blocking the suite (ctest adds its own TIMEOUT too).
"""
import hashlib
import os
import resource
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

BINARY = ""
HANG_GUARD = 60  # seconds; a run that takes this long is a hang


def env_base(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUADVISE_")}
    env.update({"NO_COLOR": "1", "LC_ALL": "C", "TERM": "dumb", "GPUADVISE_TODAY": "2026-11-29"})
    env.update(extra)
    return env


def run(args, env=None, **kw):
    kw.setdefault("capture_output", True)
    return subprocess.run([BINARY] + args, env=env or env_base(), timeout=HANG_GUARD, **kw)


def check(cond, what, proc=None):
    if not cond:
        detail = ""
        if proc is not None:
            detail = f"\n  exit: {proc.returncode}\n  stderr: {proc.stderr!r}"
        raise AssertionError(what + detail)


# One command line per command, each writing a result to stdout (kept in step with `gpuadvise --help`).
def command_lines(tmp):
    return {
        "recommend": [["recommend", "--model", "bert", "--runs-per-week", "4"],
                      ["recommend", "--model", "bert", "--runs-per-week", "4", "--format", "html"]],
        "plan": [["plan", os.path.join(SOURCE, "docs/examples/jobs-pool.yaml")]],
        "gpus": [["gpus"], ["gpus", "--json"]],
        "offers": [["offers"], ["offers", "--json"], ["offers", "--format", "csv"]],
        "compare": [["compare", "A100", "V100"]],
        "check-env": [["check-env", "--gpu", "A100", "--driver", "535.54", "--cuda", "12.1", "--pytorch", "2.1"]],
        "estimate": [["estimate", "--model", "bert"]],
        "models": [["models"], ["models", "--format", "markdown"]],
        "catalog": [["catalog", "validate"], ["catalog", "info"], ["catalog", "info", "--json"],
                    ["catalog", "import", "skypilot", os.path.join(SOURCE, "data/skypilot/lium.csv"),
                     "--output", os.path.join(tmp, "imported"), "--as-of", "2026-11-01"],
                    ["catalog", "update", "--offline"]],
        "completion": [["completion", "bash"], ["completion", "zsh"], ["completion", "fish"]],
        "config": [["config", "show"], ["config", "show", "--json"]],
        None: [["--help"], ["--version"], []],
    }


def listed_commands():
    out = run(["--help"]).stdout.decode()
    names, in_section = [], False
    for line in out.splitlines():
        if line.strip().upper().startswith("SUBCOMMANDS"):
            in_section = True
            continue
        if in_section:
            if not line.startswith("  "):
                break
            if line.startswith("   "):  # a wrapped description (--help fits the terminal)
                continue
            names.append(line.split()[0])
    return names


def case_write_full_every_command():
    with tempfile.TemporaryDirectory() as tmp:
        lines = command_lines(tmp)
        listed = listed_commands()
        check(listed, "no command found in 'gpuadvise --help'")
        for name in listed:
            check(name in lines, f"command '{name}' has no command line in faults.py")
        for name, cmds in lines.items():
            for args in cmds:
                with open("/dev/full", "wb") as full:
                    p = run(args, stdout=full, stderr=subprocess.PIPE, capture_output=False)
                check(p.returncode == 1, f"{args}: exit {p.returncode}, expected 1 on /dev/full", p)
                check(b"gpuadvise: error: writing the output: No space left on device\n" in p.stderr,
                      f"{args}: no 'writing the output' error", p)


def case_write_closed_stdout():
    p = run(["gpus"], preexec_fn=lambda: os.close(1), stdout=None, stderr=subprocess.PIPE, capture_output=False)
    check(p.returncode == 1, "closed stdout: expected exit 1", p)
    check(b"gpuadvise: error: writing the output: Bad file descriptor\n" in p.stderr, "closed stdout: message", p)
    # A closed stdout is not taken over by the catalog file opened next (it would receive the output).
    with tempfile.TemporaryDirectory() as tmp:
        cat = os.path.join(tmp, "c.yaml")
        with open(cat, "w") as f:
            f.write("schema_version: 1\n")
        before = open(cat, "rb").read()
        p = run(["--catalog", cat, "gpus"], preexec_fn=lambda: os.close(1), stdout=None, stderr=subprocess.PIPE,
                capture_output=False)
        check(p.returncode == 1, "closed stdout with --catalog: expected exit 1", p)
        check(open(cat, "rb").read() == before, "the catalog file was written to")


def broken_pipe_run(restore_signals):
    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first write
    try:
        return subprocess.run([BINARY, "offers"], env=env_base(), stdout=w, stderr=subprocess.PIPE,
                              timeout=HANG_GUARD, restore_signals=restore_signals)
    finally:
        os.close(w)


def case_write_broken_pipe():
    # SIGPIPE at its default (what a shell gives): killed by SIGPIPE, nothing on stderr.
    p = broken_pipe_run(True)
    check(p.returncode == -signal.SIGPIPE, f"EPIPE, SIGPIPE default: expected death by SIGPIPE, got {p.returncode}", p)
    check(b"error" not in p.stderr, "EPIPE, SIGPIPE default: an error on stderr", p)
    # SIGPIPE ignored (inherited from Python): a quiet exit with 141.
    p = broken_pipe_run(False)
    check(p.returncode == 141, f"EPIPE, SIGPIPE ignored: expected exit 141, got {p.returncode}", p)
    check(b"error" not in p.stderr, "EPIPE, SIGPIPE ignored: an error on stderr", p)


def expect_error(args, needle, env=None, what=""):
    p = run(args, env=env)
    check(p.returncode == 1, f"{what or args}: expected exit 1", p)
    check(needle.encode() in p.stderr, f"{what or args}: stderr lacks {needle!r}", p)
    return p


def case_special_files():
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "fifo.yaml")
        os.mkfifo(fifo)
        sock_path = os.path.join(tmp, "sock.yaml")
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(sock_path)
        kinds = {fifo: "is a FIFO (named pipe)", "/dev/zero": "is a character device", tmp: "is a directory",
                 sock_path: "is a socket"}
        for path, kind in kinds.items():
            if path == tmp:  # --catalog DIR reads a SkyPilot tree (issue 14): an empty one is a located error
                expect_error(["--catalog", path, "gpus"], f"{path}: error: is a directory with no SkyPilot tables")
                expect_error(["gpus"], f"{path}: error: is a directory with no SkyPilot tables",
                             env=env_base(GPUADVISE_CATALOG=path), what=f"GPUADVISE_CATALOG={path}")
            else:
                expect_error(["--catalog", path, "gpus"], f"gpuadvise: error: {path}: {kind}, not a regular file")
                expect_error(["gpus"], f"{path}: {kind}", env=env_base(GPUADVISE_CATALOG=path), what=f"GPUADVISE_CATALOG={path}")
            if path != tmp:  # a directory of tables is a valid import input
                expect_error(["catalog", "import", "skypilot", path, "--output", os.path.join(tmp, "out")],
                             f"{path}: {kind}")
            cat = os.path.join(tmp, "tables.yaml")
            with open(cat, "w") as f:
                f.write("schema_version: 1\nproviders:\n  - id: p\n    name: P\n    currency: USD\n    kind: public\n"
                        "    as_of: 2026-11-01\n    source: test\n"
                        f"    tables: [{{format: skypilot, path: '{path}'}}]\n")
            expect_error(["--catalog", cat, "offers"], f"{cat}:", what=f"tables: {path}")
            expect_error(["--catalog", cat, "offers"], f"tables: {path}: {kind}", what=f"tables: {path}")
            check(not os.path.exists(os.path.join(tmp, "out")), "import wrote something")
        sock.close()
        # Open failures name the reason from errno.
        loop = os.path.join(tmp, "loop.yaml")
        os.symlink(loop, loop)
        expect_error(["--catalog", loop, "gpus"], f"gpuadvise: error: {loop}: cannot open the file: Too many levels of symbolic links")
        expect_error(["--catalog", os.path.join(tmp, "missing.yaml"), "gpus"], "cannot open the file: No such file or directory")
        expect_error(["--catalog", "x" * 5000 + ".yaml", "gpus"], "cannot open the file: File name too long")


def case_size_cap():
    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "big.yaml")
        with open(big, "wb") as f:
            f.truncate((1 << 30) + 1)  # sparse: no disk used
        expect_error(["--catalog", big, "gpus"], f"{big}: the file is larger than 1024 MiB")


def case_read_error_midfile():
    # strace injects EIO into the second read(2) of the catalog (gpuadvise reads 1 MiB per call): the
    # first MiB arrived, then the disk failed. A first run without injection counts the reads before.
    with tempfile.TemporaryDirectory() as tmp:
        cat = os.path.join(tmp, "c.yaml")
        gpus = "".join(f"  - {{id: fake{i}, name: Fake {i}, family: Fake{i}, vendor: NVIDIA, memory_gb: 16, "
                       f"architecture: Ampere, compute_capability: '8.0', source: test, "
                       f"tflops: {{fp32: 10, tf32: null, fp16: 50, bf16: null, fp8: null}}}}\n" for i in range(200))
        padding = "".join(f"# padding line {i:06d} to make the file larger than one read\n" for i in range(40000))
        with open(cat, "w") as f:
            f.write("schema_version: 1\ngpus:\n" + gpus + padding)
        check(os.path.getsize(cat) > (1 << 20) + 4096, "test catalog too small")
        args = ["--catalog", cat, "gpus", "--json"]
        trace = os.path.join(tmp, "trace")
        traced_env = env_base(ASAN_OPTIONS="detect_leaks=0")  # LeakSanitizer cannot run under ptrace
        p = subprocess.run(["strace", "-qq", "-o", trace, "-e", "trace=read,openat", BINARY] + args, env=traced_env,
                           capture_output=True, timeout=HANG_GUARD)
        check(p.returncode == 0, "the test catalog does not load without the fault", p)
        reads, fd = 0, None
        for line in open(trace):
            if fd is None and line.startswith("openat(") and f'"{cat}"' in line:
                fd = line.rsplit("=", 1)[1].strip()
                continue
            if line.startswith("read("):
                reads += 1
                if fd is not None and line.startswith(f"read({fd},"):
                    break  # the first read of the catalog
        check(fd is not None, "strace saw no open of the catalog")
        p = subprocess.run(["strace", "-qq", "-o", "/dev/null", "-e", "trace=read",
                            "-e", f"inject=read:error=EIO:when={reads + 1}", BINARY] + args, env=traced_env,
                           capture_output=True, timeout=HANG_GUARD)
        check(p.returncode == 1, "EIO midway: expected exit 1", p)
        check(f"gpuadvise: error: {cat}: read error after {1 << 20} bytes: Input/output error; nothing of the file "
              f"was used".encode() in p.stderr, "EIO midway: message", p)
        check(p.stdout == b"", "EIO midway: output despite the read error", p)
    # /proc/self/mem: a "regular file" whose first read fails.
    expect_error(["--catalog", "/proc/self/mem", "gpus"], "/proc/self/mem: read error after 0 bytes: Input/output error")


def write_fake_tool(d, name, body):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


def case_probe_hang():
    with tempfile.TemporaryDirectory() as tmp:
        count = os.path.join(tmp, "runs")
        write_fake_tool(tmp, "nvidia-smi", f"echo run >> {count}\nexec /bin/sleep 1000\n")
        p = run(["check-env"], env=env_base(PATH=tmp, GPUADVISE_PROBE_TIMEOUT="1"))
        check(p.returncode in (0, 3), "check-env with a hanging nvidia-smi: unexpected exit", p)
        check(b"nvidia-smi: did not finish within 1 s and was stopped" in p.stderr, "no timeout note", p)
        check(open(count).read().count("run") == 1, "nvidia-smi was run more than once")


def case_probe_background_child():
    with tempfile.TemporaryDirectory() as tmp:
        pidfile = os.path.join(tmp, "pid")
        # The tool prints its answer and exits; a background child keeps the pipe open for 1000 s.
        write_fake_tool(tmp, "nvidia-smi",
                        f"/bin/sleep 1000 &\necho $! > {pidfile}\n"
                        "echo 'NVIDIA A100-SXM4-80GB, 535.54.03, 81920 MiB, 8.0'\n")
        p = run(["check-env"], env=env_base(PATH=tmp, GPUADVISE_PROBE_TIMEOUT="600"))
        check(p.returncode in (0, 3), "check-env with a forking nvidia-smi: unexpected exit", p)
        check(b"nvidia-smi: 1 GPU: NVIDIA A100-SXM4-80GB, driver 535.54.03" in p.stderr, "the output was not read", p)
        pid = int(open(pidfile).read())

        def alive():
            try:
                return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
            except (FileNotFoundError, ProcessLookupError):
                return False
        # SIGKILL was sent before gpuadvise exited; give the kernel a moment to finish the kill.
        for _ in range(200):
            if not alive():
                break
            time.sleep(0.05)
        if alive():
            os.kill(pid, signal.SIGKILL)
            raise AssertionError("the background child of the tool was left running")


def limit_file_size(size):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return apply


def case_write_file_size_limit():
    # "Disk full" for one process: a file-size limit. The output file is cut at 1000 bytes.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "offers.json")
        with open(path, "wb") as f:
            p = run(["offers", "--json"], stdout=f, stderr=subprocess.PIPE, capture_output=False,
                    preexec_fn=limit_file_size(1000))
        check(p.returncode == 1, "output over the file-size limit: expected exit 1", p)
        check(b"gpuadvise: error: writing the output: File too large\n" in p.stderr, "no 'writing the output' error", p)
        # An import that cannot write its files leaves the previous catalog as it was, and no leftovers.
        out = os.path.join(tmp, "out")
        check(do_import(out, "2026-11-01", force=False).returncode == 0, "first import failed")
        before = tree_digest(os.path.realpath(out))
        p = run(["catalog", "import", "skypilot", LIUM, "--output", out, "--as-of", "2026-11-02", "--force"],
                preexec_fn=limit_file_size(200))
        check(p.returncode == 1, "import over the file-size limit: expected exit 1", p)
        check(b"cannot write the file: File too large; the previous catalog (if any) is unchanged" in p.stderr,
              "import: no reason given", p)
        check(tree_digest(os.path.realpath(out)) == before and catalog_as_of(out) == "2026-11-01", "the old catalog changed")
        left = sorted(n for n in os.listdir(tmp) if n not in ("out", "offers.json"))
        check(len(left) == 1 and left[0].startswith(".out.v-"), f"leftovers after a failed import: {left}")


def tree_digest(path):
    h = hashlib.sha256()
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(root, name)
            h.update(os.path.relpath(full, path).encode() + b"\0")
            with open(full, "rb") as f:
                h.update(f.read())
        h.update(b"dirs:" + "/".join(dirs).encode())
    return h.hexdigest()


LIUM = None


def do_import(out, as_of, force=True, env=None):
    args = ["catalog", "import", "skypilot", LIUM, "--output", out, "--as-of", as_of] + (["--force"] if force else [])
    return run(args, env=env)


def case_import_force_refuses():
    with tempfile.TemporaryDirectory() as tmp:
        notes = os.path.join(tmp, "notes")
        os.makedirs(os.path.join(notes, "sub"))
        for name, text in {"a.txt": "my notes\n", "sub/b.csv": "x,y\n1,2\n"}.items():
            with open(os.path.join(notes, name), "w") as f:
                f.write(text)
        before = tree_digest(notes)
        p = do_import(notes, "2026-11-01")
        check(p.returncode == 1, "--force over a directory of notes: expected exit 1", p)
        check(b"is a directory that 'gpuadvise catalog import' did not write" in p.stderr, "no reason given", p)
        check(tree_digest(notes) == before, "the notes directory changed")
        # Its own input directory.
        indir = os.path.join(tmp, "in")
        os.makedirs(indir)
        with open(LIUM, "rb") as src, open(os.path.join(indir, "lium.csv"), "wb") as dst:
            dst.write(src.read())
        before = tree_digest(indir)
        p = run(["catalog", "import", "skypilot", indir, "--output", indir, "--force"])
        check(p.returncode == 1 and tree_digest(indir) == before, "--force over the input directory", p)
        # A regular file, and a symbolic link that an import did not make.
        f = os.path.join(tmp, "file")
        with open(f, "w") as fh:
            fh.write("keep\n")
        check(do_import(f, "2026-11-01").returncode == 1 and open(f).read() == "keep\n", "--force over a file")
        link = os.path.join(tmp, "link")
        os.symlink("notes", link)
        check(do_import(link, "2026-11-01").returncode == 1 and tree_digest(notes) != "" and os.readlink(link) == "notes",
              "--force over a foreign link")
        # What an import wrote is replaced.
        out = os.path.join(tmp, "out")
        check(do_import(out, "2026-11-01", force=False).returncode == 0, "first import failed")
        check(do_import(out, "2026-11-02").returncode == 0, "--force over an import failed")
        check("2026-11-02" in open(os.path.join(out, "catalog.yaml")).read(), "not replaced")


def catalog_as_of(out):
    """The as_of of the catalog readable at `out`, or None when none is readable."""
    path = os.path.join(out, "catalog.yaml")
    if not os.path.exists(path):
        return None
    p = run(["--catalog", path, "offers", "--provider", "lium", "--json"])
    if p.returncode != 0:
        return "unreadable: " + p.stderr.decode()
    text = open(path).read()
    for d in ("2026-11-01", "2026-11-02"):
        if d in text:
            return d
    return "neither"


def case_import_killed():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        check(do_import(out, "2026-11-01", force=False).returncode == 0, "first import failed")
        for step in range(1, 8):
            p = do_import(out, "2026-11-02", env=env_base(GPUADVISE_TEST_KILL_IMPORT_AT=str(step)))
            check(p.returncode == -signal.SIGKILL, f"step {step}: the test hook did not kill the import", p)
            seen = catalog_as_of(out)
            check(seen in ("2026-11-01", "2026-11-02"), f"killed at step {step}: catalog at the target: {seen}")
            # The next import cleans up what the killed one left, and succeeds.
            p = do_import(out, "2026-11-01")
            check(p.returncode == 0, f"after a kill at step {step}: the next import failed", p)
            check(catalog_as_of(out) == "2026-11-01", f"after step {step}: not replaced")
            left = sorted(n for n in os.listdir(tmp) if n != "out")
            check(len(left) == 1 and left[0].startswith(".out.v-"), f"after step {step}: leftovers {left}")
        # A first import killed midway leaves nothing at the target, and the next one cleans up.
        fresh = os.path.join(tmp, "fresh")
        for step in range(1, 6):
            p = do_import(fresh, "2026-11-02", force=False, env=env_base(GPUADVISE_TEST_KILL_IMPORT_AT=str(step)))
            check(p.returncode == -signal.SIGKILL and not os.path.lexists(fresh), f"fresh, step {step}")
        check(do_import(fresh, "2026-11-02", force=False).returncode == 0, "fresh import after kills")
        left = sorted(n for n in os.listdir(tmp) if n.startswith(".fresh"))
        check(len(left) == 1, f"fresh: leftovers {left}")


def no_internal_error(p, what):
    check(b"internal error" not in p.stderr and b"bad_alloc" not in p.stderr, f"{what}: an internal error", p)


def case_tree_special_files():
    # Issue 31: a SkyPilot tree whose <cloud>/vms.csv is a FIFO, a link to /dev/zero, a symbolic-link
    # loop or a dangling link is an error naming the file and what it is (not "unknown provider", not
    # "a directory with no SkyPilot tables"); an import of a directory with a looping *.csv names it too.
    with tempfile.TemporaryDirectory() as tmp:
        for kind, make, reason in [
            ("fifo", os.mkfifo, "is a FIFO (named pipe), not a regular file"),
            ("zero", lambda f: os.symlink("/dev/zero", f), "is a character device, not a regular file"),
            ("loop", lambda f: os.symlink(f, f), "Too many levels of symbolic links"),
            ("dangling", lambda f: os.symlink(f + ".gone", f), "No such file or directory"),
        ]:
            tree = os.path.join(tmp, kind)
            os.makedirs(os.path.join(tree, "mycloud"))
            vms = os.path.join(tree, "mycloud", "vms.csv")
            make(vms)
            for args in (["--catalog", tree, "offers"], ["catalog", "import", "skypilot", tree, "--output",
                                                         os.path.join(tmp, "out-" + kind)]):
                p = run(args)
                check(p.returncode == 1, f"tree with a {kind} vms.csv: {args[:3]}: expected exit 1", p)
                check(f"{vms}: ".encode() in p.stderr and reason.encode() in p.stderr,
                      f"tree with a {kind} vms.csv: {args[:3]}: the file and '{reason}' not named", p)
                no_internal_error(p, f"tree with a {kind} vms.csv")
            check(not os.path.exists(os.path.join(tmp, "out-" + kind)), f"{kind}: import wrote something")
        # A header-only vms.csv: a warning names it (it gave 0 offers silently).
        tree = os.path.join(tmp, "header-only")
        os.makedirs(os.path.join(tree, "mycloud"))
        with open(os.path.join(tree, "mycloud", "vms.csv"), "w") as f:
            f.write("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region\n")
        p = run(["--catalog", tree, "offers", "--provider", "mycloud"])
        check(b"mycloud/vms.csv:1:1: warning: the table has a header but no rows" in p.stderr,
              "a header-only vms.csv in a tree is not named", p)
        no_internal_error(p, "header-only vms.csv")
        flat = os.path.join(tmp, "flat")
        os.makedirs(flat)
        loop = os.path.join(flat, "loop.csv")
        os.symlink(loop, loop)
        p = run(["catalog", "import", "skypilot", flat, "--output", os.path.join(tmp, "out-flat")])
        check(p.returncode == 1 and b"loop.csv: cannot open the file: Too many levels of symbolic links" in p.stderr,
              "import of a directory with a looping *.csv", p)
        no_internal_error(p, "import of a directory with a looping *.csv")
        p = run(["catalog", "import", "skypilot", loop, "--output", os.path.join(tmp, "out-flat")])
        check(p.returncode == 1 and b"loop.csv: cannot open the file: Too many levels of symbolic links" in p.stderr,
              "import of a looping link: the reason, not 'no such file'", p)


def write_jobs(tmp, name, lines):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write("jobs:\n" + "".join(lines))
    return path


def case_plan_bounds():
    # Issue 31: inputs inside the documented ranges whose peak is millions of instances finished after
    # minutes (one evaluation of the week per instance up to the peak); now the sizing is closed-form and
    # a job past the bound of 1,000,000 instances busy at once is reported as fitting no offer.
    with tempfile.TemporaryDirectory() as tmp:
        past = write_jobs(tmp, "past.yaml", ["  - {name: big, model: bert, provider: gcp, hours_per_run: 1e6, "
                                             "measured_on: a100-40gb-sxm, runs_per_week: 10000}\n"])
        p = run(["plan", past])
        check(p.returncode == 3, "a job past the instance bound: expected exit 3 (nothing fits)", p)
        check(b"job 'big' fits no offer" in p.stderr or b"job 'big' fits no offer" in p.stdout, "the job is not named", p)
        check(b"more than the 1M a plan sizes" in p.stdout + p.stderr, "the bound is not named", p)
        no_internal_error(p, "past the bound")
        at = write_jobs(tmp, "at.yaml", ["  - {name: big, model: bert, provider: gcp, hours_per_run: 1e4, "
                                         "measured_on: a100-40gb-sxm, runs_per_week: 10000}\n"])
        p = run(["plan", at, "--json"])  # about 600,000 instances at once: within the bound, planned
        check(p.returncode == 0, "a job of 600,000 instances at once: expected a plan", p)
        samples = write_jobs(tmp, "samples.yaml", ["  - {name: many, model: bert, provider: gcp, samples: 1e15}\n"])
        p = run(["plan", samples])
        check(p.returncode in (0, 3), "samples: 1e15: expected a plan or nothing fits", p)
        no_internal_error(p, "samples: 1e15")


def case_duplicate_job_names():
    # Issue 31: 3,000 jobs of one name printed 4.5 million errors; 100,000 gave bad_alloc. Each duplicate
    # is one error now, and at most 100 diagnostics are printed ("... and N more").
    with tempfile.TemporaryDirectory() as tmp:
        same = write_jobs(tmp, "same.yaml", ["  - {name: same, model: bert}\n"] * 3000)
        p = run(["plan", same])
        check(p.returncode == 1, "3,000 jobs of one name: expected exit 1", p)
        check(p.stderr.count(b"duplicate job name") == 1 and b"(also jobs[0] and 2998 more jobs)" in p.stderr,
              "3,000 jobs of one name: not one error with the count", p)
        check(b"the jobs file " + same.encode() + b" has 1 error" in p.stderr, "3,000 jobs: error count", p)
        pairs = write_jobs(tmp, "pairs.yaml", [f"  - {{name: j{i // 2}, model: bert}}\n" for i in range(1000)])
        p = run(["plan", pairs])
        check(p.returncode == 1 and b"has 500 errors" in p.stderr, "500 duplicated names: 500 errors", p)
        check(p.stderr.count(b"\n") <= 103 and b"... and 400 more\n" in p.stderr, "500 errors: at most 100 printed", p)
        many = write_jobs(tmp, "many.yaml", [f"  - {{name: x, model: bertt}}\n"] * 9000)
        p = run(["plan", many])
        check(p.returncode == 1, "9,000 bad jobs: expected exit 1", p)
        check(len(p.stderr) < 64 * 1024, f"9,000 bad jobs: {len(p.stderr)} bytes on stderr", p)
        no_internal_error(p, "9,000 bad jobs")


def case_plan_job_count():
    # Issue 31: a jobs file could hold any number of jobs (1,000,000 read into 6 GB before planning began).
    # A file holds at most 10,000 jobs and 8 MiB, both checked before any job is read or planned.
    with tempfile.TemporaryDirectory() as tmp:
        # At the bound: every job is read (the last one's unknown model is the only error).
        at = write_jobs(tmp, "at.yaml", [f"  - {{name: j{i}, model: bert}}\n" for i in range(9999)] +
                        ["  - {name: last, model: bertt}\n"])
        p = run(["plan", at])
        check(p.returncode == 1 and b"jobs[9999].model: unknown model 'bertt'" in p.stderr and b"has 1 error" in p.stderr,
              "10,000 jobs: expected them read, the last one's error alone", p)
        check(b"a plan takes" not in p.stderr, "10,000 jobs: the bound refused a file at it", p)
        over = write_jobs(tmp, "over.yaml", [f"  - {{name: j{i}, model: bert}}\n" for i in range(10001)])
        p = run(["plan", over])
        check(p.returncode == 1, "10,001 jobs: expected exit 1", p)
        check(over.encode() + b":10002:5: error: jobs[10000]: the file has 10001 jobs, more than the 10000 a plan takes"
              in p.stderr and b"has 1 error" in p.stderr, "10,001 jobs: the located bound error", p)
        check(b"split the jobs into several files" in p.stderr, "10,001 jobs: the fix", p)
        no_internal_error(p, "10,001 jobs")
        big = os.path.join(tmp, "big.yaml")
        with open(big, "w") as f:
            f.write("jobs:\n  - {name: a, model: bert}\n" + "#" * (8 << 20))
        p = run(["plan", big])
        check(p.returncode == 1 and b"larger than 8 MiB" in p.stderr and b"split the jobs" in p.stderr,
              "a jobs file over 8 MiB: expected the size error", p)
        no_internal_error(p, "a jobs file over 8 MiB")


def case_config_special_paths():
    # Issue 31: an XDG config.yaml that is a symbolic-link loop, a dangling link or unreadable was
    # silently ignored (exit 0), and GPUADVISE_CONFIG pointing at a loop said "does not exist". Each is
    # exit 1 naming the path and what it is; a config.yaml that is not there is still fine.
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)  # the unprivileged run below must reach it
        xdg = os.path.join(tmp, "xdg")
        conf = os.path.join(xdg, "gpuadvise", "config.yaml")
        os.makedirs(os.path.dirname(conf))
        env = env_base(XDG_CONFIG_HOME=xdg, HOME=tmp)
        p = run(["config", "show"], env=env)
        check(p.returncode == 0, "no config.yaml: expected exit 0", p)
        os.symlink(conf, conf)  # a loop
        for args in (["config", "show"], ["gpus"]):
            expect_error(args, f"gpuadvise: error: the configuration file {conf} is a symbolic link loop", env=env)
        expect_error(["gpus"], f"gpuadvise: error: GPUADVISE_CONFIG names {conf}, which is a symbolic link loop",
                     env=env_base(GPUADVISE_CONFIG=conf), what="GPUADVISE_CONFIG loop")
        os.unlink(conf)
        missing = os.path.join(tmp, "gone.yaml")
        os.symlink(missing, conf)  # dangling
        expect_error(["gpus"], f"gpuadvise: error: the configuration file {conf} is a symbolic link to {missing}, "
                     "which does not exist (a dangling link)", env=env)
        os.unlink(conf)
        os.mkdir(conf)  # not a regular file
        expect_error(["gpus"], f"gpuadvise: error: {conf}: is a directory, not a regular file", env=env)
        os.rmdir(conf)
        with open(conf, "w") as f:
            f.write("currency: EUR\n")
        # Unreadable: the file (mode 000), and a directory on the way that cannot be searched. Root reads
        # anything, so as root the runs drop to an unprivileged user.
        demote = (lambda: os.setuid(65534)) if os.geteuid() == 0 else None
        os.chmod(conf, 0)
        p = run(["gpus"], env=env, preexec_fn=demote)
        check(p.returncode == 1 and f"gpuadvise: error: {conf}: cannot open the file: Permission denied".encode()
              in p.stderr, "an unreadable config.yaml: expected exit 1 naming it", p)
        os.chmod(conf, 0o644)
        os.chmod(os.path.dirname(conf), 0)
        p = run(["gpus"], env=env, preexec_fn=demote)
        os.chmod(os.path.dirname(conf), 0o755)
        check(p.returncode == 1 and f"gpuadvise: error: the configuration file {conf} cannot be read: Permission "
              "denied".encode() in p.stderr, "a config.yaml behind an unsearchable directory: expected exit 1", p)


def case_probe_parallel():
    # Issue 31: check-env ran nvidia-smi, nvcc and python3 one after another, each with its own 20 s
    # deadline (three hung tools: a minute). They run at once now, under one deadline. No time is
    # measured: each fake tool waits until all three have started, so one run at a time never finishes
    # a tool (each would sit until its deadline) and the expected answers could not be printed.
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "started")
        wait = (f"echo $0 >> {log}\n"
                f"i=0; while [ $(/usr/bin/wc -l < {log}) -lt 3 ] && [ $i -lt 400 ]; do /bin/sleep 0.05; "
                "i=$((i+1)); done\n"
                f"[ $(/usr/bin/wc -l < {log}) -ge 3 ] || exit 1\n")
        write_fake_tool(tmp, "nvidia-smi", wait + "echo 'NVIDIA A100-SXM4-80GB, 535.54.03, 81920 MiB, 8.0'\n")
        write_fake_tool(tmp, "nvcc", wait + "echo 'Cuda compilation tools, release 12.1, V12.1.105'\n")
        write_fake_tool(tmp, "python3", wait + "echo 2.1.0+cu121; echo 12.1; echo \"['sm_80', 'sm_90']\"\n")
        p = run(["check-env"], env=env_base(PATH=tmp, GPUADVISE_PROBE_TIMEOUT="600"))
        check(p.returncode in (0, 3), "check-env with three waiting tools: unexpected exit", p)
        for note in (b"nvidia-smi: 1 GPU: NVIDIA A100-SXM4-80GB, driver 535.54.03", b"nvcc: CUDA 12.1",
                     b"python3: PyTorch 2.1.0+cu121, CUDA 12.1"):
            check(note in p.stderr, f"the tools did not run at once: no {note!r}", p)
        check(open(log).read().count("\n") == 3, "a tool was run more than once")
        # All three hung: one deadline stops them all, and each note names it.
        for tool in ("nvidia-smi", "nvcc", "python3"):
            write_fake_tool(tmp, tool, "exec /bin/sleep 1000\n")
        p = run(["check-env"], env=env_base(PATH=tmp, GPUADVISE_PROBE_TIMEOUT="1"))
        for tool in ("nvidia-smi", "nvcc", "python3"):
            check(f"{tool}: did not finish within 1 s and was stopped".encode() in p.stderr, f"{tool}: no timeout note", p)


def case_probe_timeout_values():
    # Issue 31: GPUADVISE_PROBE_TIMEOUT=0|-1|nan|abc fell back to 20 s silently. Each is a usage error
    # (exit 2) naming the variable and the range, before any tool runs; empty means unset (20 s).
    with tempfile.TemporaryDirectory() as tmp:
        count = os.path.join(tmp, "runs")
        write_fake_tool(tmp, "nvidia-smi", f"echo run >> {count}\nexit 1\n")
        for value in ("0", "-1", "nan", "abc", "inf", "3601", "1e999", "5s"):
            p = run(["check-env"], env=env_base(PATH=tmp, GPUADVISE_PROBE_TIMEOUT=value))
            check(p.returncode == 2, f"GPUADVISE_PROBE_TIMEOUT={value!r}: expected exit 2", p)
            check(f"gpuadvise: error: GPUADVISE_PROBE_TIMEOUT='{value}': expected seconds, more than 0 and at most "
                  "3600".encode() in p.stderr, f"GPUADVISE_PROBE_TIMEOUT={value!r}: message", p)
        check(not os.path.exists(count), "a tool ran despite a bad GPUADVISE_PROBE_TIMEOUT")
        for value in ("", "0.5", "3600"):
            p = run(["check-env"], env=env_base(PATH=tmp, GPUADVISE_PROBE_TIMEOUT=value))
            check(p.returncode in (0, 3), f"GPUADVISE_PROBE_TIMEOUT={value!r}: expected to run", p)


def main():
    global BINARY, SOURCE, LIUM
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    BINARY = os.path.abspath(sys.argv[1])
    SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    LIUM = os.path.join(SOURCE, "data/skypilot/lium.csv")
    case = globals().get("case_" + sys.argv[2])
    if not case:
        print(f"no case {sys.argv[2]}", file=sys.stderr)
        return 2
    try:
        case()
    except AssertionError as e:
        print(f"FAIL {sys.argv[2]}: {e}", file=sys.stderr)
        return 1
    print(f"ok {sys.argv[2]}")
    return 0


SOURCE = ""
if __name__ == "__main__":
    sys.exit(main())
