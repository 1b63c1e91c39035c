#!/bin/sh
# Name the freshly trained AOT cache by the hash of the jar it was trained on, and drop any
# older cache: the launcher uses target/aot/<sha256-prefix>.aot only if it matches the jar.
set -eu
target=$1
rm -rf "$target/aot"
if [ -f "$target/hwtool.aot.new" ]; then
    mkdir -p "$target/aot"
    key=$(sha256sum "$target/hwtool.jar" | cut -c1-32)
    mv "$target/hwtool.aot.new" "$target/aot/$key.aot"
fi
