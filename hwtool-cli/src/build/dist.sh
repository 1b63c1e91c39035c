#!/bin/sh
# The self-contained distribution, from the shaded jar and the runtime that jlink made from the
# toolchain's JDK (the pom's dist-* executions run jdeps and jlink, then this script twice):
#   dist.sh args TARGET          writes TARGET/dist/jlink.args: the modules jdeps found in the
#                                jar, plus jdk.httpserver (the exporter's HTTP server is reached
#                                through the Prometheus client, which jdeps cannot see into)
#   dist.sh package TARGET VERSION BASEDIR
#                                TARGET/hwtool-VERSION-linux-x86_64.tar.gz and
#                                TARGET/hwtool_DEBVERSION_amd64.deb (installs under /opt/hwtool,
#                                /usr/bin/hwtool; never the rdmsr, wrmsr or cpuid names)
set -eu
step=$1
target=$2
dist=$target/dist
case $step in
args)
    modules=$(tr -d ' \n' <"$dist/modules.txt")
    case ,$modules, in
    *,jdk.httpserver,*) ;;
    *) modules=$modules,jdk.httpserver ;;
    esac
    rm -rf "$dist/runtime"
    # jlink @file: options separated by white space (jlink --help, "@<filename>").
    printf '%s\n' --add-modules "$modules" --output "$dist/runtime" \
        --strip-debug --no-header-files --no-man-pages --compress=zip-6 >"$dist/jlink.args"
    ;;
package)
    version=$3
    basedir=$4
    name=hwtool-$version
    stage=$dist/stage/$name
    rm -rf "$dist/stage" "$dist/deb"
    mkdir -p "$stage/bin" "$stage/lib"
    cp -a "$dist/runtime" "$stage/runtime"
    cp "$target/hwtool.jar" "$stage/lib/hwtool.jar"
    cp "$basedir/src/dist/bin/hwtool" "$stage/bin/hwtool"
    chmod 755 "$stage/bin/hwtool"
    cp "$basedir/../LICENSE" "$stage/LICENSE"
    # Reproducible enough to compare: owner and times do not come from this build machine.
    tar -C "$dist/stage" --owner=0 --group=0 --numeric-owner --sort=name \
        -czf "$target/$name-linux-x86_64.tar.gz" "$name"

    # Debian's version syntax: '-' separates the Debian revision, '~' sorts before the release
    # (deb-version(7)), so 0.1.0-SNAPSHOT becomes 0.1.0~SNAPSHOT.
    debversion=$(printf '%s' "$version" | tr '-' '~')
    deb=$dist/deb
    mkdir -p "$deb/DEBIAN" "$deb/opt" "$deb/usr/bin"
    cp -a "$stage" "$deb/opt/hwtool"
    ln -s /opt/hwtool/bin/hwtool "$deb/usr/bin/hwtool"
    size=$(du -sk "$deb/opt" | cut -f1)
    # The runtime's native libraries need only glibc (libc, libm, libdl, libpthread, librt);
    # Temurin links zlib statically. bin/hwtool starts java through env --block-signal (GNU
    # coreutils 8.31; coreutils is Essential in Debian, the version is what needs saying).
    cat >"$deb/DEBIAN/control" <<CONTROL
Package: hwtool
Version: $debversion
Architecture: amd64
Maintainer: hwtool developers <hwtool@localhost>
Installed-Size: $size
Depends: libc6 (>= 2.17), coreutils (>= 8.31)
Section: utils
Priority: optional
Homepage: https://github.com/hwtool/hwtool
Description: x86 MSRs, CPUID, LBR, BTS and perf on Linux, with a simulator
 hwtool reads and writes model-specific registers, decodes CPUID, records
 last-branch records and branch traces, counts with perf, and says which of
 these a host allows and why. Self-contained: it brings its own Java runtime
 under /opt/hwtool. It does not install the rdmsr, wrmsr or cpuid names of
 msr-tools and cpuid; see the README ("Install without a JDK").
CONTROL
    rm -f "$target"/hwtool_*_amd64.deb
    # gzip, not dpkg-deb's default xz: the runtime's modules are already compressed (jlink
    # --compress), so xz saved 10% (39 against 43 MB) for 33 s more of every build here.
    dpkg-deb --root-owner-group -Zgzip --build "$deb" "$target/hwtool_${debversion}_amd64.deb" >/dev/null
    ;;
*)
    echo "dist.sh: unknown step $step" >&2
    exit 2
    ;;
esac
