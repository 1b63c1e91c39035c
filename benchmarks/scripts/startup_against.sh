#!/usr/bin/env bash
# Start-up of this checkout against another revision's, in one round-robin run on this machine:
# the one-shot commands of run.sh's start-up section (scripts/one-shot-commands), each through its own ./hwtool (launcher,
# jar and AOT caches as that revision builds them). Ratios to a hello-world move with the machine
# (52 ms on one, 107 ms on another, both "AMD EPYC"); the same commands of two revisions, taken
# in one run, do not. Issue 25 asks start-up to stay within 10% of the table of 6e8e6cc.
#
# usage: benchmarks/scripts/startup_against.sh REV [ROUNDS]   (default ROUNDS 20, 3 warm-up)
# Builds REV in a temporary git worktree (about a minute), removed on any exit; prints a Markdown
# table of medians and now/then ratios. Timings are reported, never asserted.
set -euo pipefail

[ $# -ge 1 ] || { printf 'usage: %s REV [ROUNDS]\n' "$0" >&2; exit 2; }
rev=$1
rounds=${2:-20}
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
commit=$(git -C "$root" rev-parse --verify --quiet "$rev^{commit}") \
    || { printf 'startup_against.sh: no such revision: %s\n' "$rev" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hwtool-against.XXXXXX")
cleanup() {
    git -C "$root" worktree remove --force "$work/then" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

git -C "$root" worktree add --detach "$work/then" "$commit" >/dev/null 2>&1
printf 'startup_against.sh: building %s and this checkout (untimed) ...\n' "${commit:0:7}" >&2
"$work/then/hwtool" --version >/dev/null
"$root/hwtool" --version >/dev/null

args=()
mapfile -t one_shot < <(grep -v '^#' "$root/benchmarks/scripts/one-shot-commands")
for c in "${one_shot[@]}"; do
    args+=(--cmd "then $c::$work/then/hwtool $c" --cmd "now $c::$root/hwtool $c")
done
python3 "$root/benchmarks/scripts/startup.py" --cwd "$work" --rounds "$rounds" --warmup 3 \
    --out "$work/startup.json" "${args[@]}" >/dev/null

python3 - "$work/startup.json" "${commit:0:7}" "$(git -C "$root" rev-parse --short HEAD)" "$rounds" <<'EOF'
import json, sys
data = json.load(open(sys.argv[1]))
cmds = data["commands"] if isinstance(data, dict) else data
med = {c["label"]: c["median_ms"] for c in cmds}
codes = {c["label"]: sorted(set(c["exit_codes"])) for c in cmds}
then, now, rounds = sys.argv[2], sys.argv[3], sys.argv[4]
print(f"| command | {then} | now ({now}) | now / then |")
print("|---|---|---|---|")
worst = 0.0
for c in cmds:
    if not c["label"].startswith("then "):
        continue
    name = c["label"][5:]
    t, n = med["then " + name], med["now " + name]
    worst = max(worst, n / t)
    bad = "" if codes["then " + name] == codes["now " + name] else f" (exit codes {codes['then ' + name]} / {codes['now ' + name]})"
    print(f"| `{name}` | {t:.0f} ms | {n:.0f} ms | {n / t:.2f}{bad} |")
print(f"\nMedians of {rounds} round-robin rounds; the largest ratio is {worst:.2f}.")
EOF
