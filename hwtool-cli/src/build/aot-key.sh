#!/bin/sh
# Name the freshly trained AOT cache by the hash of the jar it was trained on, drop any older
# cache, and write target/aot/key: the jar's identity as find(1) prints it (device, inode, size,
# mtime and ctime: -printf '%D:%i:%s:%T@:%C@', the format of the launcher's jar_state) and the
# cache's name. The launcher uses the cache only when the jar's identity is still the one recorded here, so a cache never meets another jar (JDK-8377932:
# 25.0.3 would use a stale one silently) without hashing the jar on every start: replacing the
# jar, or writing to it, changes its inode or its ctime, which no one can set back.
set -eu
target=$1
rm -rf "$target/aot"
if [ -f "$target/hwtool.aot.new" ]; then
    mkdir -p "$target/aot"
    key=$(sha256sum "$target/hwtool.jar" | cut -c1-32)
    mv "$target/hwtool.aot.new" "$target/aot/$key.aot"
    # The families' caches (AotTrainCommand.FAMILIES), named after the whole one.
    for f in "$target"/hwtool-*.aot.new; do
        [ -f "$f" ] || continue
        family=${f##*/hwtool-}
        mv "$f" "$target/aot/$key-${family%.aot.new}.aot"
    done
    printf '%s %s\n' "$(find "$target/hwtool.jar" -printf '%D:%i:%s:%T@:%C@')" "$key.aot" >"$target/aot/key.new"
    mv "$target/aot/key.new" "$target/aot/key"
fi
rm -f "$target"/hwtool-*.aot.new
