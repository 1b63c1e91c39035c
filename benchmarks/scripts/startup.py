#!/usr/bin/env python3
"""Wall time of one-shot commands, measured round-robin.

Every round runs each command once, in a shuffled order (fixed seed), so slow drift of a noisy
shared VM hits all commands alike; single back-to-back series drifted by +-30% here
(docs/facts.md §2.2). Output: JSON with every sample, in ms.

usage: startup.py --rounds N --warmup W --out FILE --cmd 'label::command args' ...
Commands are split with shlex and run without a shell; stdout/stderr go to /dev/null.
"""
import argparse
import json
import random
import shlex
import statistics
import subprocess
import sys
import time


def run(argv, cwd):
    t0 = time.perf_counter_ns()
    rc = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return (time.perf_counter_ns() - t0) / 1e6, rc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--cwd", default=".")
    p.add_argument("--out", required=True)
    p.add_argument("--cmd", action="append", required=True, help="label::command")
    a = p.parse_args()

    cmds = []
    for spec in a.cmd:
        label, _, line = spec.partition("::")
        if not line:
            sys.exit(f"startup.py: --cmd needs 'label::command', got {spec!r}")
        cmds.append({"label": label, "command": line, "argv": shlex.split(line),
                     "samples_ms": [], "exit_codes": []})

    rng = random.Random(42)
    for _ in range(a.warmup):
        for c in cmds:
            run(c["argv"], a.cwd)
    for _ in range(a.rounds):
        order = list(cmds)
        rng.shuffle(order)
        for c in order:
            ms, rc = run(c["argv"], a.cwd)
            c["samples_ms"].append(ms)
            c["exit_codes"].append(rc)

    for c in cmds:
        s = sorted(c["samples_ms"])
        c["median_ms"] = statistics.median(s)
        c["p10_ms"] = s[int(0.1 * (len(s) - 1))]
        c["p90_ms"] = s[int(0.9 * (len(s) - 1) + 0.5)]
        c["min_ms"] = s[0]
        del c["argv"]
        print(f"  {c['label']:<28} median {c['median_ms']:7.1f} ms  "
              f"(p10 {c['p10_ms']:.1f}, p90 {c['p90_ms']:.1f}, exit {sorted(set(c['exit_codes']))})",
              file=sys.stderr)
    with open(a.out, "w") as f:
        json.dump({"rounds": a.rounds, "warmup": a.warmup, "commands": cmds}, f, indent=1)


if __name__ == "__main__":
    main()
