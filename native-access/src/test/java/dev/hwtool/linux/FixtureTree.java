package dev.hwtool.linux;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;

/**
 * A fake root file system in a temp directory, laid out like /proc, /sys and /dev, for
 * {@link LinuxProbe#probe(Path)}. Device nodes are regular files: the probe records that.
 */
final class FixtureTree {

    /** CapEff of a root shell with every capability up to CAP_CHECKPOINT_RESTORE (40). */
    static final String ALL_CAPS = "000001ffffffffff";

    final Path root;

    private FixtureTree(Path root) {
        this.root = root;
    }

    /** A two-CPU KVM guest like the build machine: cpuid device, no msr driver loaded, no hardware PMU. */
    static FixtureTree bareVm(Path dir) {
        FixtureTree t = new FixtureTree(dir)
                .file("/proc/sys/kernel/osrelease", "6.1.0-test\n")
                .file("/proc/sys/kernel/arch", "x86_64\n")
                .file("/sys/devices/system/cpu/online", "0-1\n")
                .device("/dev/cpu/0/cpuid").device("/dev/cpu/1/cpuid")
                .status(0, ALL_CAPS)
                .file("/proc/self/uid_map", "         0          0 4294967295\n")
                .file("/proc/sys/kernel/perf_event_paranoid", "2\n")
                .file("/proc/sys/kernel/perf_event_mlock_kb", "516\n")
                .pmu("software", 1).pmu("tracepoint", 2).pmu("breakpoint", 5).pmu("uprobe", 8).pmu("msr", 9)
                .file("/sys/devices/system/cpu/vulnerabilities/meltdown", "Not affected\n")
                .file("/proc/1/cgroup", "0::/\n")
                .file("/proc/self/cgroup", "0::/\n")
                .file("/lib/modules/6.1.0-test/kernel/arch/x86/kernel/msr.ko.xz", "")
                .file("/lib/modules/6.1.0-test/kernel/arch/x86/kernel/cpuid.ko.xz", "")
                .file("/sys/module/cpuid/initstate", "live\n");
        return t;
    }

    /** The bare VM with the msr module loaded: nodes for both CPUs, allow_writes as given. */
    FixtureTree withMsr(String allowWrites) {
        return file("/sys/module/msr/initstate", "live\n")
                .file("/sys/module/msr/parameters/allow_writes", allowWrites + "\n")
                .device("/dev/cpu/0/msr").device("/dev/cpu/1/msr");
    }

    /** A Skylake host's core PMU (LBR depth 32), with intel_bts and intel_pt registered. */
    FixtureTree intelPmus() {
        return pmu("cpu", 4).file("/sys/bus/event_source/devices/cpu/caps/branches", "32\n")
                .file("/sys/bus/event_source/devices/cpu/caps/pmu_name", "skylake\n")
                .file("/sys/bus/event_source/devices/cpu/caps/max_precise", "3\n")
                .file("/sys/bus/event_source/devices/cpu/rdpmc", "1\n")
                .pmu("intel_bts", 8).pmu("intel_pt", 10);
    }

    FixtureTree status(int uid, String capEff) {
        return file("/proc/self/status", "Name:\tjava\nUmask:\t0022\nState:\tR (running)\n"
                + "Uid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\n"
                + "Gid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\n"
                + "CapInh:\t0000000000000000\nCapPrm:\t" + capEff + "\nCapEff:\t" + capEff + "\n"
                + "CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\nNoNewPrivs:\t0\n"
                + "Seccomp:\t0\nSeccomp_filters:\t0\n");
    }

    FixtureTree pmu(String name, int type) {
        return file("/sys/bus/event_source/devices/" + name + "/type", type + "\n");
    }

    FixtureTree device(String sysPath) {
        file(sysPath, "");
        try {
            Files.setPosixFilePermissions(at(sysPath), PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    FixtureTree file(String sysPath, String content) {
        try {
            Path p = at(sysPath);
            Files.createDirectories(p.getParent());
            Files.writeString(p, content, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** /proc/config.gz holding the given .config text. */
    FixtureTree kernelConfig(String config) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
                gz.write(config.getBytes(StandardCharsets.ISO_8859_1));
            }
            Path p = at("/proc/config.gz");
            Files.createDirectories(p.getParent());
            Files.write(p, bytes.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    FixtureTree delete(String sysPath) {
        Path p = at(sysPath);
        if (!Files.exists(p)) {
            return this;
        }
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    Path at(String sysPath) {
        return root.resolve(sysPath.substring(1));
    }
}
