package dev.hwtool.linux;

import dev.hwtool.linux.sys.FixtureTree;
import dev.hwtool.linux.sys.LinuxProbe;
import dev.hwtool.api.Cause;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.MissingNode;
import dev.hwtool.caps.MissingNode.Explanation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The shared explanation of a missing /dev/cpu/N node, on fixture trees read by LinuxProbe: the
 * cause follows the driver's state (DRIVER_NOT_LOADED only when the driver is not there), the
 * remedy follows the driver's state and the container.
 */
class MissingNodeTest {

    @TempDir
    Path dir;

    private static Explanation msr(FixtureTree t) {
        LinuxFacts f = LinuxProbe.probe(t.root);
        return MissingNode.explain(f, f.msrDriver());
    }

    private static Explanation cpuid(FixtureTree t) {
        LinuxFacts f = LinuxProbe.probe(t.root);
        return MissingNode.explain(f, f.cpuidDriver());
    }

    @Test
    void onAHostTheDriverStateDecides() {
        FixtureTree t = FixtureTree.bareVm(dir);
        assertEquals(new Explanation(Cause.DRIVER_NOT_LOADED,
                "the msr driver is not loaded (msr.ko installed, no /sys/module/msr)", "sudo modprobe msr"), msr(t));

        t.delete("/lib/modules").kernelConfig("CONFIG_MODULES=y\n# CONFIG_X86_MSR is not set\nCONFIG_X86_CPUID=y\n");
        assertEquals(new Explanation(Cause.DRIVER_NOT_LOADED,
                "the kernel has no msr driver (CONFIG_X86_MSR is not set in /proc/config.gz)",
                "boot a kernel built with CONFIG_X86_MSR=y or =m, then sudo modprobe msr"), msr(t));

        t.file("/sys/module/msr/initstate", "live\n");
        assertEquals(new Explanation(Cause.UNSUPPORTED,
                "the msr driver is present (/sys/module/msr/initstate: live) but its node is not in this /dev",
                "sudo mount -t devtmpfs devtmpfs /dev (creates /dev/cpu/N/msr)"), msr(t));
    }

    @Test
    void inADockerContainerWithoutDevCpuEveryRemedyEndsWithTheDevices() {
        FixtureTree t = FixtureTree.bareVm(dir).docker().delete("/dev/cpu");
        String notPassed = "there is no /dev/cpu in this docker container: the host's CPU device nodes were not passed in";
        assertEquals(new Explanation(Cause.DRIVER_NOT_LOADED,
                notPassed + ", and the msr driver is not loaded (msr.ko installed, no /sys/module/msr)",
                "on the host: sudo modprobe msr; then start the container with --device=/dev/cpu --cap-add=SYS_RAWIO"),
                msr(t));
        assertEquals(new Explanation(Cause.UNSUPPORTED,
                notPassed + "; the cpuid driver is present (/sys/module/cpuid/initstate: live)",
                "start the container with --device=/dev/cpu"), cpuid(t), "cpuid_open needs no capability");

        t.delete("/lib/modules").kernelConfig("CONFIG_MODULES=y\n# CONFIG_X86_MSR is not set\n");
        assertEquals(new Explanation(Cause.DRIVER_NOT_LOADED,
                notPassed + ", and the kernel has no msr driver (CONFIG_X86_MSR is not set in /proc/config.gz)",
                "on the host: boot a kernel built with CONFIG_X86_MSR=y or =m, then sudo modprobe msr; then start the"
                        + " container with --device=/dev/cpu --cap-add=SYS_RAWIO"), msr(t),
                "no modprobe when the host's kernel has no driver to load");

        t.file("/sys/module/msr/initstate", "live\n");
        assertEquals(new Explanation(Cause.UNSUPPORTED,
                notPassed + "; the msr driver is present (/sys/module/msr/initstate: live)",
                "start the container with --device=/dev/cpu --cap-add=SYS_RAWIO"), msr(t));
    }

    @Test
    void aContainerWithSomeNodesSaysTheRestWereNotPassedIn() {
        FixtureTree t = FixtureTree.bareVm(dir).docker().delete("/dev/cpu/1/cpuid");
        assertEquals(new Explanation(Cause.UNSUPPORTED,
                "not passed into this docker container; the cpuid driver is present (/sys/module/cpuid/initstate: live)",
                "start the container with --device=/dev/cpu"), cpuid(t));
        LinuxFacts f = LinuxProbe.probe(t.root);
        assertEquals("CPU 1 is online but /x/cpu/1 is missing: not passed into this docker container; the cpuid"
                + " driver is present (/sys/module/cpuid/initstate: live)",
                MissingNode.forCpu(f, f.cpuidDriver(), 1, Path.of("/x/cpu/1"), false).why());
        assertEquals("/x/cpu/1 exists but has no cpuid node: not passed into this docker container; the cpuid"
                + " driver is present (/sys/module/cpuid/initstate: live)",
                MissingNode.forCpu(f, f.cpuidDriver(), 1, Path.of("/x/cpu/1"), true).why());
    }

    @Test
    void containerStartClausesAreMergedIntoOne() {
        String rawio = "start the container with --cap-add=SYS_RAWIO";
        assertEquals(List.of("on the host: sudo modprobe msr; then start the container with --device=/dev/cpu"
                        + " --cap-add=SYS_RAWIO"),
                MissingNode.mergeContainerStarts(List.of(MissingNode.onTheHost("sudo modprobe msr", "msr"), rawio)));
        assertEquals(List.of("start the container with --device=/dev/cpu --cap-add=SYS_RAWIO", "boot without lockdown"),
                MissingNode.mergeContainerStarts(List.of(MissingNode.containerDevices("cpuid"), "boot without lockdown",
                        rawio)));
        assertEquals(List.of("start the container with --cap-add=SYS_RAWIO --device=/dev/cpu", "on the host: x"),
                MissingNode.mergeContainerStarts(List.of(rawio, MissingNode.onTheHost("x", "cpuid"))),
                "a later clause gives its flags to the first and keeps its host step");
        assertEquals(List.of("sudo modprobe msr", "boot without lockdown"),
                MissingNode.mergeContainerStarts(List.of("sudo modprobe msr", "boot without lockdown")));
    }
}
