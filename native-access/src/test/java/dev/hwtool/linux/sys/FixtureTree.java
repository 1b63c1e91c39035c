package dev.hwtool.linux.sys;

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
public final class FixtureTree {

    /** CapEff of a root shell with every capability up to CAP_CHECKPOINT_RESTORE (40). */
    public static final String ALL_CAPS = "000001ffffffffff";

    public final Path root;

    private FixtureTree(Path root) {
        this.root = root;
    }

    /** A two-CPU KVM guest like the build machine: cpuid device, no msr driver loaded, no hardware PMU. */
    public static FixtureTree bareVm(Path dir) {
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
    public FixtureTree withMsr(String allowWrites) {
        return file("/sys/module/msr/initstate", "live\n")
                .file("/sys/module/msr/parameters/allow_writes", allowWrites + "\n")
                .device("/dev/cpu/0/msr").device("/dev/cpu/1/msr");
    }

    /** A Skylake host's core PMU (LBR depth 32), with intel_bts and intel_pt registered. */
    public FixtureTree intelPmus() {
        return pmu("cpu", 4).file("/sys/bus/event_source/devices/cpu/caps/branches", "32\n")
                .file("/sys/bus/event_source/devices/cpu/caps/pmu_name", "skylake\n")
                .file("/sys/bus/event_source/devices/cpu/caps/max_precise", "3\n")
                .file("/sys/bus/event_source/devices/cpu/rdpmc", "1\n")
                .pmu("intel_bts", 8).pmu("intel_pt", 10);
    }

    /** A docker container's id, as dockerd names its directory under data-root/containers. */
    public static final String DOCKER_ID = "3c6e0cd9b4e4b6d0a4f0b1e5b2c5f0c1a0f6a6e3c1d0b4e5f6a7b8c9d0e1f2a3";

    /**
     * /proc/self/mountinfo of a docker container (overlay2 driver, data-root /var/lib/docker on
     * the host's /dev/sda1): the overlay root and dockerd's bind mounts of resolv.conf, hostname
     * and hosts from the container's directory.
     */
    public static final String DOCKER_MOUNTINFO = """
            1108 1012 0:112 / / rw,relatime master:441 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/AB:/var/lib/docker/overlay2/l/CD,upperdir=/var/lib/docker/overlay2/9f1e/diff,workdir=/var/lib/docker/overlay2/9f1e/work
            1109 1108 0:115 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
            1110 1108 0:116 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755
            1131 1108 8:1 /var/lib/docker/containers/%1$s/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/sda1 rw
            1132 1108 8:1 /var/lib/docker/containers/%1$s/hostname /etc/hostname rw,relatime - ext4 /dev/sda1 rw
            1133 1108 8:1 /var/lib/docker/containers/%1$s/hosts /etc/hosts rw,relatime - ext4 /dev/sda1 rw
            """.formatted(DOCKER_ID);

    /** What a docker container shows: /.dockerenv and dockerd's bind mounts. */
    public FixtureTree docker() {
        return file("/.dockerenv", "").file("/proc/self/mountinfo", DOCKER_MOUNTINFO);
    }

    public FixtureTree status(int uid, String capEff) {
        return file("/proc/self/status", "Name:\tjava\nUmask:\t0022\nState:\tR (running)\n"
                + "Uid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\n"
                + "Gid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\n"
                + "CapInh:\t0000000000000000\nCapPrm:\t" + capEff + "\nCapEff:\t" + capEff + "\n"
                + "CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\nNoNewPrivs:\t0\n"
                + "Seccomp:\t0\nSeccomp_filters:\t0\n");
    }

    public FixtureTree pmu(String name, int type) {
        return file("/sys/bus/event_source/devices/" + name + "/type", type + "\n");
    }

    public FixtureTree device(String sysPath) {
        file(sysPath, "");
        try {
            Files.setPosixFilePermissions(at(sysPath), PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public FixtureTree file(String sysPath, String content) {
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
    public FixtureTree kernelConfig(String config) {
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

    public FixtureTree delete(String sysPath) {
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

    public Path at(String sysPath) {
        return root.resolve(sysPath.substring(1));
    }
}
