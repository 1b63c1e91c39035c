package dev.hwtool.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.function.Supplier;
import java.util.zip.GZIPOutputStream;

/**
 * Another host's /proc, /sys and /dev as files in a temp directory, for doctor through
 * LinuxProbe.probe(root). Device nodes are regular files with the given mode; the probe reads
 * their readability with access(2), so as root every node is readable whatever its mode.
 */
final class HostTree {

    static final String ALL_CAPS = "000001ffffffffff";
    /** A shell user's: no capabilities. */
    static final String NO_CAPS = "0000000000000000";

    final Path root;

    private HostTree(Path root) {
        this.root = root;
    }

    /** A two-CPU Intel host with the msr module loaded (allow_writes=default), a cpu PMU with LBR, root. */
    static HostTree intelHost(Path dir) {
        return new HostTree(dir)
                .file("/proc/sys/kernel/osrelease", "6.8.0-test\n")
                .file("/proc/sys/kernel/arch", "x86_64\n")
                .file("/sys/devices/system/cpu/online", "0-1\n")
                .device("/dev/cpu/0/cpuid", "rw-------").device("/dev/cpu/1/cpuid", "rw-------")
                .device("/dev/cpu/0/msr", "rw-------").device("/dev/cpu/1/msr", "rw-------")
                .file("/sys/module/msr/initstate", "live\n")
                .file("/sys/module/msr/parameters/allow_writes", "default\n")
                .file("/sys/module/cpuid/initstate", "live\n")
                .status(0, ALL_CAPS)
                .file("/proc/self/uid_map", "         0          0 4294967295\n")
                .file("/sys/kernel/security/lockdown", "[none] integrity confidentiality\n")
                .file("/proc/sys/kernel/perf_event_paranoid", "2\n")
                .file("/proc/sys/kernel/perf_event_mlock_kb", "516\n")
                .pmu("software", 1).pmu("tracepoint", 2).pmu("cpu", 4).pmu("msr", 9).pmu("intel_bts", 8).pmu("intel_pt", 10)
                .file("/sys/bus/event_source/devices/cpu/caps/branches", "32\n")
                .file("/sys/bus/event_source/devices/cpu/rdpmc", "1\n")
                .file("/sys/devices/system/cpu/vulnerabilities/meltdown", "Not affected\n")
                .file("/proc/1/cgroup", "0::/init.scope\n")
                .file("/proc/self/cgroup", "0::/user.slice\n");
    }

    /**
     * What a docker container shows: /.dockerenv, and dockerd's bind mounts of resolv.conf,
     * hostname and hosts from its containers/ID directory in /proc/self/mountinfo.
     */
    HostTree docker() {
        String dir = "/var/lib/docker/containers/" + "0123456789abcdef".repeat(4);
        return file("/.dockerenv", "").file("/proc/self/mountinfo", """
                1108 1012 0:112 / / rw,relatime - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/AB
                1131 1108 8:1 %1$s/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/sda1 rw
                1132 1108 8:1 %1$s/hostname /etc/hostname rw,relatime - ext4 /dev/sda1 rw
                1133 1108 8:1 %1$s/hosts /etc/hosts rw,relatime - ext4 /dev/sda1 rw
                """.formatted(dir));
    }

    HostTree status(int uid, String capEff) {
        return file("/proc/self/status", "Name:\tjava\nUid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\n"
                + "Gid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\n"
                + "CapInh:\t0000000000000000\nCapPrm:\t" + capEff + "\nCapEff:\t" + capEff + "\n"
                + "CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\nSeccomp:\t0\n");
    }

    HostTree pmu(String name, int type) {
        return file("/sys/bus/event_source/devices/" + name + "/type", type + "\n");
    }

    HostTree device(String sysPath, String mode) {
        file(sysPath, "");
        return chmod(sysPath, mode);
    }

    HostTree chmod(String sysPath, String mode) {
        try {
            Files.setPosixFilePermissions(at(sysPath), PosixFilePermissions.fromString(mode));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    HostTree file(String sysPath, String content) {
        try {
            Path p = at(sysPath);
            Files.createDirectories(p.getParent());
            Files.writeString(p, content, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    HostTree kernelConfig(String config) {
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

    HostTree delete(String sysPath) {
        try {
            Path p = at(sysPath);
            if (Files.isDirectory(p)) {
                try (var walk = Files.walk(p)) {
                    for (Path q : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.delete(q);
                    }
                }
            } else {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    Path at(String sysPath) {
        return root.resolve(sysPath.substring(1));
    }

    /** Runs {@code body} with doctor reading this tree instead of "/". */
    <T> T asProbeRoot(Supplier<T> body) {
        Path before = DoctorCommand.PROBE_ROOT.get();
        DoctorCommand.PROBE_ROOT.set(root);
        try {
            return body.get();
        } finally {
            DoctorCommand.PROBE_ROOT.set(before);
        }
    }
}
