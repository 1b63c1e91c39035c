#!/bin/sh
# One change to picocli's source (unpacked by the build, see pom.xml) for start-up time.
#
# CommandReflection.extractCommandSpec walks a command class's hierarchy up to and including
# java.lang.Object and looks for picocli annotations on every member of every class in it
# (initMethodSubcommands -> getCommandMethods -> Method.isAnnotationPresent, and
# initFromAnnotatedMembers). On Object that parses the JDK's own method annotations
# (@IntrinsicCandidate, @Deprecated and, for their type, @Retention): the JDK makes one proxy class
# per annotation type (sun.reflect.annotation.AnnotationParser.annotationForMap ->
# java.lang.reflect.Proxy), three class generations in the interpreter on every start, for
# annotations picocli never uses. Object has no picocli annotations, so the walk stops below it.
#
# Idempotent (the unpacked file is kept while it is newer than the sources jar); fails when
# neither the original line nor the patched one is there, e.g. after a picocli upgrade.
set -eu
f=$1/picocli/CommandLine.java
marker='while (cls != null \&\& cls != Object.class) { // hwtool: src/build/picocli-patch.sh'
if grep -q 'while (cls != null && cls != Object.class) { // hwtool: src/build/picocli-patch.sh' "$f"; then
    exit 0
fi
n=$(grep -c '^                    while (cls != null) {$' "$f" || true)
if [ "$n" != 1 ]; then
    echo "picocli-patch.sh: expected one hierarchy walk in $f, found $n: check the patch against this picocli version" >&2
    exit 1
fi
sed -i "s|^                    while (cls != null) {\$|                    $marker|" "$f"
grep -q 'while (cls != null && cls != Object.class) { // hwtool' "$f"
