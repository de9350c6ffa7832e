#!/usr/bin/env python3
"""Compares the non-timing numbers of two `pbsim bench` output folders (issue 17, item 5: a report
regenerates with identical non-timing numbers).

    python3 tools/compare_reports.py docs/results/pd out/pd [--rtol 0]

Compared: every CSV but the timing ones (`*_timing.csv`, see docs/benchmarks.md), cell by cell, and
summary.json without its provenance, its `timing`/`run_timing` arrays and the runs' command lines. Numbers compare equal within --rtol
(default 0: bit-identical as printed). Prints each difference (file, row, column, old, new) and exits
1 if there is one, 2 if a file exists on one side only."""
import argparse
import csv
import json
import math
import os
import sys

# timings, and each run's command line (it names the output folder and the binary's path)
TIMING_KEYS = {"timing", "run_timing", "options"}
# summary.json's provenance: where and when it ran, not what it computed
PROVENANCE_KEYS = {"commit", "build_commit", "date", "machine", "wall_seconds", "command", "build", "suite_copy", "pbsim_version"}


def is_timing_csv(name):
    return name.endswith("_timing.csv")


def numbers_equal(a, b, rtol):
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    if math.isnan(x) and math.isnan(y):
        return True
    return x == y or abs(x - y) <= rtol * max(abs(x), abs(y))


def compare_csv(old, new, name, rtol, out):
    with open(old, newline="") as f:
        rows_old = list(csv.reader(f))
    with open(new, newline="") as f:
        rows_new = list(csv.reader(f))
    n = 0
    if len(rows_old) != len(rows_new):
        out.append(f"{name}: {len(rows_old)} rows -> {len(rows_new)}")
        n += 1
    header = rows_old[0] if rows_old else []
    for i, (ro, rn) in enumerate(zip(rows_old, rows_new)):
        if len(ro) != len(rn):
            out.append(f"{name} row {i}: {len(ro)} columns -> {len(rn)}")
            n += 1
            continue
        for j, (a, b) in enumerate(zip(ro, rn)):
            if not numbers_equal(a, b, rtol):
                col = header[j] if j < len(header) else str(j)
                out.append(f"{name} row {i} ({ro[0]}) {col}: {a} -> {b}")
                n += 1
    return n


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in TIMING_KEYS}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def compare_json(a, b, path, rtol, out):
    if isinstance(a, dict) and isinstance(b, dict):
        n = 0
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}/{k}: only in {'new' if k in b else 'old'}")
                n += 1
            else:
                n += compare_json(a[k], b[k], f"{path}/{k}", rtol, out)
        return n
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} entries -> {len(b)}")
            return 1
        return sum(compare_json(x, y, f"{path}[{i}]", rtol, out) for i, (x, y) in enumerate(zip(a, b)))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if numbers_equal(a, b, rtol):
            return 0
    elif a == b:
        return 0
    out.append(f"{path}: {a} -> {b}")
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rtol", type=float, default=0.0)
    args = ap.parse_args()
    out = []
    ndiff = 0
    missing = 0
    names_old = {f for f in os.listdir(args.old) if f.endswith(".csv") and not is_timing_csv(f)}
    names_new = {f for f in os.listdir(args.new) if f.endswith(".csv") and not is_timing_csv(f)}
    for f in sorted(names_old ^ names_new):
        out.append(f"{f}: only in {'new' if f in names_new else 'old'}")
        missing += 1
    for f in sorted(names_old & names_new):
        ndiff += compare_csv(os.path.join(args.old, f), os.path.join(args.new, f), f, args.rtol, out)
    jo, jn = os.path.join(args.old, "summary.json"), os.path.join(args.new, "summary.json")
    if os.path.exists(jo) and os.path.exists(jn):
        with open(jo) as f:
            a = strip({k: v for k, v in json.load(f).items() if k not in PROVENANCE_KEYS})
        with open(jn) as f:
            b = strip({k: v for k, v in json.load(f).items() if k not in PROVENANCE_KEYS})
        ndiff += compare_json(a, b, "summary.json", args.rtol, out)
    for line in out:
        print(line)
    print(f"compare_reports: {len(names_old & names_new)} CSV files compared, {ndiff} differences, {missing} files on one side only")
    sys.exit(2 if missing else (1 if ndiff else 0))


if __name__ == "__main__":
    main()
