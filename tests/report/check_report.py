#!/usr/bin/env python3
"""The HTML report in a real browser (issue 18): renders `recommend --model bert --runs-per-week 4
--format html` (on the frozen fixture catalog, with the golden runner's fixed date) in headless
Chromium, checks the DOM for the expected numbers and labels, takes a 1280x2000 screenshot and
compares it with the reference PNG (docs/report.png) within a tolerance.

usage: check_report.py BINARY SOURCE_DIR WORK_DIR
Exits 77 (ctest SKIP_RETURN_CODE) with the reason when Chromium is not installed. With
GPUADVISE_UPDATE_REPORT=1 the reference screenshot is rewritten instead of compared (review it!).

The PNG comparison is written with the standard library (zlib): mean absolute difference per channel
below MAX_MEAN and fewer than MAX_STRONG of the pixels differing by more than STRONG in some channel,
so that font antialiasing differences between machines pass and a moved chart or a lost label fails.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

MAX_MEAN = 2.0      # mean absolute difference per channel, 0..255
STRONG = 64         # a pixel "differs strongly" when some channel differs by more than this
MAX_STRONG = 0.02   # share of strongly differing pixels allowed
WIDTH, HEIGHT = 1280, 2000
FROZEN = ["--no-default-catalog", "--catalog", "tests/fixtures/frozen/catalog.yaml", "--catalog",
          "tests/fixtures/frozen/models.yaml", "--catalog", "tests/fixtures/frozen/compat.yaml"]
COMMAND = ["recommend", "--model", "bert", "--runs-per-week", "4"]


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def decode_png(path):
    """(width, height, rows of RGB bytes) of an 8-bit, non-interlaced RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"{path}: only 8-bit RGB/RGBA non-interlaced PNGs are read (depth {depth}, colour type {color})")
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        base = y * (stride + 1)
        ftype, line = raw[base], bytearray(raw[base + 1:base + 1 + stride])
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ftype == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif ftype == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif ftype != 0:
            raise ValueError(f"{path}: bad filter type {ftype} on row {y}")
        rows.append(bytes(line) if bpp == 3 else bytes(b for i in range(0, stride, 4) for b in line[i:i + 3]))
        prev = line
    return width, height, rows


def compare_png(actual, reference):
    """(mean absolute difference per channel, share of strongly differing pixels, message)."""
    wa, ha, ra = decode_png(actual)
    wr, hr, rr = decode_png(reference)
    if (wa, ha) != (wr, hr):
        return None, None, f"size {wa}x{ha}, reference {wr}x{hr}"
    total, strong = 0, 0
    for a, r in zip(ra, rr):
        if a == r:
            continue
        diffs = [abs(x - y) for x, y in zip(a, r)]
        total += sum(diffs)
        for i in range(0, len(diffs), 3):
            if max(diffs[i], diffs[i + 1], diffs[i + 2]) > STRONG:
                strong += 1
    mean = total / (wa * ha * 3)
    share = strong / (wa * ha)
    return mean, share, f"mean abs difference {mean:.3f} per channel (max {MAX_MEAN}), {share * 100:.3f}% pixels differ strongly (max {MAX_STRONG * 100:.1f}%)"


def chromium_run(chromium, args, work):
    profile = os.path.join(work, "profile")
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
           "--disable-dev-shm-usage", "--force-device-scale-factor=1", "--font-render-hinting=none",
           "--user-data-dir=" + profile] + args
    return subprocess.run(cmd, capture_output=True, timeout=180)


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    binary, source, work = (os.path.abspath(a) for a in sys.argv[1:])
    chromium = find_chromium()
    if not chromium:
        print("SKIP: headless Chromium is not installed (Debian package 'chromium'; ./dev test installs it): "
              "the HTML report was NOT checked in a browser")
        return 77
    os.makedirs(work, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUADVISE_")}
    env.update({"NO_COLOR": "1", "LC_ALL": "C", "TERM": "dumb", "GPUADVISE_TODAY": "2026-11-29",
                "GPUADVISE_CACHE_DIR": os.path.join(work, "no-cache"), "GPUADVISE_SKY_DIR": ""})
    run = lambda fmt: subprocess.run([binary] + FROZEN + COMMAND + ["--format", fmt], cwd=source, env=env,
                                     capture_output=True, timeout=120)
    html, js = run("html"), run("json")
    if html.returncode != 0 or js.returncode != 0:
        print("gpuadvise failed:", html.stderr.decode(), js.stderr.decode())
        return 1
    doc = json.loads(js.stdout)
    report = os.path.join(work, "report.html")
    with open(report, "wb") as f:
        f.write(html.stdout)
    failures = []
    if re.search(rb"<script|<link|<img|<iframe|<object|\ssrc=|\shref=|@import|@font-face|url\(", html.stdout, re.I):
        failures.append("the report is not self-contained (a script, a linked file, an @import, a font or url())")

    dom = chromium_run(chromium, ["--dump-dom", "file://" + report], work)
    text = dom.stdout.decode("utf-8", "replace")
    if dom.returncode != 0 or "</html>" not in text:
        print("chromium --dump-dom failed:", dom.stderr.decode("utf-8", "replace")[-2000:])
        return 1
    top = doc["recommendations"][0]
    pick = f"{top['provider']} {top['gpu']} x{top['gpu_count']}"
    cur = top["currency"]
    expected = {
        "the top pick's label in chart 1": f"#1 {pick}",
        "the top pick line": f"Top pick: {pick}",
        "chart 1's title": "Cost per month against hours per run",
        "chart 2's title": "Monthly cost against runs per week, by pricing plan",
        "chart 1's x-axis label": "hours per run (billed, estimate)",
        "chart 1's y-axis label": f"{cur} per month",
        "chart 2's x-axis label": "runs per week",
        "the top pick's monthly cost": f"{top['cost_per_month']:.2f}",
        "the top pick's price date": f"price as of {top['as_of']}",
        "the four steps": "The four steps",
        "the feasible-point count": f"Chart data: every feasible option ({len(doc.get('feasible_points', [])) or doc['feasible_options']} points)",
        "chart 1's <desc>": '<desc id="chart-cost-time-desc">',
        "chart 2's <title>": '<title id="chart-plans-title">',
    }
    for what, needle in expected.items():
        if needle not in text:
            failures.append(f"the DOM lacks {what}: {needle!r}")
    if text.count("<svg") != 2:
        failures.append(f"the DOM has {text.count('<svg')} <svg> elements, expected the two charts")
    marks = len(re.findall(r'<g class="series" data-name="(?:on-demand|reserved|spot)">', text[:text.find('id="chart-plans"')]))
    if marks == 0:
        failures.append("chart 1 has no point series")

    shot = os.path.join(work, "report.png")
    if os.path.exists(shot):
        os.remove(shot)
    r = chromium_run(chromium, ["--screenshot=" + shot, f"--window-size={WIDTH},{HEIGHT}", "--hide-scrollbars",
                                "file://" + report], work)
    if r.returncode != 0 or not os.path.exists(shot):
        print("chromium --screenshot failed:", r.stderr.decode("utf-8", "replace")[-2000:])
        return 1
    reference = os.path.join(source, "docs", "report.png")
    if os.environ.get("GPUADVISE_UPDATE_REPORT") == "1":
        shutil.copyfile(shot, reference)
        print(f"updated {reference} (review it)")
    elif not os.path.exists(reference):
        failures.append(f"no reference screenshot {reference}; make one with GPUADVISE_UPDATE_REPORT=1")
    else:
        mean, share, message = compare_png(shot, reference)
        print("screenshot:", message)
        if mean is None or mean > MAX_MEAN or share > MAX_STRONG:
            failures.append(f"the screenshot {shot} does not match {reference}: {message}")
    for f in failures:
        print("report: " + f)
    if not failures:
        print(f"report: {len(expected)} DOM checks passed; top pick {pick}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
