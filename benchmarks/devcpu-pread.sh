#!/usr/bin/env bash
# The cost of one 8-byte pread through the simulated /dev/cpu tree ('hwtool sim mount') against
# the same pread of a tmpfs file, both from src/main/c/devcpu_pread.c (gcc -O2). Needs /dev/fuse,
# libfuse3 and gcc; about a minute. Writes the figures to $OUT (default /tmp/hwtool-devcpu-pread.txt).
set -euo pipefail
bench=$(cd "$(dirname "$0")" && pwd)
root=${bench%/*}
out=${OUT:-/tmp/hwtool-devcpu-pread.txt}
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

gcc -O2 -Wall -Wextra -o "$work/devcpu_pread" "$bench/src/main/c/devcpu_pread.c"
mkdir "$work/mnt"
"$root/hwtool" sim mount --profile skylake "$work/mnt" > "$work/mount.log" 2>&1 &
server=$!
for _ in $(seq 600); do [ -e "$work/mnt/0/msr" ] && break; sleep 0.1; done
[ -e "$work/mnt/0/msr" ] || { cat "$work/mount.log" >&2; exit 1; }

shm=$(mktemp -p /dev/shm)
head -c 4096 /dev/zero > "$shm"
calls=${CALLS:-20000}
rounds=${ROUNDS:-15}
"$work/devcpu_pread" "$work/mnt/0/msr" 0x1a0 2000 3 > /dev/null   # warm-up: JIT of the handler path
read -r fuse_best fuse_median < <("$work/devcpu_pread" "$work/mnt/0/msr" 0x1a0 "$calls" "$rounds")
read -r tmpfs_best tmpfs_median < <("$work/devcpu_pread" "$shm" 0x1a0 "$calls" "$rounds")
rm -f "$shm"
{
    echo "pread 8 B, best (median) ns per call over $rounds rounds of $calls calls; $(nproc) CPUs, Linux $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "simulated /dev/cpu/0/msr (FUSE, IA32_MISC_ENABLE): $fuse_best ($fuse_median)"
    echo "tmpfs file:                                         $tmpfs_best ($tmpfs_median)"
    echo "ratio (best): $(awk "BEGIN { printf \"%.0f\", $fuse_best / $tmpfs_best }")x"
} | tee "$out"
kill -TERM "$server"
wait "$server"
