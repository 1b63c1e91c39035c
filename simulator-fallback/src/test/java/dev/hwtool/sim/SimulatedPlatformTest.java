package dev.hwtool.sim;

import dev.hwtool.api.Cause;
import dev.hwtool.api.CpuidResult;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.CpuidSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimulatedPlatformTest {

    @Test
    void everyBuiltInProfileLoadsAndSaysItIsSimulated() {
        for (Profiles.Entry e : Profiles.builtIn()) {
            try (SimulatedPlatform p = SimulatedPlatform.of(e.name())) {
                assertEquals(Platform.Kind.SIMULATED, p.kind());
                assertTrue(p.description().startsWith("simulator, profile " + e.name()), p.description());
                assertTrue(p.cpuid().description().contains("simulated"), p.cpuid().description());
                assertTrue(p.profile().builtIn());
                assertTrue(!p.cpuid().cpus().isEmpty(), e.name());
            }
        }
    }

    @Test
    void answersRecordedLeavesExactly() {
        // core2.txt, Logical CPU #1: "CPUID 00000001: 000006FB-01020800-0000E3FD-BFEBFBFF"
        SimulatedPlatform p = SimulatedPlatform.of("core2");
        assertEquals(new CpuidRegs(0x000006FB, 0x01020800, 0x0000E3FD, 0xBFEBFBFF), p.cpuidReading().regs(1, 1, 0));
        // and CPU #0 differs in its initial APIC ID (EBX[31:24])
        assertEquals(0x00020800, p.cpuidReading().regs(0, 1, 0).ebx());
    }

    @Test
    void intelAnswersOutOfRangeBasicLeavesWithTheHighestBasicLeaf() {
        // SDM Vol. 2A CPUID: above the maximum basic leaf, Intel returns the highest basic leaf's data.
        SimulatedPlatform p = SimulatedPlatform.of("core2");
        int max = p.cpuidReading().regs(0, 0, 0).eax();
        assertEquals(0xA, max);
        assertEquals(p.cpuidReading().regs(0, max, 0), p.cpuidReading().regs(0, 0x1C, 0));
        assertEquals(p.cpuidReading().regs(0, max, 0), p.cpuidReading().regs(0, max + 1, 0));
        // extended leaves above the maximum extended leaf get the same treatment
        assertEquals(p.cpuidReading().regs(0, max, 0), p.cpuidReading().regs(0, 0x80000009, 0));
    }

    @Test
    void amdAnswersOutOfRangeLeavesWithZeros() {
        SimulatedPlatform p = SimulatedPlatform.of("amd-epyc-kvm-guest");
        int max = p.cpuidReading().regs(0, 0, 0).eax();
        assertEquals(CpuidRegs.ZERO, p.cpuidReading().regs(0, max + 1, 0));
    }

    @Test
    void unknownProfileIsBadInputNamingTheChoices() {
        HwException e = assertThrows(HwException.class, () -> SimulatedPlatform.of("pentium-pro"));
        assertEquals(Cause.BAD_INPUT, e.cause());
        assertTrue(e.getMessage().contains("skylake"), e.getMessage());
    }

    @Test
    void aDumpFileIsAProfile(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("mine.txt");
        Files.writeString(f, "CPU 0:\n   0x00000000 0x00: eax=0x00000001 ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69\n"
                + "   0x00000001 0x00: eax=0x000906ea ebx=0x00000800 ecx=0x00000000 edx=0x00000000\n");
        SimulatedPlatform p = SimulatedPlatform.of(f.toString());
        assertEquals(0x000906ea, p.cpuidReading().regs(0, 1, 0).eax());
        assertTrue(!p.profile().builtIn());
    }

    @Test
    void aDumpsTextIsAProfileNamedAsGiven() {
        Profile p = Profile.parse("mine", "a test CPU", false,
                "CPU 0:\n   0x00000000 0x00: eax=0x00000001 ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69\n"
                        + "   0x00000001 0x00: eax=0x000906ea ebx=0x00000800 ecx=0x00000000 edx=0x00000000\n");
        assertEquals("sim:mine", p.backend());
        try (SimulatedPlatform sim = new SimulatedPlatform(p)) {
            assertEquals(new CpuidResult(0x000906ea, 0x00000800, 0, 0), sim.cpuid().cpuid(0, 1, 0));
            assertEquals(List.of(0), sim.cpuid().cpus());
        }
        HwException e = assertThrows(HwException.class, () -> Profile.parse("bad", "x", false,
                "CPU 0:\n   0x00000000 0x00: eax=0x00000001 ebx=0x756e\n"));
        assertEquals(Cause.BAD_INPUT, e.cause());
        assertTrue(e.getMessage().contains("bad:2"), e.getMessage());
    }

    @Test
    void aMalformedDumpFileIsBadInputWithFileAndLine(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("bad.txt");
        Files.writeString(f, "CPU 0:\n   0x00000000 0x00: eax=0x00000001 ebx=0x756e\n");
        HwException e = assertThrows(HwException.class, () -> SimulatedPlatform.of(f.toString()));
        assertEquals(Cause.BAD_INPUT, e.cause());
        assertTrue(e.getMessage().contains("bad.txt:2"), e.getMessage());
    }

    @Test
    void profilesMatchTheirSourceDumpByteForByte() {
        // The shipped profile is the dump itself: the simulator's CPU 0 answers every recorded leaf of it.
        Profile p = Profiles.resolve("skylake");
        CpuidSnapshot cpu0 = p.dump().cpus().getFirst();
        SimulatedPlatform sim = new SimulatedPlatform(p);
        cpu0.leaves().forEach(l -> assertEquals(l.regs(), sim.cpuidReading().regs(cpu0.cpu(), l.leaf(), l.subleaf()),
                () -> Integer.toHexString(l.leaf()) + "/" + l.subleaf()));
    }

    @Test
    void attributionNamesTheOrigin() {
        assertTrue(Profiles.attribution().contains("libcpuid"));
    }
}
