package dev.hwtool.linux.sys;

import dev.hwtool.caps.Fact;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.LinuxFacts.Container;
import dev.hwtool.caps.LinuxFacts.DriverState;
import dev.hwtool.caps.LinuxFacts.KernelConfig;
import dev.hwtool.caps.LinuxFacts.Lockdown;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LinuxProbeTest {

    @TempDir
    Path dir;

    @Test
    void emptyTreeGivesAbsentFactsAndNoException() {
        LinuxFacts f = LinuxProbe.probe(dir);
        assertEquals(new Fact.Absent<>("/proc/sys/kernel/perf_event_paranoid"), f.perfEventParanoid());
        assertEquals("unavailable", f.lockdownLabel());
        assertFalse(f.devCpuPresent());
        assertEquals(List.of(), f.cpus());
        assertEquals(List.of(), f.pmus());
        assertEquals(Container.NONE, f.container());
        assertEquals(DriverState.UNKNOWN, f.msrDriver().state());
        assertEquals(KernelConfig.NONE, f.kernelConfig());
        assertFalse(f.kpti());
    }

    @Test
    void absentUnreadableAndMalformedStayDistinct() throws IOException {
        FixtureTree t = FixtureTree.bareVm(dir).file("/proc/sys/kernel/perf_event_mlock_kb", "lots\n");
        // a directory where a file belongs: reading it fails with an I/O error even for root
        t.delete("/sys/module/msr");
        Files.createDirectories(t.at("/sys/kernel/security/lockdown"));
        LinuxFacts f = LinuxProbe.probe(t.root);
        assertEquals(Fact.known(2), f.perfEventParanoid());
        assertEquals(new Fact.Malformed<>("/proc/sys/kernel/perf_event_mlock_kb", "lots"), f.perfEventMlockKb());
        assertInstanceOf(Fact.Unreadable.class, f.lockdown());
        assertEquals("unreadable", f.lockdownLabel());
        assertEquals(new Fact.Absent<>("/sys/module/msr/parameters/allow_writes"), f.msrAllowWrites());
    }

    @Test
    void bareVmFacts() {
        LinuxFacts f = LinuxProbe.probe(FixtureTree.bareVm(dir).root);
        assertEquals(Fact.known("6.1.0-test"), f.kernelRelease());
        assertEquals(Fact.known(List.of(0, 1)), f.onlineCpus());
        assertEquals(2, f.cpus().size());
        LinuxFacts.CpuDevices cpu1 = f.cpus().get(1);
        assertEquals(1, cpu1.cpu());
        assertTrue(cpu1.online() && cpu1.directory());
        assertFalse(cpu1.msr().present());
        assertTrue(cpu1.cpuid().present());
        assertFalse(cpu1.cpuid().charDevice(), "fixture nodes are regular files");
        assertEquals("-rw-------", cpu1.cpuid().mode());
        assertEquals("/dev/cpu/1/cpuid", cpu1.cpuid().path());
        assertEquals(DriverState.MODULE_NOT_LOADED, f.msrDriver().state());
        assertEquals(DriverState.MODULE_LOADED, f.cpuidDriver().state());
        assertEquals(Fact.known(0x1ffffffffffL), f.credentials().capEff());
        assertEquals(Fact.known(true), f.credentials().initialUserNamespace());
        assertTrue(f.credentials().root());
        assertEquals(Fact.known(516), f.perfEventMlockKb());
        assertEquals(List.of("breakpoint", "msr", "software", "tracepoint", "uprobe"),
                f.pmus().stream().map(LinuxFacts.Pmu::name).toList());
        assertEquals(Fact.known(9), f.pmu("msr").orElseThrow().type());
        assertEquals(List.of(), f.corePmus());
    }

    @Test
    void intelPmuCapsAndLockdown() {
        LinuxFacts f = LinuxProbe.probe(FixtureTree.bareVm(dir).intelPmus().withMsr("default")
                .file("/sys/kernel/security/lockdown", "none integrity [confidentiality]\n").root);
        LinuxFacts.Pmu cpu = f.pmu("cpu").orElseThrow();
        assertEquals(Fact.known(4), cpu.type());
        assertEquals(Fact.known(32), cpu.branches());
        assertEquals(Fact.known("skylake"), cpu.pmuName());
        assertEquals(Fact.known(3), cpu.maxPrecise());
        assertEquals(Fact.known(1), cpu.rdpmc());
        assertEquals(List.of(cpu), f.corePmus());
        assertTrue(f.pmu("intel_bts").isPresent() && f.pmu("intel_pt").isPresent());
        assertEquals(Fact.known(Lockdown.CONFIDENTIALITY), f.lockdown());
        assertEquals(Fact.known(LinuxFacts.AllowWrites.DEFAULT), f.msrAllowWrites());
        assertEquals(DriverState.MODULE_LOADED, f.msrDriver().state());
        assertEquals("/sys/module/msr/initstate: live", f.msrDriver().evidence());
    }

    @Test
    void kernelConfigFromBootWhenProcHasNone() {
        FixtureTree t = FixtureTree.bareVm(dir).delete("/lib/modules").delete("/sys/module/cpuid")
                .file("/boot/config-6.1.0-test", "CONFIG_X86_MSR=m\nCONFIG_X86_CPUID=y\n");
        LinuxFacts f = LinuxProbe.probe(t.root);
        assertEquals(new KernelConfig("/boot/config-6.1.0-test", Map.of("CONFIG_X86_MSR", "m",
                "CONFIG_X86_CPUID", "y")), f.kernelConfig());
        assertEquals(DriverState.MODULE_NOT_LOADED, f.msrDriver().state());
        assertEquals(DriverState.BUILT_IN, f.cpuidDriver().state());
        assertEquals("CONFIG_X86_CPUID=y in /boot/config-6.1.0-test", f.cpuidDriver().evidence());
    }

    @Test
    void driverDecisionOrder() {
        KernelConfig notBuilt = new KernelConfig("/proc/config.gz", Map.of("CONFIG_X86_MSR", "n"));
        Fact<String> none = Fact.absent("/sys/module/msr/initstate");
        assertEquals(DriverState.MODULE_LOADED, LinuxProbe.decideDriver("msr", "CONFIG_X86_MSR", true,
                Fact.known("live"), true, notBuilt, false, false).state());
        assertEquals(DriverState.BUILT_IN, LinuxProbe.decideDriver("msr", "CONFIG_X86_MSR", true, none, false,
                KernelConfig.NONE, false, false).state());
        assertEquals(DriverState.BUILT_IN, LinuxProbe.decideDriver("cpuid", "CONFIG_X86_CPUID", false,
                Fact.absent("/sys/module/cpuid/initstate"), true, KernelConfig.NONE, false, false).state());
        assertEquals(DriverState.NOT_BUILT, LinuxProbe.decideDriver("msr", "CONFIG_X86_MSR", false, none, false,
                notBuilt, false, true).state());
        assertEquals(DriverState.BUILT_IN, LinuxProbe.decideDriver("msr", "CONFIG_X86_MSR", false, none, false,
                KernelConfig.NONE, true, false).state());
        assertEquals(DriverState.MODULE_NOT_LOADED, LinuxProbe.decideDriver("msr", "CONFIG_X86_MSR", false, none,
                false, KernelConfig.NONE, false, true).state());
    }

    @Test
    void containerKinds() {
        Fact<String> absent = Fact.absent("/x");
        Fact<String> v2root = Fact.known("0::/\n");
        Fact<String> dockerMounts = Fact.known(FixtureTree.DOCKER_MOUNTINFO);
        assertEquals(new Container(true, "docker", List.of("/.dockerenv exists",
                        "/etc/resolv.conf from containers/3c6e0cd9b4e4 in /proc/self/mountinfo")),
                LinuxProbe.decideContainer(false, true, absent, Fact.unreadable("/proc/1/environ", "permission denied"),
                        v2root, v2root, dockerMounts));
        assertEquals("podman", LinuxProbe.decideContainer(true, false, absent, Fact.known("container=podman\0"),
                v2root, v2root, absent).kind());
        Container lxc = LinuxProbe.decideContainer(false, false, absent, Fact.known("container=lxc\0"),
                Fact.known("0::/lxc.payload.c1\n"), v2root, absent);
        assertEquals(new Container(true, "lxc", List.of("container=lxc in /proc/1/environ", "/proc/1/cgroup names lxc")),
                lxc);
        assertEquals("systemd-nspawn", LinuxProbe.decideContainer(false, false, Fact.known("systemd-nspawn\n"),
                absent, v2root, v2root, absent).kind());
        assertEquals("kubernetes", LinuxProbe.decideContainer(false, false, absent, absent, v2root,
                Fact.known("0::/kubepods/besteffort/pod1/abc\n"), absent).kind());
        assertEquals(Container.NONE, LinuxProbe.decideContainer(false, false, absent, absent, v2root, v2root, absent));
    }

    /**
     * /.dockerenv is a file of the image, so a VM or chroot whose root was made from a docker image
     * has it too. The build machine is one: a Firecracker VM (PID 1 /process_api --firecracker-init,
     * / is ext4 on /dev/vda, /dev is devtmpfs), its mountinfo below; the QEMU guest chroots into it.
     */
    @Test
    void aLoneDockerenvIsNotTakenForAContainer() {
        Fact<String> v1root = Fact.known("9:name=systemd:/\n4:memory:/\n0::/\n");
        Fact<String> vmMounts = Fact.known("""
                22 27 0:21 / /proc rw,relatime - proc proc rw
                24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=12334460k,nr_inodes=3083615,mode=755
                27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
                """);
        Container vm = LinuxProbe.decideContainer(false, true, Fact.absent("/run/systemd/container"),
                Fact.unreadable("/proc/1/environ", "permission denied"), v1root, v1root, vmMounts);
        assertFalse(vm.detected(), vm::toString);
        assertEquals("", vm.kind());
        assertEquals(1, vm.evidence().size());
        assertTrue(vm.evidence().getFirst().startsWith("/.dockerenv exists, but nothing a container runtime sets up"
                + " at start corroborates it"), vm::toString);

        Container cgroupV1Docker = LinuxProbe.decideContainer(false, true, Fact.absent("/x"), Fact.absent("/x"),
                Fact.known("4:memory:/docker/" + FixtureTree.DOCKER_ID + "\n"), v1root, vmMounts);
        assertEquals(new Container(true, "docker", List.of("/.dockerenv exists", "/proc/1/cgroup names docker")),
                cgroupV1Docker, "a runtime in the cgroup path corroborates it");
    }

    @Test
    void theProbeReadsMountinfo(@TempDir Path dir) {
        FixtureTree t = FixtureTree.bareVm(dir).docker();
        LinuxFacts docker = LinuxProbe.probe(t.root);
        assertTrue(docker.container().detected(), docker.container()::toString);
        LinuxFacts imageRoot = LinuxProbe.probe(t.delete("/proc/self/mountinfo").root);
        assertFalse(imageRoot.container().detected(), imageRoot.container()::toString);
    }
}
