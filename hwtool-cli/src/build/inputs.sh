#!/bin/sh
# Write target/hwtool.inputs: every file and directory the jar is built from (the poms and all
# of src/main in the three modules), relative to the project root. The launcher rebuilds when
# one of them is newer than the jar, with bash's own [ -nt ] (a stat(2) each, no process): an
# edited file has a newer mtime, and a file added, removed or renamed changes the mtime of a
# directory on the list. This replaces a find(1) over the tree on every start.
set -eu
root=$1
target=$2
cd "$root"
{
    printf '%s\n' pom.xml
    for m in native-access simulator-fallback hwtool-cli; do
        printf '%s\n' "$m/pom.xml" "$m/src"
        [ -d "$m/src/main" ] && find "$m/src/main" -print
    done
} >"$target/hwtool.inputs.new"
mv "$target/hwtool.inputs.new" "$target/hwtool.inputs"
