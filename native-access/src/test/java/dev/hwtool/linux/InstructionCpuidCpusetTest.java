package dev.hwtool.linux;

import dev.hwtool.api.Cause;
import dev.hwtool.caps.CpuChoice;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.io.CpuList;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The instruction source in a cpuset, as under {@code taskset -c}, a container's CPU set or a
 * pod's static CPU policy: this thread is fenced off its first allowed CPU for each test (the
 * affinity mask is per thread, so the test changes only its own), and the CPU outside the mask
 * is answered by the other source given, or refused with both reasons.
 */
class InstructionCpuidCpusetTest {

    /** The CPUs this thread may run on now, among the online ones (the mask need not start at 0). */
    private static List<Integer> allowedOnline(NativeBinding b) {
        BitSet mask = b.schedGetaffinity();
        return CpuList.online().stream().filter(mask::get).toList();
    }

    private static BitSet only(int cpu) {
        BitSet s = new BitSet();
        s.set(cpu);
        return s;
    }

    /** Runs {@code body} with this thread fenced to the last CPU it may run on; gives {@code body} the CPU fenced off. */
    private static void fenced(NativeBinding b, java.util.function.BiConsumer<Integer, Integer> body) {
        Preconditions.hostHas(Preconditions.Hardware.SECOND_CPU_IN_MASK);
        List<Integer> allowed = allowedOnline(b);
        BitSet before = b.schedGetaffinity();
        int out = allowed.getFirst();
        int in = allowed.getLast();
        b.schedSetaffinity(only(in));
        try {
            body.accept(in, out);
        } finally {
            b.schedSetaffinity(before);
        }
    }

    /** Answers every CPU with its number in EBX, and records what it was asked. */
    private static class Other implements CpuidReading {
        final List<Integer> asked = new ArrayList<>();

        @Override public String name() { return "device"; }
        @Override public String description() { return "a stand-in for /dev/cpu/N/cpuid"; }
        @Override public List<Integer> cpus() { return CpuList.online(); }
        @Override public CpuidRegs regs(int cpu, int leaf, int subleaf) {
            asked.add(cpu);
            return new CpuidRegs(leaf, cpu, subleaf, 0x5a5a5a5a);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.hwtool.linux.CpuidSourcesTest#bindings")
    void theDefaultCpuIsTheFirstThisProcessMayRunOn(NativeBinding b) {
        fenced(b, (in, out) -> {
            InstructionCpuidSource insn = new InstructionCpuidSource(b, CpuList.SYSFS, new Other());
            assertEquals(in, insn.defaultCpu());
            CpuChoice choice = CpuChoice.of(insn, null);
            assertEquals(in, choice.cpu());
            assertEquals("instruction", choice.path());
            assertTrue(choice.why().startsWith("the first CPU this process may run on"), choice.why());
            assertTrue(choice.outOfReach().isEmpty(), "the other source reaches the rest: " + choice.outOfReach());
        });
    }

    @ParameterizedTest
    @MethodSource("dev.hwtool.linux.CpuidSourcesTest#bindings")
    void aCpuOutsideTheMaskIsReadThroughTheOtherSourceAndSaysSo(NativeBinding b) {
        fenced(b, (in, out) -> {
            Other other = new Other();
            InstructionCpuidSource insn = new InstructionCpuidSource(b, CpuList.SYSFS, other);
            assertEquals(out, insn.regs(out, 1, 0).ebx(), "the other source's answer");
            assertEquals("device", insn.pathOf(out));
            assertEquals("instruction", insn.pathOf(in));
            // a section of the fenced CPU, and a read of it inside a section of the allowed one
            assertEquals(out, (int) insn.onCpu(out, r -> r.cpuid(1).ebx()));
            int inside = insn.onCpu(in, r -> insn.regs(out, 1, 0).ebx());
            assertEquals(out, inside);
            assertEquals(only(in), b.schedGetaffinity(), "the thread's own mask is untouched");
            assertTrue(other.asked.stream().allMatch(c -> c.equals(out)), "only the fenced CPU went elsewhere: " + other.asked);
            assertTrue(insn.reachableCpus().contains(out));
        });
    }

    @ParameterizedTest
    @MethodSource("dev.hwtool.linux.CpuidSourcesTest#bindings")
    void withoutAnotherPathTheCpuIsOutOfReachWithBothReasons(NativeBinding b) {
        fenced(b, (in, out) -> {
            CpuidReading refusing = new Other() {
                @Override public CpuidRegs regs(int cpu, int leaf, int subleaf) {
                    throw new HwException(Cause.PERMISSION_DENIED, "open /dev/cpu/" + cpu + "/cpuid: EACCES (Permission denied)",
                            "run as root");
                }
            };
            InstructionCpuidSource insn = new InstructionCpuidSource(b, CpuList.SYSFS, refusing);
            HwException e = assertThrows(HwException.class, () -> insn.regs(out, 0, 0));
            assertEquals(Cause.PERMISSION_DENIED, e.cause(), "the other path's cause decides the exit code");
            assertTrue(e.getMessage().contains("outside this process's CPU affinity (allowed: " + in + ")"), e.getMessage());
            assertTrue(e.getMessage().contains("EACCES"), e.getMessage());
            assertTrue(e.remedy().orElseThrow().contains("run as root"), e.remedy().orElseThrow());
            assertEquals(List.of(in), insn.reachableCpus().stream().filter(c -> c.equals(in) || c.equals(out)).toList());
            CpuChoice choice = CpuChoice.of(insn, null);
            assertEquals(in, choice.cpu());
            assertTrue(choice.outOfReach().get(out).contains("EACCES"), choice.outOfReach().toString());
            // no other source at all: refused as before, with the device named as the way
            HwException plain = assertThrows(HwException.class, () -> new InstructionCpuidSource(b).regs(out, 0, 0));
            assertEquals(Cause.UNSUPPORTED, plain.cause());
        });
    }

    @ParameterizedTest
    @MethodSource("dev.hwtool.linux.CpuidSourcesTest#bindings")
    void anOfflineOrAbsentCpuIsNotSentElsewhere(NativeBinding b) {
        Other other = new Other();
        InstructionCpuidSource insn = new InstructionCpuidSource(b, CpuList.SYSFS, other);
        int absent = CpuList.online().getLast() + 4096;
        HwException e = assertThrows(HwException.class, () -> insn.regs(absent, 0, 0));
        assertEquals(Cause.NO_SUCH_CPU, e.cause());
        assertTrue(other.asked.isEmpty());
        Function<Integer, String> path = insn::pathOf;
        assertEquals("instruction", path.apply(absent));
    }
}
