package dev.hwtool.linux;

import dev.hwtool.linux.sys.Bindings;
import dev.hwtool.testing.Preconditions;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.io.CpuList;
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

    private static List<Integer> leaves(CpuidReading s, int cpu) {
        List<Integer> leaves = new ArrayList<>();
        int maxBasic = s.regs(cpu, 0, 0).eax();
        for (int leaf = 0; leaf <= maxBasic; leaf++) {
            leaves.add(leaf);
        }
        int maxExtended = s.regs(cpu, 0x8000_0000, 0).eax();
        for (int leaf = 0x8000_0000; Integer.compareUnsigned(leaf, maxExtended) <= 0; leaf++) {
            leaves.add(leaf);
        }
        return leaves;
    }

    /** The leaves and subleaves of the comparisons below: CPU, leaf, subleaf and the two answers. */
    private record Pair(String where, int leaf, CpuidRegs a, CpuidRegs b) {
    }

    /** Every leaf and subleaf of {@link #SUBLEAVES} on every CPU of the mask, read through {@code a} and {@code b}. */
    private static List<Pair> readBoth(CpuidReading a, CpuidReading b) {
        List<Pair> pairs = new ArrayList<>();
        for (int cpu : Preconditions.cpusInMask()) {
            for (int leaf : leaves(a, cpu)) {
                for (int subleaf : SUBLEAVES) {
                    pairs.add(new Pair("CPU " + cpu + " leaf 0x" + Integer.toHexString(leaf) + "." + subleaf, leaf,
                            a.regs(cpu, leaf, subleaf), b.regs(cpu, leaf, subleaf)));
                }
            }
        }
        assertTrue(pairs.size() > 100, "compared only " + pairs.size());
        return pairs;
    }

    /**
     * The same path through FFM and through JNA: a law, the twins run the same code or read the
     * same device. Leaf 1 EBX[31:24] and leaf 0BH/1FH EDX name the CPU that answers (its APIC
     * IDs, SDM Vol. 2A, CPUID); those are held equal only on a host whose CPUID answers steadily
     * on a pinned thread (a hypervisor may vary them between calls: bhyve does).
     */
    private static void assertTwinsAgree(CpuidReading ffm, CpuidReading jna) {
        List<String> apicIdDifferences = new ArrayList<>();
        for (Pair p : readBoth(ffm, jna)) {
            assertEquals(withoutApicIds(p.leaf, p.a), withoutApicIds(p.leaf, p.b), p.where + " (ffm vs jna)");
            if (!p.a.equals(p.b)) {
                apicIdDifferences.add(p.where + ": ffm " + p.a + ", jna " + p.b);
            }
        }
        if (!apicIdDifferences.isEmpty()) {
            Preconditions.cpuidPathsAgree();
        }
        assertEquals(List.of(), apicIdDifferences, "APIC IDs on a pinned thread");
    }

    static CpuidRegs withoutApicIds(int leaf, CpuidRegs r) {
        return switch (leaf) {
            case 1 -> new CpuidRegs(r.eax(), r.ebx() & 0x00ff_ffff, r.ecx(), r.edx());
            case 0xb, 0x1f -> new CpuidRegs(r.eax(), r.ebx(), r.ecx(), 0);
            default -> r;
        };
    }

    @Test
    void theInstructionAgreesBetweenTheTwinsOnEveryCpuLeafAndSubleaf() {
        assertTwinsAgree(new InstructionCpuidSource(Bindings.open("ffm")), new InstructionCpuidSource(Bindings.open("jna")));
    }

    @Test
    void theDeviceAgreesBetweenTheTwinsOnEveryCpuLeafAndSubleaf() {
        Preconditions.cpuidDevice();
        try (DeviceCpuidSource ffm = new DeviceCpuidSource(Bindings.open("ffm"));
             DeviceCpuidSource jna = new DeviceCpuidSource(Bindings.open("jna"))) {
            assertTwinsAgree(ffm, jna);
        }
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void instructionAndDeviceAgreeOnEveryCpuLeafAndSubleaf(NativeBinding b) {
        InstructionCpuidSource insn = new InstructionCpuidSource(b);
        Preconditions.cpuidDevice();
        try (DeviceCpuidSource dev = new DeviceCpuidSource(b)) {
            // Law: both sources list the online CPUs.
            assertEquals(dev.cpus(), insn.cpus());
            assertTrue(insn.cpus().size() >= 1);
            // Host fact: user space and the kernel get the same CPUID answers only where the
            // hypervisor (if any) answers them alike; the helper checks this host's own claim.
            Preconditions.cpuidPathsAgree();
            for (Pair p : readBoth(dev, insn)) {
                assertEquals(p.a, p.b, p.where);
            }
        }
    }

    @Test
    void perCpuLeavesReallyDifferBetweenCpus() {
        // The comparisons above would be hollow if every CPU answered alike: every logical CPU
        // has its own APIC ID (SDM Vol. 3A, 10.4.6 / 10.12 x2APIC). Leaf 1 EBX[31:24] holds only
        // its low 8 bits, which repeat past 256 CPUs, so the 32-bit x2APIC ID of leaf 0BH EDX is
        // compared where leaf 0BH exists (SDM Vol. 2A, CPUID leaf 0BH; EBX = 0 means invalid).
        List<Integer> cpus = Preconditions.twoCpusInMask();
        InstructionCpuidSource insn = new InstructionCpuidSource(Bindings.openDefault());
        int cpu0 = cpus.getFirst();
        boolean x2apic = insn.regs(cpu0, 0, 0).eax() >= 0xb && insn.regs(cpu0, 0xb, 0).ebx() != 0;
        java.util.function.IntUnaryOperator apicId = c -> x2apic ? insn.regs(c, 0xb, 0).edx() : insn.regs(c, 1, 0).ebx() >>> 24;
        List<Integer> first = cpus.stream().map(apicId::applyAsInt).toList();
        List<Integer> again = cpus.stream().map(apicId::applyAsInt).toList();
        if (!first.equals(again)) {
            // Unsteady APIC IDs on a pinned thread: the helper probes the host and skips with it.
            Preconditions.cpuidPathsAgree();
        }
        assertEquals(first, again, "APIC IDs of CPUs " + cpus + " read twice");
        assertEquals(cpus.size(), first.stream().distinct().count(), (x2apic ? "x2APIC IDs " : "APIC IDs ") + first);
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void theCallingThreadsAffinityIsRestored(NativeBinding b) {
        InstructionCpuidSource insn = new InstructionCpuidSource(b);
        BitSet before = b.schedGetaffinity();
        for (int cpu : Preconditions.cpusInMask()) {
            insn.regs(cpu, 1, 0);
            assertEquals(before, b.schedGetaffinity(), "after a call on CPU " + cpu);
        }
        int absent = absentCpu();
        assertThrows(HwException.class, () -> insn.regs(absent, 0, 0));
        assertEquals(before, b.schedGetaffinity(), "after a failed call");
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void aCpuThatIsNotThereIsNoSuchCpu(NativeBinding b) {
        String online = CpuList.format(CpuList.online());
        int absent = absentCpu();
        InstructionCpuidSource insn = new InstructionCpuidSource(b);
        HwException e = assertThrows(HwException.class, () -> insn.regs(absent, 0, 0));
        assertEquals(Cause.NO_SUCH_CPU, e.cause());
        assertEquals("CPU " + absent + " does not exist or is offline (online: " + online + ")", e.getMessage());
        assertEquals("choose one of the online CPUs: " + online, e.remedy().orElseThrow());
        assertEquals(Cause.NO_SUCH_CPU, assertThrows(HwException.class, () -> insn.regs(-1, 0, 0)).cause());

        try (DeviceCpuidSource dev = new DeviceCpuidSource(b)) {
            HwException d = assertThrows(HwException.class, () -> dev.regs(absent, 0, 0));
            assertEquals(Cause.NO_SUCH_CPU, d.cause());
            assertTrue(d.getMessage().startsWith("open /dev/cpu/" + absent + "/cpuid: ENOENT"), d.getMessage());
            assertTrue(d.getMessage().endsWith("CPU " + absent + " does not exist or is offline (online: " + online + ")"));
        }
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void anOnlineCpuOutsideTheAffinityMaskIsUnsupported(NativeBinding b) {
        // Two CPUs the thread may run on: narrowing to one of them is what taskset -c would do,
        // and a cpuset would refuse a mask outside it.
        List<Integer> cpus = Preconditions.twoCpusInMask();
        int allowedCpu = cpus.get(0);
        int fencedCpu = cpus.get(1);
        BitSet before = b.schedGetaffinity();
        BitSet only = new BitSet();
        only.set(allowedCpu);
        b.schedSetaffinity(only); // what taskset -c ALLOWED would do
        try {
            InstructionCpuidSource insn = new InstructionCpuidSource(b);
            HwException e = assertThrows(HwException.class, () -> insn.regs(fencedCpu, 0, 0));
            assertEquals(Cause.UNSUPPORTED, e.cause());
            assertTrue(e.getMessage().contains("CPU " + fencedCpu + " is online but outside")
                    && e.getMessage().contains("(allowed: " + allowedCpu + ")"), e.getMessage());
            assertTrue(e.remedy().orElseThrow().contains("/dev/cpu/" + fencedCpu + "/cpuid"));
            assertEquals(only, b.schedGetaffinity(), "the restricted mask is left as it was");
            assertFalse(insn.regs(allowedCpu, 0, 0).isZero(), "the allowed CPU still works");
            // The remedy's device, where this user may read it (0400 root): last, after the laws.
            Preconditions.cpuidDevice();
            try (DeviceCpuidSource dev = new DeviceCpuidSource(b)) {
                assertFalse(dev.regs(fencedCpu, 0, 0).isZero(), "the device needs no affinity");
            }
        } finally {
            b.schedSetaffinity(before);
        }
    }

    /** A CPU number past the last online CPU: no such CPU on this host (CPU 99 exists on a large one). */
    private static int absentCpu() {
        return java.util.Collections.max(CpuList.online()) + 1;
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
