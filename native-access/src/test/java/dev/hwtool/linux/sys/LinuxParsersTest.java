package dev.hwtool.linux.sys;

import dev.hwtool.caps.LinuxFacts.AllowWrites;
import dev.hwtool.caps.LinuxFacts.KernelConfig;
import dev.hwtool.caps.LinuxFacts.Lockdown;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.UniqueElements;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LinuxParsersTest {

    /** /proc/self/status of a root shell on the build machine (CAP_SYS_RESOURCE, bit 24, dropped). */
    private static final String STATUS = """
            Name:\tcat
            Umask:\t0022
            State:\tR (running)
            Tgid:\t4242
            Uid:\t1000\t0\t0\t0
            Gid:\t0\t0\t0\t0
            Groups:\t
            CapInh:\t0000000000000000
            CapPrm:\t000001fffeffffff
            CapEff:\t000001fffeffffff
            CapBnd:\t000001fffeffffff
            CapAmb:\t0000000000000000
            NoNewPrivs:\t0
            Seccomp:\t2
            Seccomp_filters:\t1
            """;

    @Test
    void cpuListRangesAndSingles() {
        assertEquals(List.of(0, 1), LinuxParsers.cpuList("0-1\n"));
        assertEquals(List.of(0, 1, 2, 3, 5, 7, 8), LinuxParsers.cpuList("0-3,5,7-8\n"));
        assertEquals(List.of(), LinuxParsers.cpuList("\n"));
        assertThrows(IllegalArgumentException.class, () -> LinuxParsers.cpuList("0-x"));
        assertThrows(IllegalArgumentException.class, () -> LinuxParsers.cpuList("3-1"));
    }

    /** Printing a set as the kernel does (ranges for runs) and parsing it back gives the set. */
    @Property
    void cpuListRoundTrip(@ForAll @Size(max = 40) @UniqueElements List<@IntRange(max = 511) Integer> cpus) {
        TreeSet<Integer> sorted = new TreeSet<>(cpus);
        List<String> parts = new ArrayList<>();
        Integer start = null;
        Integer prev = null;
        for (int c : sorted) {
            if (start == null) {
                start = c;
            } else if (c != prev + 1) {
                parts.add(start.equals(prev) ? "" + start : start + "-" + prev);
                start = c;
            }
            prev = c;
        }
        if (start != null) {
            parts.add(start.equals(prev) ? "" + start : start + "-" + prev);
        }
        assertEquals(new ArrayList<>(sorted), LinuxParsers.cpuList(String.join(",", parts) + "\n"));
    }

    @Test
    void statusFields() {
        assertEquals(0x000001fffeffffffL, LinuxParsers.capEff(STATUS));
        assertEquals(0, LinuxParsers.euid(STATUS), "the effective uid is the second field");
        assertEquals(2, LinuxParsers.seccomp(STATUS));
        assertEquals(1, LinuxParsers.seccompFilters(STATUS), "Seccomp_filters: (Linux 5.9+), not Seccomp:");
        assertThrows(IllegalArgumentException.class, () -> LinuxParsers.seccompFilters("Seccomp:\t0\n"),
                "a kernel before 5.9 prints no count");
        assertEquals(Optional.of("cat"), LinuxParsers.statusField(STATUS, "Name"));
        assertEquals(Optional.empty(), LinuxParsers.statusField(STATUS, "Cpus_allowed"));
        assertThrows(IllegalArgumentException.class, () -> LinuxParsers.capEff("Name:\tx\n"));
        assertThrows(IllegalArgumentException.class, () -> LinuxParsers.capEff("CapEff:\tzz\n"));
    }

    @Test
    void uidMap() {
        assertTrue(LinuxParsers.initialUserNamespace("         0          0 4294967295\n"));
        assertFalse(LinuxParsers.initialUserNamespace("         0       1000          1\n"));
        assertFalse(LinuxParsers.initialUserNamespace("0 100000 65536\n65536 1000 1\n"));
        assertThrows(IllegalArgumentException.class, () -> LinuxParsers.initialUserNamespace(""));
    }

    @Test
    void lockdownTakesTheBracketedLevel() {
        assertEquals(Lockdown.NONE, LinuxParsers.lockdown("[none] integrity confidentiality\n"));
        assertEquals(Lockdown.INTEGRITY, LinuxParsers.lockdown("none [integrity] confidentiality\n"));
        assertEquals(Lockdown.CONFIDENTIALITY, LinuxParsers.lockdown("none integrity [confidentiality]\n"));
        assertThrows(IllegalArgumentException.class, () -> LinuxParsers.lockdown("none integrity confidentiality"));
    }

    @Test
    void allowWrites() {
        assertEquals(AllowWrites.ON, LinuxParsers.allowWrites("on\n"));
        assertEquals(AllowWrites.OFF, LinuxParsers.allowWrites("off\n"));
        assertEquals(AllowWrites.DEFAULT, LinuxParsers.allowWrites("default\n"));
        assertThrows(IllegalArgumentException.class, () -> LinuxParsers.allowWrites("yes"));
    }

    @Test
    void integers() {
        assertEquals(-1, LinuxParsers.integer("-1\n"));
        assertEquals(516, LinuxParsers.integer("516\n"));
        assertThrows(IllegalArgumentException.class, () -> LinuxParsers.integer("two"));
    }

    @Test
    void kernelConfigKeepsOnlyWantedOptions() {
        String config = """
                #
                # Automatically generated file; DO NOT EDIT.
                CONFIG_PERF_EVENTS=y
                # CONFIG_X86_MSR is not set
                CONFIG_X86_CPUID=y
                # CONFIG_MODULES is not set
                CONFIG_LSM="landlock,lockdown,yama"
                CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY=y
                """;
        assertEquals(Map.of("CONFIG_PERF_EVENTS", "y", "CONFIG_X86_MSR", "n", "CONFIG_X86_CPUID", "y",
                        "CONFIG_MODULES", "n", "CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY", "y"),
                LinuxParsers.kernelConfig(config, KernelConfig.WANTED));
        assertEquals(Map.of("CONFIG_LSM", "landlock,lockdown,yama"),
                LinuxParsers.kernelConfig(config, java.util.Set.of("CONFIG_LSM")));
    }

    @Test
    void containerMarkersInCgroupPaths() {
        assertEquals(Optional.of("docker"), LinuxParsers.containerFromCgroup(
                "12:pids:/docker/3f1c0e1a2b\n0::/system.slice/docker-3f1c0e1a2b.scope\n"));
        assertEquals(Optional.of("kubernetes"), LinuxParsers.containerFromCgroup(
                "0::/kubepods.slice/kubepods-burstable.slice/docker-abc.scope\n"));
        assertEquals(Optional.of("podman"), LinuxParsers.containerFromCgroup(
                "0::/machine.slice/libpod-0123abcd.scope/container\n"));
        assertEquals(Optional.of("lxc"), LinuxParsers.containerFromCgroup("0::/lxc.payload.web1\n"));
        assertEquals(Optional.empty(), LinuxParsers.containerFromCgroup("0::/\n"));
        assertEquals(Optional.empty(), LinuxParsers.containerFromCgroup(
                "4:memory:/process_api/130cb593b29987acce016f7278ff6ae9\n0::/\n"));
        assertEquals(Optional.empty(), LinuxParsers.containerFromCgroup("0::/user.slice/user-1000.slice\n"));
    }

    @Test
    void environVariable() {
        String environ = "HOME=/\0container=podman\0PATH=/usr/bin\0";
        assertEquals(Optional.of("podman"), LinuxParsers.environVariable(environ, "container"));
        assertEquals(Optional.empty(), LinuxParsers.environVariable(environ, "TERM"));
        assertEquals(Optional.empty(), LinuxParsers.environVariable("xcontainer=lxc\0", "container"));
    }

    @Test
    void dockerBindMountsAreFoundByTheirContainerDirectory() {
        assertEquals(Optional.of("/etc/resolv.conf from containers/3c6e0cd9b4e4"),
                LinuxParsers.dockerBindMount(FixtureTree.DOCKER_MOUNTINFO));
        // data-root on its own file system: the root field is relative to that file system
        assertEquals(Optional.of("/etc/hostname from containers/" + FixtureTree.DOCKER_ID.substring(0, 12)),
                LinuxParsers.dockerBindMount("40 30 8:17 /docker\\040data/containers/" + FixtureTree.DOCKER_ID
                        + "/hostname /etc/hostname rw - ext4 /dev/sdb1 rw\n"));
        // a hostname file mounted elsewhere, a short id, or a VM's plain root are not docker's
        assertEquals(Optional.empty(), LinuxParsers.dockerBindMount("40 30 8:17 /containers/" + FixtureTree.DOCKER_ID
                + "/hostname /mnt/hostname rw - ext4 /dev/sdb1 rw\n"));
        assertEquals(Optional.empty(), LinuxParsers.dockerBindMount("40 30 8:17 /containers/3c6e0cd9b4e4/hosts"
                + " /etc/hosts rw - ext4 /dev/sdb1 rw\n"));
        assertEquals(Optional.empty(), LinuxParsers.dockerBindMount("27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"));
        assertEquals(Optional.empty(), LinuxParsers.dockerBindMount(""));
    }

    @Test
    void mountinfoOctalEscapes() {
        assertEquals("/a b\tc\\d", LinuxParsers.unescapeOctal("/a\\040b\\011c\\134d"));
        assertEquals("/plain", LinuxParsers.unescapeOctal("/plain"));
        assertEquals("/end\\04", LinuxParsers.unescapeOctal("/end\\04"), "a cut-off escape stays as it is");
    }
}
