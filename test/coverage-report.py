#!/usr/bin/env python3
"""Tables for doc/coverage.md from a gcovr JSON report (gcovr --json):
line and branch coverage per directory and per file, and every function that
never ran.  Used by `make coverage` (test/local.mk); prints Markdown.

usage: coverage-report.py coverage.json"""
import json
import sys


def pct(hit, total):
    return f"{100.0 * hit / total:.1f}" if total else "-"


def directory(path):
    parts = path.split("/")
    if parts[0] == "backends" and len(parts) > 2:
        return "/".join(parts[:2]) + "/"
    return parts[0] + "/" if len(parts) > 1 else "./"


def main():
    with open(sys.argv[1]) as f:
        report = json.load(f)
    files = {}
    for entry in report["files"]:
        lines = [l for l in entry["lines"] if not l.get("gcovr/noncode")]
        branches = [b for l in lines for b in l.get("branches", [])]
        funcs = entry.get("functions", [])
        files[entry["file"]] = {
            "lines": len(lines),
            "lines_hit": sum(1 for l in lines if l["count"] > 0),
            "branches": len(branches),
            "branches_hit": sum(1 for b in branches if b["count"] > 0),
            "funcs": len(funcs),
            "funcs_hit": sum(1 for fn in funcs if fn["execution_count"] > 0),
            "missed": sorted((fn["lineno"], fn["name"]) for fn in funcs
                             if fn["execution_count"] == 0),
        }

    keys = ("lines", "lines_hit", "branches", "branches_hit", "funcs", "funcs_hit")
    dirs = {}
    total = dict.fromkeys(keys, 0)
    for name, s in files.items():
        d = dirs.setdefault(directory(name), dict.fromkeys(keys, 0))
        for k in keys:
            d[k] += s[k]
            total[k] += s[k]

    def row(name, s):
        return (f"| {name} | {pct(s['lines_hit'], s['lines'])} "
                f"({s['lines_hit']}/{s['lines']}) | "
                f"{pct(s['branches_hit'], s['branches'])} "
                f"({s['branches_hit']}/{s['branches']}) | "
                f"{pct(s['funcs_hit'], s['funcs'])} "
                f"({s['funcs_hit']}/{s['funcs']}) |")

    head = ("| {} | lines % (hit/total) | branches % (hit/total) | "
            "functions % (hit/total) |\n| --- | --- | --- | --- |")
    print("### Per directory\n")
    print(head.format("directory"))
    for name in sorted(dirs):
        print(row(name, dirs[name]))
    print(row("**total**", total))
    print("\n### Per file\n")
    print(head.format("file"))
    for name in sorted(files):
        print(row(name, files[name]))
    print("\n### Functions that never ran\n")
    print("| file | line | function |\n| --- | --- | --- |")
    for name in sorted(files):
        for lineno, fn in files[name]["missed"]:
            print(f"| {name} | {lineno} | `{fn}` |")


if __name__ == "__main__":
    main()
