package dev.hwtool.linux;

import dev.hwtool.testing.Preconditions;
import dev.hwtool.api.Cause;
import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.bind.NativeBinding;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The two live CPUID sources against each other, on this machine's real CPUs. */
class CpuidSourcesTest {

    /** Subleaves beyond 0 matter for leaves 4, 7, 0xB, 0xD, 0x8000001D, ...; others ignore ECX. */
    private static final int[] SUBLEAVES = {0, 1, 2, 3};

    static Stream<Named<NativeBinding>> bindings() {
        return Bindings.names().stream().map(n -> Named.of(n, Bindings.open(n)));
    }

    private static List<Integer> leaves(CpuidSource s) {
        List<Integer> leaves = new ArrayList<>();
        int maxBasic = s.cpuid(0, 0, 0).eax();
        for (int leaf = 0; leaf <= maxBasic; leaf++) {
            leaves.add(leaf);
        }
        int maxExtended = s.cpuid(0, 0x8000_0000, 0).eax();
        for (int leaf = 0x8000_0000; Integer.compareUnsigned(leaf, maxExtended) <= 0; leaf++) {
            leaves.add(leaf);
        }
        return leaves;
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void instructionAndDeviceAgreeOnEveryCpuLeafAndSubleaf(NativeBinding b) {
        InstructionCpuidSource insn = new InstructionCpuidSource(b);
        try (DeviceCpuidSource dev = new DeviceCpuidSource(b)) {
            assertEquals(dev.cpus(), insn.cpus());
            assertTrue(insn.cpus().size() >= 1);
            int compared = 0;
            for (int cpu : insn.cpus()) {
                for (int leaf : leaves(dev)) {
                    for (int subleaf : SUBLEAVES) {
                        CpuidRegs d = dev.cpuid(cpu, leaf, subleaf);
                        CpuidRegs i = insn.cpuid(cpu, leaf, subleaf);
                        assertEquals(d, i, "CPU " + cpu + " leaf 0x" + Integer.toHexString(leaf) + "." + subleaf);
                        compared++;
                    }
                }
            }
            assertTrue(compared > 100, "compared only " + compared);
        }
    }

    @Test
    void perCpuLeavesReallyDifferBetweenCpus() {
        // The comparison above would be hollow if every CPU answered alike: leaf 1 EBX[31:24] is
        // the initial APIC ID, unique per logical CPU (SDM Vol. 2A, CPUID leaf 01H).
        InstructionCpuidSource insn = new InstructionCpuidSource(Bindings.openDefault());
        List<Integer> cpus = insn.cpus();
        List<Integer> apicIds = cpus.stream().map(c -> insn.cpuid(c, 1, 0).ebx() >>> 24).distinct().toList();
        assertEquals(cpus.size(), apicIds.size(), "APIC IDs " + apicIds);
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void theCallingThreadsAffinityIsRestored(NativeBinding b) {
        InstructionCpuidSource insn = new InstructionCpuidSource(b);
        BitSet before = b.schedGetaffinity();
        for (int cpu : insn.cpus()) {
            insn.cpuid(cpu, 1, 0);
            assertEquals(before, b.schedGetaffinity(), "after a call on CPU " + cpu);
        }
        assertThrows(HwException.class, () -> insn.cpuid(99, 0, 0));
        assertEquals(before, b.schedGetaffinity(), "after a failed call");
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void aCpuThatIsNotThereIsNoSuchCpu(NativeBinding b) {
        String online = CpuList.format(CpuList.online());
        InstructionCpuidSource insn = new InstructionCpuidSource(b);
        HwException e = assertThrows(HwException.class, () -> insn.cpuid(99, 0, 0));
        assertEquals(Cause.NO_SUCH_CPU, e.reason());
        assertEquals("CPU 99 does not exist or is offline (online: " + online + ")", e.getMessage());
        assertEquals("choose one of the online CPUs: " + online, e.remedy().orElseThrow());
        assertEquals(Cause.NO_SUCH_CPU, assertThrows(HwException.class, () -> insn.cpuid(-1, 0, 0)).reason());

        try (DeviceCpuidSource dev = new DeviceCpuidSource(b)) {
            HwException d = assertThrows(HwException.class, () -> dev.cpuid(99, 0, 0));
            assertEquals(Cause.NO_SUCH_CPU, d.reason());
            assertTrue(d.getMessage().startsWith("open /dev/cpu/99/cpuid: ENOENT"), d.getMessage());
            assertTrue(d.getMessage().endsWith("CPU 99 does not exist or is offline (online: " + online + ")"));
        }
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void anOnlineCpuOutsideTheAffinityMaskIsUnsupported(NativeBinding b) {
        List<Integer> cpus = CpuList.online();
        Preconditions.hostHas(Preconditions.Hardware.SECOND_CPU, cpus.size() >= 2, "online: " + cpus);
        int allowedCpu = cpus.get(0);
        int fencedCpu = cpus.get(1);
        BitSet before = b.schedGetaffinity();
        BitSet only = new BitSet();
        only.set(allowedCpu);
        b.schedSetaffinity(only); // what taskset -c 0 would do
        try {
            InstructionCpuidSource insn = new InstructionCpuidSource(b);
            HwException e = assertThrows(HwException.class, () -> insn.cpuid(fencedCpu, 0, 0));
            assertEquals(Cause.UNSUPPORTED, e.reason());
            assertTrue(e.getMessage().contains("CPU " + fencedCpu + " is online but outside")
                    && e.getMessage().contains("(allowed: " + allowedCpu + ")"), e.getMessage());
            assertTrue(e.remedy().orElseThrow().contains("/dev/cpu/" + fencedCpu + "/cpuid"));
            assertEquals(only, b.schedGetaffinity(), "the restricted mask is left as it was");
            assertFalse(insn.cpuid(allowedCpu, 0, 0).isZero(), "the allowed CPU still works");
            try (DeviceCpuidSource dev = new DeviceCpuidSource(b)) {
                assertFalse(dev.cpuid(fencedCpu, 0, 0).isZero(), "the device needs no affinity");
            }
        } finally {
            b.schedSetaffinity(before);
        }
    }

    @Test
    void namesAndDescriptions() {
        NativeBinding b = Bindings.openDefault();
        InstructionCpuidSource insn = new InstructionCpuidSource(b);
        assertEquals("instruction", insn.name());
        assertTrue(insn.description().contains("ffm"));
        try (DeviceCpuidSource dev = new DeviceCpuidSource(b)) {
            assertEquals("device", dev.name());
            assertEquals("/dev/cpu/N/cpuid (ffm binding)", dev.description());
        }
    }
}
