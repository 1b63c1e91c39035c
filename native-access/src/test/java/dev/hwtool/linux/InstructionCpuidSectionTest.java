package dev.hwtool.linux;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidLeaf;
import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.SubleafEnumerator;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link InstructionCpuidSource#onCpu}: many reads of one CPU in one pinned section, on this
 * machine's real CPUs through each binding (CpuidSourcesTest's list). The scheduler calls are
 * counted by a binding that forwards every call to the real one.
 */
class InstructionCpuidSectionTest {

    private static BitSet only(int cpu) {
        BitSet b = new BitSet();
        b.set(cpu);
        return b;
    }

    @ParameterizedTest
    @MethodSource("dev.hwtool.linux.CpuidSourcesTest#bindings")
    void aSectionAnswersAsSingleReadsDoAndPinsOnce(NativeBinding real) {
        Counting b = new Counting(real);
        InstructionCpuidSource insn = new InstructionCpuidSource(b);
        BitSet before = real.schedGetaffinity();
        for (int cpu : Preconditions.cpusInMask()) {
            List<CpuidLeaf> single = SubleafEnumerator.enumerate(insn.reader(cpu));
            assertTrue(single.size() > 10, "only " + single.size() + " leaves");
            b.reset();
            int c = cpu;
            List<CpuidLeaf> section = insn.onCpu(cpu, r -> {
                // Held on the CPU for the whole section.
                assertEquals(only(c), real.schedGetaffinity());
                assertEquals(c, real.schedGetcpu());
                return SubleafEnumerator.enumerate(r);
            });
            assertEquals(single, section, "CPU " + cpu);
            assertEquals(2, b.sets.get(), "one pin and one restore for " + section.size() + " reads");
            assertEquals(1, b.gets.get(), "the mask read once");
            assertEquals(before, real.schedGetaffinity(), "restored after CPU " + cpu);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.hwtool.linux.CpuidSourcesTest#bindings")
    void theMaskIsRestoredWhenTheReadsThrow(NativeBinding b) {
        InstructionCpuidSource insn = new InstructionCpuidSource(b);
        BitSet before = b.schedGetaffinity();
        IllegalStateException thrown = new IllegalStateException("decoder failed");
        IllegalStateException caught = assertThrows(IllegalStateException.class, () -> insn.onCpu(Preconditions.cpusInMask().getLast(), r -> {
            r.cpuid(0);
            throw thrown;
        }));
        assertSame(thrown, caught);
        assertEquals(before, b.schedGetaffinity());
        // Nothing of the section is left on the thread: a plain read pins and restores again.
        assertFalse(insn.regs(Preconditions.cpusInMask().getFirst(), 0, 0).isZero());
        assertEquals(before, b.schedGetaffinity());
    }

    @ParameterizedTest
    @MethodSource("dev.hwtool.linux.CpuidSourcesTest#bindings")
    void aCpuThatCannotBeReadFailsBeforeTheReadsRun(NativeBinding b) {
        InstructionCpuidSource insn = new InstructionCpuidSource(b);
        BitSet before = b.schedGetaffinity();
        AtomicInteger ran = new AtomicInteger();
        HwException e = assertThrows(HwException.class, () -> insn.onCpu(99, r -> ran.incrementAndGet()));
        assertEquals(Cause.NO_SUCH_CPU, e.cause());
        assertEquals(0, ran.get());
        assertEquals(before, b.schedGetaffinity());
    }

    @ParameterizedTest
    @MethodSource("dev.hwtool.linux.CpuidSourcesTest#bindings")
    void anotherCpuReadInsideASectionIsThatCpusAnswerAndTheSectionHoldsOn(NativeBinding b) {
        List<Integer> cpus = Preconditions.twoCpusInMask(); // the thread is pinned to each: both in the mask
        InstructionCpuidSource insn = new InstructionCpuidSource(b);
        int held = cpus.get(0);
        int other = cpus.get(1);
        // Each logical CPU has its own APIC ID (SDM Vol. 3A, 10.4.6): the 32-bit x2APIC ID of leaf
        // 0BH EDX where leaf 0BH exists, else the 8 bits of leaf 1 EBX[31:24], which repeat only
        // past 256 CPUs (SDM Vol. 2A, CPUID leaves 01H and 0BH).
        boolean x2apic = insn.regs(held, 0, 0).eax() >= 0xb && insn.regs(held, 0xb, 0).ebx() != 0;
        java.util.function.ToIntFunction<dev.hwtool.arch.cpuid.CpuidReader> apicId =
                r -> x2apic ? r.cpuid(0xb, 0).edx() : r.cpuid(1).ebx() >>> 24;
        int heldApic = apicId.applyAsInt(insn.reader(held));
        int otherApic = apicId.applyAsInt(insn.reader(other));
        if (heldApic != apicId.applyAsInt(insn.reader(held)) || otherApic != apicId.applyAsInt(insn.reader(other))) {
            // A hypervisor answering a pinned thread's APIC ID differently each time (bhyve): the
            // helper probes the host and skips with what it found.
            Preconditions.cpuidPathsAgree();
        }
        assertNotEquals(heldApic, otherApic);
        BitSet before = b.schedGetaffinity();
        insn.onCpu(held, r -> {
            assertEquals(otherApic, apicId.applyAsInt(insn.reader(other)), "the other CPU's answer");
            assertEquals(only(held), b.schedGetaffinity(), "back on the section's CPU");
            assertEquals(heldApic, apicId.applyAsInt(r));
            // A nested section of the other CPU, then the outer one goes on.
            int nested = insn.onCpu(other, apicId::applyAsInt);
            assertEquals(otherApic, nested);
            assertEquals(only(held), b.schedGetaffinity());
            assertEquals(heldApic, apicId.applyAsInt(r));
            return null;
        });
        assertEquals(before, b.schedGetaffinity());
    }

    @ParameterizedTest
    @MethodSource("dev.hwtool.linux.CpuidSourcesTest#bindings")
    void aCpuFencedOffBeforeTheSectionStaysFencedInsideIt(NativeBinding b) {
        List<Integer> cpus = Preconditions.twoCpusInMask(); // the thread is pinned to each: both in the mask
        int allowed = cpus.get(0);
        int fenced = cpus.get(1);
        BitSet before = b.schedGetaffinity();
        b.schedSetaffinity(only(allowed)); // what taskset -c would do
        try {
            InstructionCpuidSource insn = new InstructionCpuidSource(b);
            HwException e = assertThrows(HwException.class, () -> insn.onCpu(allowed, r -> insn.regs(fenced, 0, 0)));
            assertEquals(Cause.UNSUPPORTED, e.cause());
            assertTrue(e.getMessage().contains("(allowed: " + allowed + ")"), e.getMessage());
            assertEquals(only(allowed), b.schedGetaffinity());
        } finally {
            b.schedSetaffinity(before);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.hwtool.linux.CpuidSourcesTest#bindings")
    void aReaderKeptAfterTheSectionStillAnswersPinnedPerRead(NativeBinding real) {
        Counting b = new Counting(real);
        InstructionCpuidSource insn = new InstructionCpuidSource(b);
        int cpu = Preconditions.cpusInMask().getLast();
        CpuidReader kept = insn.onCpu(cpu, r -> r);
        b.reset();
        assertEquals(insn.regs(cpu, 1, 0), kept.cpuid(1));
        assertEquals(4, b.sets.get(), "pinned and restored for each of the two reads");
        assertEquals(real.schedGetaffinity(), b.lastRestored);
    }

    @ParameterizedTest
    @MethodSource("dev.hwtool.linux.CpuidSourcesTest#bindings")
    void aVirtualThreadIsNeverLeftHoldingItsCarrier(NativeBinding real) throws Exception {
        Counting b = new Counting(real);
        InstructionCpuidSource insn = new InstructionCpuidSource(b);
        int cpu = Preconditions.cpusInMask().getLast();
        List<CpuidRegs> expected = new ArrayList<>();
        for (int leaf = 0; leaf < 4; leaf++) {
            expected.add(insn.regs(cpu, leaf, 0));
        }
        AtomicReference<Throwable> failed = new AtomicReference<>();
        AtomicReference<List<CpuidRegs>> got = new AtomicReference<>();
        AtomicInteger pinsInside = new AtomicInteger();
        List<BitSet> masksInside = new ArrayList<>();
        BitSet before = real.schedGetaffinity();
        b.reset();
        Thread t = Thread.ofVirtual().start(() -> {
            try {
                got.set(insn.onCpu(cpu, r -> {
                    List<CpuidRegs> out = new ArrayList<>();
                    for (int leaf = 0; leaf < 4; leaf++) {
                        out.add(r.cpuid(leaf));
                        // Between reads the carrier has its own mask back: nothing to take along
                        // were the virtual thread to unmount here.
                        masksInside.add(real.schedGetaffinity());
                        pinsInside.set(b.sets.get());
                    }
                    return out;
                }));
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        t.join();
        if (failed.get() != null) {
            throw new AssertionError(failed.get());
        }
        assertEquals(expected, got.get());
        assertEquals(8, pinsInside.get(), "pinned and restored per read on a virtual thread");
        assertEquals(List.of(before, before, before, before), masksInside);
    }

    /** The real binding with its scheduler calls counted. */
    private static final class Counting implements NativeBinding {
        private final NativeBinding real;
        final AtomicInteger sets = new AtomicInteger();
        final AtomicInteger gets = new AtomicInteger();
        volatile BitSet lastRestored;

        Counting(NativeBinding real) {
            this.real = real;
        }

        void reset() {
            sets.set(0);
            gets.set(0);
        }

        @Override public String name() { return real.name(); }
        @Override public int open(String path, int flags) { return real.open(path, flags); }
        @Override public void close(int fd) { real.close(fd); }
        @Override public long pread(int fd, byte[] buf, int length, long offset) { return real.pread(fd, buf, length, offset); }
        @Override public long read(int fd, byte[] buf, int length) { return real.read(fd, buf, length); }
        @Override public long pwrite(int fd, byte[] buf, int length, long offset) { return real.pwrite(fd, buf, length, offset); }
        @Override public long ioctl(int fd, long request, long arg) { return real.ioctl(fd, request, arg); }
        @Override public long mmap(long addr, long length, int prot, int flags, int fd, long offset) {
            return real.mmap(addr, length, prot, flags, fd, offset);
        }
        @Override public void munmap(long addr, long length) { real.munmap(addr, length); }
        @Override public void mprotect(long addr, long length, int prot) { real.mprotect(addr, length, prot); }
        @Override public long syscall(long number, long... args) { return real.syscall(number, args); }
        @Override public BitSet schedGetaffinity() {
            gets.incrementAndGet();
            return real.schedGetaffinity();
        }
        @Override public void schedSetaffinity(BitSet cpus) {
            sets.incrementAndGet();
            real.schedSetaffinity(cpus);
            lastRestored = (BitSet) cpus.clone();
        }
        @Override public int schedGetcpu() { return real.schedGetcpu(); }
        @Override public CpuidRegs cpuid(int leaf, int subleaf) { return real.cpuid(leaf, subleaf); }
        @Override public long rdtsc() { return real.rdtsc(); }
        @Override public Rdtscp rdtscp() { return real.rdtscp(); }
        @Override public long rdpmc(int counter) { return real.rdpmc(counter); }
        @Override public byte[] peek(long address, int length) { return real.peek(address, length); }
        @Override public void close() { real.close(); }
    }
}
