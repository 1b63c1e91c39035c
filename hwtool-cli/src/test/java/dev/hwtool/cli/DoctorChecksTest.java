package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuDecoder;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.LinuxFacts.CpuDevices;
import dev.hwtool.caps.LinuxFacts.DeviceNode;
import dev.hwtool.linux.sys.LinuxProbe;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Doctor's checks as a pure function, for what a fixture tree cannot show to a root test run:
 * nodes this user may not open (root passes access(2) whatever the mode), and the live read's
 * two outcomes.
 */
class DoctorChecksTest {

    private static final CpuCapabilities SKYLAKE = CpuDecoder.decode(CpuidReading.of(SimulatedPlatform.of("skylake").cpuid()).reader(0));

    @Test
    void nodesNotReadableByThisUserFailWithPermissionDenied(@TempDir Path dir) {
        LinuxFacts f = withNodes(LinuxProbe.probe(HostTree.intelHost(dir).status(1000, HostTree.NO_CAPS).root), false, false);
        DoctorCheck c = check(Doctor.checks(f, SKYLAKE, null, new LiveRead.NotRun("test")), "msr_devices");
        assertEquals(DoctorCheck.Status.FAIL, c.status());
        assertEquals(Cause.PERMISSION_DENIED, c.cause());
        assertTrue(c.detail().contains("not readable by uid 1000: open fails with EACCES"), c.detail());
        assertEquals("run as root (sudo), or grant access: sudo setfacl -m u:1000:rw /dev/cpu/*/msr", c.fix());
    }

    @Test
    void readableButNotWritableIsAWarning(@TempDir Path dir) {
        LinuxFacts f = withNodes(LinuxProbe.probe(HostTree.intelHost(dir).root), true, false);
        DoctorCheck c = check(Doctor.checks(f, SKYLAKE, null, new LiveRead.NotRun("test")), "msr_devices");
        assertEquals(DoctorCheck.Status.WARN, c.status());
        assertTrue(c.detail().contains("writable on 0"), c.detail());
    }

    @Test
    void liveReadValueAndFailure(@TempDir Path dir) {
        LinuxFacts f = LinuxProbe.probe(HostTree.intelHost(dir).root);
        DoctorCheck ok = check(Doctor.checks(f, SKYLAKE, null, new LiveRead.Value(0, 0x1234_5678_9abcL, "/dev/cpu/N/msr")),
                "msr_read");
        assertEquals(DoctorCheck.Status.OK, ok.status());
        assertEquals("read IA32_TIME_STAMP_COUNTER (0x10) on CPU 0 through /dev/cpu/N/msr: 0x0000123456789abc", ok.detail());
        HwException gp = new HwException(Cause.REGISTER_FAULT, "CPU 1 cannot read MSR 0x00000010: pread: EIO", "none");
        List<DoctorCheck> checks = Doctor.checks(f, SKYLAKE, null, new LiveRead.Failed(1, gp));
        DoctorCheck bad = check(checks, "msr_read");
        assertEquals(DoctorCheck.Status.FAIL, bad.status());
        assertEquals(Cause.REGISTER_FAULT, bad.cause());
        assertTrue(bad.detail().startsWith("reading IA32_TIME_STAMP_COUNTER (0x10) on CPU 1 failed (register fault (#GP)): "),
                bad.detail());
        DoctorReport report = new DoctorReport("test", checks, List.of(), null);
        assertEquals(Cause.REGISTER_FAULT.exitCode(), report.exitCode(), "the only failure decides the exit code");
    }

    @Test
    void cpuMsrCheckIsOkWithTheFlagAndAWarningWithoutCpuid(@TempDir Path dir) {
        LinuxFacts f = LinuxProbe.probe(HostTree.intelHost(dir).root);
        CpuCapabilities core2 = CpuDecoder.decode(CpuidReading.of(SimulatedPlatform.of("core2").cpuid()).reader(0));
        assertEquals(DoctorCheck.Status.OK, check(Doctor.checks(f, core2, null, new LiveRead.NotRun("t")), "cpu_msr").status());
        DoctorCheck unknown = check(Doctor.checks(f, null, "no CPUID here", new LiveRead.NotRun("t")), "cpu_msr");
        assertEquals(DoctorCheck.Status.WARN, unknown.status());
        assertTrue(unknown.detail().endsWith("no CPUID here"), unknown.detail());
    }

    private static DoctorCheck check(List<DoctorCheck> checks, String name) {
        return checks.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    /** The same facts with every msr node's access for this process replaced. */
    private static LinuxFacts withNodes(LinuxFacts f, boolean readable, boolean writable) {
        List<CpuDevices> cpus = f.cpus().stream().map(c -> {
            DeviceNode n = c.msr();
            return new CpuDevices(c.cpu(), c.online(), c.directory(), new DeviceNode(n.path(), n.present(),
                    n.charDevice(), n.major(), n.minor(), n.mode(), n.owner(), n.group(), readable, writable), c.cpuid());
        }).toList();
        return new LinuxFacts(f.kernelRelease(), f.machine(), f.onlineCpus(), f.devCpuPresent(), cpus, f.msrDriver(),
                f.cpuidDriver(), f.credentials(), f.lockdown(), f.msrAllowWrites(), f.perfEventParanoid(),
                f.perfEventMlockKb(), f.pmus(), f.container(), f.meltdown(), f.kernelConfig());
    }
}
