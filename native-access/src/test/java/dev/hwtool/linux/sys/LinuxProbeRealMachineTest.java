package dev.hwtool.linux.sys;

import dev.hwtool.arch.decode.ArchLbr;
import dev.hwtool.arch.decode.ArchPerfmon;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.Features;
import dev.hwtool.arch.decode.Hypervisor;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.decode.LegacyLbr;
import dev.hwtool.arch.decode.Microarchitecture;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.caps.Capability;
import dev.hwtool.api.Facility;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.api.Verdict;
import dev.hwtool.caps.Verdicts;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Probes the machine the tests run on and checks the facts against the files read here,
 * independently of the probe's own parsers.
 */
class LinuxProbeRealMachineTest {

    private static String read(String path) throws IOException {
        return Files.readString(Path.of(path), StandardCharsets.ISO_8859_1).strip();
    }

    @Test
    void factsMatchTheFilesOfThisMachine() throws IOException {
        LinuxFacts f = LinuxProbe.probe();
        assertEquals(Integer.parseInt(read("/proc/sys/kernel/perf_event_paranoid")),
                f.perfEventParanoid().orElse(Integer.MIN_VALUE));
        assertEquals(read("/proc/sys/kernel/osrelease"), f.kernelRelease().orElse(""));

        List<Integer> online = new ArrayList<>();
        for (String part : read("/sys/devices/system/cpu/online").split(",")) {
            String[] r = part.split("-");
            for (int c = Integer.parseInt(r[0]); c <= Integer.parseInt(r[r.length - 1]); c++) {
                online.add(c);
            }
        }
        assertEquals(online, f.onlineCpus().orElse(List.of()));
        assertTrue(online.size() >= Runtime.getRuntime().availableProcessors(),
                "the JVM cannot see more CPUs than are online");

        String capEff = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("CapEff:")).findFirst().orElseThrow().substring(7).strip();
        boolean rawio = ((Long.parseUnsignedLong(capEff, 16) >>> 17) & 1) != 0;
        assertEquals(rawio, f.credentials().has(Capability.CAP_SYS_RAWIO));

        for (LinuxFacts.CpuDevices c : f.cpus()) {
            Path msr = Path.of("/dev/cpu/" + c.cpu() + "/msr");
            Path cpuid = Path.of("/dev/cpu/" + c.cpu() + "/cpuid");
            assertEquals(Files.exists(msr), c.msr().present(), msr.toString());
            assertEquals(Files.exists(cpuid), c.cpuid().present(), cpuid.toString());
            if (c.cpuid().present()) {
                assertTrue(c.cpuid().charDevice(), "cpuid node is a character device");
                assertEquals(203, c.cpuid().major(), "CPUID_MAJOR (arch/x86/kernel/cpuid.c)");
                assertEquals(c.cpu(), c.cpuid().minor());
                assertEquals('c', c.cpuid().mode().charAt(0));
            }
        }
        assertEquals(Files.exists(Path.of("/sys/bus/event_source/devices/cpu")), f.pmu("cpu").isPresent());
        // /.dockerenv counts only with dockerd's bind mounts (or another marker) beside it
        boolean dockerenv = Files.exists(Path.of("/.dockerenv"));
        boolean dockerBinds = Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
                .anyMatch(l -> l.matches("\\S+ \\S+ \\S+ \\S*/containers/\\p{XDigit}{64}/hostname /etc/hostname .*"));
        if (Files.exists(Path.of("/run/.containerenv"))) {
            assertTrue(f.container().evidence().contains("/run/.containerenv exists"), f.container()::toString);
        }
        if (dockerenv && dockerBinds) {
            assertTrue(f.container().detected() && f.container().evidence().contains("/.dockerenv exists"),
                    f.container()::toString);
        }
        if (dockerenv && !f.container().detected()) {
            assertFalse(dockerBinds, f.container()::toString);
            assertTrue(f.container().evidence().getFirst().startsWith("/.dockerenv exists, but"), f.container()::toString);
        }
        if (!dockerenv && !Files.exists(Path.of("/run/.containerenv"))) {
            assertFalse(f.container().evidence().stream().anyMatch(e -> e.contains("env exists")), f.container()::toString);
        }
    }

    @Test
    void msrVerdictAgreesWithTheDeviceAndCapabilities() throws IOException {
        LinuxFacts f = LinuxProbe.probe();
        Verdict v = Verdicts.assess(thisCpu(), f).get(Facility.MSR_READ.ordinal());
        Path msr0 = Path.of("/dev/cpu/" + f.cpus().getFirst().cpu() + "/msr");
        System.out.println("this machine: " + Verdicts.assess(thisCpu(), f));
        if (!Files.exists(msr0)) {
            assertFalse(v.usable(), v.toString());
            assertTrue(v.remedy().orElseThrow().contains("modprobe msr") || v.remedy().orElseThrow().contains("--device=/dev/cpu"),
                    v.toString());
        } else {
            assertEquals(Files.isReadable(msr0) && f.credentials().has(Capability.CAP_SYS_RAWIO)
                    && !f.credentials().namespacedOnly(), v.usable(), v.toString());
        }
        Verdict counters = Verdicts.assess(thisCpu(), f).get(Facility.HW_COUNTERS.ordinal());
        if (f.corePmus().isEmpty()) {
            assertFalse(counters.usable(), counters.toString());
        }
    }

    /**
     * The few CPUID answers the verdicts read, taken from /dev/cpu/0/cpuid when it can be read
     * (offset = leaf | subleaf << 32, arch/x86/kernel/cpuid.c); otherwise a CPU that admits
     * nothing beyond being x86-64, so the verdicts are judged on the kernel's side alone.
     */
    private static CpuCapabilities thisCpu() throws IOException {
        Path dev = Path.of("/dev/cpu/0/cpuid");
        if (!Files.isReadable(dev)) {
            return new CpuCapabilities(new Identity("", "", 0, 0, 0, 0, 0, 0), Microarchitecture.UNKNOWN, false, "",
                    Hypervisor.NONE, new Features(true, false, false, false, false, false, false, false, false,
                    true, true, false), ArchPerfmon.NONE, ArchLbr.NONE, LegacyLbr.none("unknown"));
        }
        try (FileChannel ch = FileChannel.open(dev)) {
            CpuidRegs l0 = leaf(ch, 0);
            CpuidRegs l1 = leaf(ch, 1);
            ByteBuffer v = ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                    .putInt(l0.ebx()).putInt(l0.edx()).putInt(l0.ecx());
            String vendor = new String(v.array(), StandardCharsets.US_ASCII);
            boolean hv = l1.bit(CpuidRegs.Reg.ECX, 31);
            Features feat = new Features(l1.bit(CpuidRegs.Reg.EDX, 5), l1.bit(CpuidRegs.Reg.EDX, 21),
                    l1.bit(CpuidRegs.Reg.ECX, 2), l1.bit(CpuidRegs.Reg.ECX, 4), l1.bit(CpuidRegs.Reg.ECX, 15),
                    false, false, false, false, l1.bit(CpuidRegs.Reg.EDX, 4), false, hv);
            return new CpuCapabilities(new Identity(vendor, "", 0, 0, 0, l1.eax(), l0.eax(), 0),
                    Microarchitecture.UNKNOWN, false, "", new Hypervisor(hv, ""), feat, ArchPerfmon.NONE,
                    ArchLbr.NONE, LegacyLbr.none("not decoded in this test"));
        }
    }

    private static CpuidRegs leaf(FileChannel ch, int leaf) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(16);
        ch.read(b, Integer.toUnsignedLong(leaf));
        return CpuidRegs.fromLittleEndian(b.array(), 0);
    }
}
