#!/usr/bin/env python3
"""Writes README.md's performance section (between <!-- BENCH:START --> and <!-- BENCH:END -->)
from benchmarks/results.md: the run's machine line and its targets table, verbatim, so the README
never states a figure the run did not produce. benchmarks/run.sh calls it after report.py;
ReadmeFiguresTest checks the result."""
import argparse
import re
import sys

INTRO = """`benchmarks/run.sh` (about 15 minutes) builds the JMH jar and the C references (`gcc -O2`), runs
both, times start-up against a hello-world jar on the same JDK, boots one QEMU guest for the MSR
read path (`SKIP_MSR=1` leaves it out), measures the simulator's throughput against a bare-JVM
reference and the perf paths (counter reads, rdpmc, ring parsing) against C, and writes every
figure, with its reference from the same run, to [`benchmarks/results.md`](benchmarks/results.md),
which also says why each target is met or not. No test asserts a time. This section is written
from that file by `benchmarks/scripts/readme.py` (`ReadmeFiguresTest` checks it): the run's machine
as `run.sh` recorded it, and its targets table. Each area (native calls, the MSR read path in the
guest, the simulator, perf counter reads, ring parsing and rdpmc, start-up) has its own section
there, with every reference and what the figures say."""


def section(results):
    machine = next((l for l in results.splitlines() if l.startswith("Machine: ")), None)
    if machine is None:
        sys.exit("results.md has no 'Machine: ' line")
    m = re.search(r"^## Targets\n\n((?:\|.*\n)+)", results, re.M)
    if m is None:
        sys.exit("results.md has no '## Targets' table")
    return f"<!-- BENCH:START -->\n{INTRO}\n\n{machine}\n\n{m.group(1).rstrip()}\n<!-- BENCH:END -->"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--results", required=True)
    p.add_argument("--readme", required=True)
    a = p.parse_args()
    with open(a.results) as f:
        results = f.read()
    with open(a.readme) as f:
        readme = f.read()
    start, end = readme.find("<!-- BENCH:START -->"), readme.find("<!-- BENCH:END -->")
    if start < 0 or end < start:
        sys.exit(f"{a.readme} has no BENCH:START/BENCH:END markers")
    end += len("<!-- BENCH:END -->")
    with open(a.readme, "w") as f:
        f.write(readme[:start] + section(results) + readme[end:])


if __name__ == "__main__":
    main()
