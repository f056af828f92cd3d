#!/usr/bin/env python3
"""Checks the shape of the core (issue 24): no two modules of src/core (a stem's .hpp and .cpp)
include each other's headers both ways, each physics constant and formula has one definition, and
pool (plan) prices jobs through the public evaluate stage, not recommend's internals."""
import glob, os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
files = glob.glob(f'{root}/src/core/*/*.[ch]pp') + glob.glob(f'{root}/include/gpuadvise/*/*.hpp')
problems = []

includes, stems = {}, {}
for f in files:
    name = os.path.basename(f)
    includes[name] = {os.path.basename(x) for x in re.findall(r'#include "([^"]+)"', open(f).read())}
    stems.setdefault(name.rsplit('.', 1)[0], []).append(name)
for a in stems:
    for b in stems:
        if a < b and any(b + '.hpp' in includes[x] for x in stems[a]) \
                and any(a + '.hpp' in includes[x] for x in stems[b]):
            problems.append(f'{a} and {b} include each other both ways')

for pattern in [r'constexpr double kMatmulEfficiency\b', r'constexpr double kHiddenHalf\b',
                r'constexpr double kStepOverheadS\b', r'^double weight_bytes\([^;{]*\)\s*\{', r'constexpr double kWeeksPerMonth\b',
                r'constexpr double kHoursPerMonth\b', r'\bdouble runs_per_month\(']:
    where = [f for f in glob.glob(f'{root}/src/**/*.[ch]pp', recursive=True) + files
             if re.search(pattern, open(f).read(), re.M)]
    if len(set(where)) != 1:
        problems.append(f'{pattern!r} is defined in {len(set(where))} files: {sorted(set(where))}')

pool = open(f'{root}/src/core/advice/pool.cpp').read()
if 'detail::' in pool:
    problems.append('src/core/advice/pool.cpp calls recommend internals (detail::); use evaluate()')

for p in problems:
    print(p)
print(f'core structure: {len(problems)} problem(s)')
sys.exit(1 if problems else 0)
