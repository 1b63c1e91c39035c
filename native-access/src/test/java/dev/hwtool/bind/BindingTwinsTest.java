package dev.hwtool.bind;

import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.ffm.FfmBinding;
import dev.hwtool.jna.JnaBinding;
import dev.hwtool.io.CpuList;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The FFM and JNA bindings on this machine: each call must work, and the twins must agree
 * exactly — same results, same errno — on everything the machine can run.
 */
class BindingTwinsTest {

    private static final FfmBinding FFM = new FfmBinding();
    private static final JnaBinding JNA = new JnaBinding();

    private static final long SYS_KILL = 62;
    private static final long SYS_GETPID = 39;
    private static final long SYS_GETTID = 186;
    /** No x86-64 syscall has this number: the kernel answers ENOSYS. */
    private static final long SYS_NONE = 100_000;
    /** _IO('h', 0x7f): no filesystem knows it, so a regular file answers ENOTTY. */
    private static final long IOCTL_UNKNOWN = 0x687f;

    /** The cpuid node of the first CPU this process may run on (CPU 0 may be outside a cpuset). */
    private static Path cpuidNode() {
        return Path.of("/dev/cpu/" + Preconditions.firstCpuInMask() + "/cpuid");
    }

    static Stream<Named<NativeBinding>> bindings() {
        return Stream.of(Named.of("ffm", FFM), Named.of("jna", JNA));
    }

    @AfterAll
    static void closeBindings() {
        FFM.close();
        JNA.close();
    }

    /** The same call on both twins, or the same ErrnoException (call and errno) from both. */
    private static <T> T twin(java.util.function.Function<NativeBinding, T> call) {
        Outcome<T> f = Outcome.of(() -> call.apply(FFM));
        Outcome<T> j = Outcome.of(() -> call.apply(JNA));
        assertEquals(f, j, "ffm and jna disagree");
        if (f.error != null) {
            throw f.error;
        }
        return f.value;
    }

    private record Outcome<T>(T value, ErrnoException error) {
        static <T> Outcome<T> of(Supplier<T> s) {
            try {
                return new Outcome<>(s.get(), null);
            } catch (ErrnoException e) {
                return new Outcome<>(null, e);
            }
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Outcome<?> other)) {
                return false;
            }
            if (error != null || other.error != null) {
                return error != null && other.error != null && error.errno() == other.error.errno()
                        && error.call().equals(other.error.call());
            }
            return value instanceof byte[] a && other.value instanceof byte[] b
                    ? Arrays.equals(a, b) : java.util.Objects.equals(value, other.value);
        }

        @Override
        public int hashCode() {
            return 0;
        }

        @Override
        public String toString() {
            return error != null ? error.getMessage()
                    : value instanceof byte[] b ? Arrays.toString(b) : String.valueOf(value);
        }
    }

    /** Runs {@code body} with the calling thread pinned to {@code cpu}; restores the mask after. */
    static <T> T pinned(NativeBinding b, int cpu, Supplier<T> body) {
        BitSet previous = b.schedGetaffinity();
        BitSet only = new BitSet();
        only.set(cpu);
        b.schedSetaffinity(only);
        try {
            assertEquals(cpu, b.schedGetcpu(), "not running on the pinned CPU");
            return body.get();
        } finally {
            b.schedSetaffinity(previous);
        }
    }

    /** The CPUs a thread of this process can be pinned to: the affinity mask and online. */
    private static List<Integer> cpusInMask() {
        return Preconditions.cpusInMask();
    }

    private static CpuidRegs deviceCpuid(int cpu, int leaf) {
        int fd = FFM.open("/dev/cpu/" + cpu + "/cpuid", NativeBinding.O_RDONLY | NativeBinding.O_CLOEXEC);
        try {
            byte[] b = new byte[16];
            assertEquals(16, FFM.pread(fd, b, 16, Integer.toUnsignedLong(leaf)));
            return CpuidRegs.fromLittleEndian(b, 0);
        } finally {
            FFM.close(fd);
        }
    }

    /** Leaves 0..max basic and 0x80000000..max extended, as CPUID leaf 0 and 0x80000000 report them. */
    private static List<Integer> allLeaves() {
        List<Integer> leaves = new ArrayList<>();
        // The instruction on this thread, wherever it runs: the maximum leaves are the same on
        // every CPU, and reading them needs no device (a non-root user has none).
        int maxBasic = FFM.cpuid(0, 0).eax();
        for (int leaf = 0; leaf <= maxBasic; leaf++) {
            leaves.add(leaf);
        }
        int maxExtended = FFM.cpuid(0x8000_0000, 0).eax();
        for (int leaf = 0x8000_0000; Integer.compareUnsigned(leaf, maxExtended) <= 0; leaf++) {
            leaves.add(leaf);
        }
        assertTrue(maxBasic > 0 && leaves.size() > maxBasic + 1, "CPUID reports no leaves");
        return leaves;
    }

    // ---- files

    @Test
    void openOfAMissingFileFailsWithTheSameErrno(@TempDir Path dir) {
        String missing = dir.resolve("absent").toString();
        ErrnoException e = assertThrows(ErrnoException.class, () -> twin(b -> b.open(missing, NativeBinding.O_RDONLY)));
        assertEquals(Errno.ENOENT, e.errno());
        assertEquals("open", e.call());
        assertTrue(e.getMessage().contains(missing), e.getMessage());
    }

    @Test
    void closeOfABadDescriptorFailsWithEbadf() {
        ErrnoException e = assertThrows(ErrnoException.class, () -> twin(b -> {
            b.close(-1);
            return null;
        }));
        assertEquals(Errno.EBADF, e.errno());
    }

    @Test
    void whatOneTwinWritesTheOtherReads(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("data");
        Files.write(file, new byte[0]);
        byte[] pattern = new byte[300];
        for (int i = 0; i < pattern.length; i++) {
            pattern[i] = (byte) (i * 7 + 3);
        }
        for (NativeBinding[] pair : new NativeBinding[][] {{FFM, JNA}, {JNA, FFM}}) {
            int wfd = pair[0].open(file.toString(), NativeBinding.O_RDWR | NativeBinding.O_CLOEXEC);
            int rfd = pair[1].open(file.toString(), NativeBinding.O_RDONLY | NativeBinding.O_CLOEXEC);
            try {
                long offset = 4096 + pair[0].name().length();
                assertEquals(pattern.length, pair[0].pwrite(wfd, pattern, pattern.length, offset));
                byte[] back = new byte[400];
                assertEquals(pattern.length, pair[1].pread(rfd, back, back.length, offset), "short read at EOF");
                assertArrayEquals(pattern, Arrays.copyOf(back, pattern.length));
                assertEquals(0, pair[1].pread(rfd, back, back.length, offset + pattern.length), "read past EOF");
            } finally {
                pair[0].close(wfd);
                pair[1].close(rfd);
            }
        }
        byte[] onDisk = Files.readAllBytes(file);
        assertArrayEquals(pattern, Arrays.copyOfRange(onDisk, 4096 + 3, 4096 + 3 + pattern.length));
    }

    @Test
    void preadOfTheCpuidDeviceAgreesForEveryLeaf() {
        Preconditions.cpuidDevice();
        // The device needs no affinity: every online CPU's node, in the mask or not.
        for (int cpu : CpuList.online()) {
            String node = "/dev/cpu/" + cpu + "/cpuid";
            int ffd = FFM.open(node, NativeBinding.O_RDONLY | NativeBinding.O_CLOEXEC);
            int jfd = JNA.open(node, NativeBinding.O_RDONLY | NativeBinding.O_CLOEXEC);
            try {
                for (int leaf : allLeaves()) {
                    byte[] f = new byte[16];
                    byte[] j = new byte[16];
                    assertEquals(16, FFM.pread(ffd, f, 16, Integer.toUnsignedLong(leaf)));
                    assertEquals(16, JNA.pread(jfd, j, 16, Integer.toUnsignedLong(leaf)));
                    assertArrayEquals(f, j, "leaf 0x" + Integer.toHexString(leaf) + " on CPU " + cpu);
                }
            } finally {
                FFM.close(ffd);
                JNA.close(jfd);
            }
        }
    }

    @Test
    void preadOfAPartialCpuidRecordFailsWithEinval() {
        // cpuid.c: count % 16 != 0 -> EINVAL; both twins must pass it through unchanged.
        Preconditions.cpuidDevice();
        String node = cpuidNode().toString();
        ErrnoException e = assertThrows(ErrnoException.class, () -> twin(b -> {
            int fd = b.open(node, NativeBinding.O_RDONLY);
            try {
                return b.pread(fd, new byte[8], 8, 0);
            } finally {
                b.close(fd);
            }
        }));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals("pread", e.call());
    }

    @Test
    void ioctlWithAnUnknownRequestFailsWithEnotty(@TempDir Path dir) throws IOException {
        Path file = Files.write(dir.resolve("f"), new byte[] {1});
        ErrnoException e = assertThrows(ErrnoException.class, () -> twin(b -> {
            int fd = b.open(file.toString(), NativeBinding.O_RDONLY);
            try {
                return b.ioctl(fd, IOCTL_UNKNOWN, 0);
            } finally {
                b.close(fd);
            }
        }));
        assertEquals(Errno.ENOTTY, e.errno());
    }

    // ---- memory

    @ParameterizedTest
    @MethodSource("bindings")
    void anonymousMemoryIsZeroAndSurvivesMprotect(NativeBinding b) {
        long size = 2 * MachineCode.PAGE_SIZE;
        long addr = b.mmap(0, size, NativeBinding.PROT_READ | NativeBinding.PROT_WRITE,
                NativeBinding.MAP_PRIVATE | NativeBinding.MAP_ANONYMOUS, -1, 0);
        assertEquals(0, addr % MachineCode.PAGE_SIZE, "mmap returns page-aligned memory");
        try {
            assertArrayEquals(new byte[(int) size], b.peek(addr, (int) size));
            b.mprotect(addr, size, NativeBinding.PROT_READ);
            assertArrayEquals(new byte[16], b.peek(addr + size - 16, 16));
            ErrnoException e = assertThrows(ErrnoException.class, () -> b.mprotect(addr + 1, size, NativeBinding.PROT_READ));
            assertEquals(Errno.EINVAL, e.errno(), "mprotect of an unaligned address");
        } finally {
            b.munmap(addr, size);
        }
    }

    @Test
    void aFileMappingShowsTheFileThroughPeekInBothTwins(@TempDir Path dir) throws IOException {
        byte[] content = new byte[2 * MachineCode.PAGE_SIZE];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i ^ (i >> 8));
        }
        Path file = Files.write(dir.resolve("m"), content);
        byte[] seen = twin(b -> {
            int fd = b.open(file.toString(), NativeBinding.O_RDONLY);
            try {
                // map the second page only: exercises the offset argument
                long addr = b.mmap(0, MachineCode.PAGE_SIZE, NativeBinding.PROT_READ, NativeBinding.MAP_PRIVATE, fd,
                        MachineCode.PAGE_SIZE);
                try {
                    return b.peek(addr, MachineCode.PAGE_SIZE);
                } finally {
                    b.munmap(addr, MachineCode.PAGE_SIZE);
                }
            } finally {
                b.close(fd);
            }
        });
        assertArrayEquals(Arrays.copyOfRange(content, MachineCode.PAGE_SIZE, content.length), seen);
    }

    @Test
    void mmapFailuresCarryTheSameErrno() {
        // length 0 -> EINVAL (mm/mmap.c do_mmap)
        ErrnoException e = assertThrows(ErrnoException.class, () -> twin(b -> b.mmap(0, 0, NativeBinding.PROT_READ,
                NativeBinding.MAP_PRIVATE | NativeBinding.MAP_ANONYMOUS, -1, 0)));
        assertEquals(Errno.EINVAL, e.errno());
        ErrnoException u = assertThrows(ErrnoException.class, () -> twin(b -> {
            b.munmap(1, MachineCode.PAGE_SIZE);
            return null;
        }));
        assertEquals(Errno.EINVAL, u.errno(), "munmap of an unaligned address");
    }

    // ---- syscall

    @Test
    void syscallGetpidIsThisProcess() {
        assertEquals(ProcessHandle.current().pid(), (long) twin(b -> b.syscall(SYS_GETPID)));
    }

    @Test
    void syscallGettidIsThisThread() throws IOException {
        // /proc/thread-self -> "<pid>/task/<tid>" (fs/proc/thread_self.c)
        String link = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
        long tid = Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
        assertEquals(tid, (long) twin(b -> b.syscall(SYS_GETTID)));
    }

    @Test
    void syscallPassesArguments() {
        long pid = ProcessHandle.current().pid();
        assertEquals(0L, (long) twin(b -> b.syscall(SYS_KILL, pid, 0))); // signal 0: existence check only
        ErrnoException e = assertThrows(ErrnoException.class, () -> twin(b -> b.syscall(SYS_KILL, pid, 100_000)));
        assertEquals(Errno.EINVAL, e.errno(), "kill with an invalid signal number");
    }

    @Test
    void anUnknownSyscallFailsWithEnosys() {
        ErrnoException e = assertThrows(ErrnoException.class, () -> twin(b -> b.syscall(SYS_NONE, 1, 2, 3, 4, 5, 6)));
        assertEquals(Errno.ENOSYS, e.errno());
    }

    // ---- scheduler

    @Test
    void affinityIsTheThreadsAllowedList() throws IOException {
        BitSet mask = twin(NativeBinding::schedGetaffinity);
        String allowed = Files.readAllLines(Path.of("/proc/thread-self/status")).stream()
                .filter(l -> l.startsWith("Cpus_allowed_list:"))
                .findFirst().orElseThrow().substring("Cpus_allowed_list:".length());
        assertEquals(CpuList.parse(allowed), mask.stream().boxed().toList());
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void setaffinityRoundTripsAndGetcpuFollows(NativeBinding b) {
        BitSet before = b.schedGetaffinity();
        for (int cpu : cpusInMask()) {
            pinned(b, cpu, () -> {
                BitSet only = new BitSet();
                only.set(cpu);
                assertEquals(only, b.schedGetaffinity());
                assertEquals(only, (FFM == b ? JNA : FFM).schedGetaffinity(), "the other twin sees the same mask");
                return null;
            });
            assertEquals(before, b.schedGetaffinity(), "mask restored");
        }
        assertTrue(before.get(b.schedGetcpu()), "sched_getcpu is inside the affinity mask");
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void theMaskIsReadWholeAfterBytesOfAnotherCallAndBeyondOneThousandCpus(NativeBinding b) throws IOException {
        BitSet before = b.schedGetaffinity();
        // A 128-byte pread of 0xff bytes first: the FFM binding reads the mask into the same
        // per-thread block, and a stale byte past what the kernel wrote would read as a CPU.
        byte[] ff = new byte[128];
        java.util.Arrays.fill(ff, (byte) 0xff);
        Path ones = Files.write(Files.createTempFile("hwtool-ones", ".bin"), ff);
        try {
            int fd = b.open(ones.toString(), NativeBinding.O_RDONLY | NativeBinding.O_CLOEXEC);
            try {
                assertEquals(128, b.pread(fd, new byte[128], 128, 0));
            } finally {
                b.close(fd);
            }
            assertEquals(before, b.schedGetaffinity());
        } finally {
            Files.delete(ones);
        }
        // A mask naming CPU 1500 as well is larger than 1024 CPUs (128 bytes): the kernel keeps
        // the CPUs that exist, and the mask reads back as the first CPU alone.
        int first = before.nextSetBit(0);
        BitSet wide = new BitSet();
        wide.set(first);
        wide.set(1500);
        b.schedSetaffinity(wide);
        try {
            BitSet only = new BitSet();
            only.set(first);
            assertEquals(only, b.schedGetaffinity());
        } finally {
            b.schedSetaffinity(before);
        }
        assertEquals(before, b.schedGetaffinity());
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void setaffinityToNoCpuFailsWithEinval(NativeBinding b) {
        BitSet before = b.schedGetaffinity();
        ErrnoException e = assertThrows(ErrnoException.class, () -> b.schedSetaffinity(new BitSet()));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals(before, b.schedGetaffinity());
    }

    // ---- machine-code stubs

    /**
     * Fields that name the CPU that runs CPUID rather than describe it: the initial APIC ID in
     * leaf 1 EBX[31:24] and the x2APIC ID in leaf 0BH/1FH EDX (SDM Vol. 2A, CPUID). On a pinned
     * thread they are that CPU's own, but a hypervisor may answer them differently from call to
     * call (bhyve does), so the twins are held to them only where the host answers steadily.
     */
    static CpuidRegs withoutApicIds(int leaf, CpuidRegs r) {
        return switch (leaf) {
            case 1 -> new CpuidRegs(r.eax(), r.ebx() & 0x00ff_ffff, r.ecx(), r.edx());
            case 0xb, 0x1f -> new CpuidRegs(r.eax(), r.ebx(), r.ecx(), 0);
            default -> r;
        };
    }

    @Test
    void cpuidStubAgreesAcrossTwinsOnEveryCpuAndLeaf() {
        // Law: FFM and JNA run the same stub on the same pinned CPU, so they see the same answer.
        List<Integer> leaves = allLeaves();
        List<String> apicIdDifferences = new ArrayList<>();
        for (int cpu : cpusInMask()) {
            for (int leaf : leaves) {
                CpuidRegs f = pinned(FFM, cpu, () -> FFM.cpuid(leaf, 0));
                CpuidRegs j = pinned(JNA, cpu, () -> JNA.cpuid(leaf, 0));
                String where = "leaf 0x" + Integer.toHexString(leaf) + " on CPU " + cpu;
                assertEquals(withoutApicIds(leaf, f), withoutApicIds(leaf, j), where);
                if (!f.equals(j)) {
                    apicIdDifferences.add(where + ": ffm " + f + ", jna " + j);
                }
            }
        }
        if (!apicIdDifferences.isEmpty()) {
            // Host fact: only a host whose CPUID answers steadily on a pinned thread owes equal APIC IDs.
            Preconditions.cpuidPathsAgree();
        }
        assertEquals(List.of(), apicIdDifferences, "APIC IDs on a pinned thread");
    }

    @Test
    void cpuidStubAgreesWithTheDeviceWhereTheHostSaysTheyAgree() {
        // Host fact: the instruction in user space and the kernel's /dev/cpu/N/cpuid answer alike
        // only where the hypervisor (if any) traps both alike; the helper checks the host's claim.
        Preconditions.cpuidPathsAgree();
        List<Integer> leaves = allLeaves();
        for (int cpu : cpusInMask()) {
            for (int leaf : leaves) {
                for (NativeBinding b : List.of(FFM, JNA)) {
                    CpuidRegs stub = pinned(b, cpu, () -> b.cpuid(leaf, 0));
                    assertEquals(deviceCpuid(cpu, leaf), stub,
                            "leaf 0x" + Integer.toHexString(leaf) + " on CPU " + cpu + " (" + b.name() + " stub vs /dev/cpu/N/cpuid)");
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void cpuidLeafZeroNamesTheVendor(NativeBinding b) {
        CpuidRegs r = b.cpuid(0, 0);
        byte[] vendor = new byte[12];
        int[] order = {r.ebx(), r.edx(), r.ecx()}; // SDM: vendor string is EBX, EDX, ECX
        for (int i = 0; i < 3; i++) {
            for (int k = 0; k < 4; k++) {
                vendor[i * 4 + k] = (byte) (order[i] >>> (8 * k));
            }
        }
        String v = new String(vendor, java.nio.charset.StandardCharsets.US_ASCII);
        String cpuinfo = assertDoesNotThrowRead(Path.of("/proc/cpuinfo"));
        assertTrue(cpuinfo.contains("vendor_id\t: " + v), "vendor " + v + " not in /proc/cpuinfo");
    }

    private static String assertDoesNotThrowRead(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void rdtscIsMonotonicOnOneCpu(NativeBinding b) throws InterruptedException {
        int cpu = Preconditions.firstCpuInMask();
        long first = pinned(b, cpu, b::rdtsc);
        long previous = first;
        for (int i = 0; i < 1000; i++) {
            long now = pinned(b, cpu, b::rdtsc);
            assertTrue(Long.compareUnsigned(now, previous) >= 0, "TSC went backwards: " + previous + " -> " + now);
            previous = now;
        }
        Thread.sleep(5);
        long later = pinned(b, cpu, b::rdtsc);
        assertTrue(Long.compareUnsigned(later, first) > 0, "TSC did not advance over 5 ms");
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void rdtscpReportsThePinnedCpuInTscAux(NativeBinding b) {
        // Without CPUID.80000001H:EDX[27] the instruction may still execute under a hypervisor,
        // but TSC_AUX is then whatever the hypervisor left there.
        Preconditions.rdtscp();
        for (int cpu : cpusInMask()) {
            NativeBinding.Rdtscp r = pinned(b, cpu, b::rdtscp);
            // Linux: TSC_AUX = cpu | node << 12 (arch/x86/kernel/cpu/common.c setup_getcpu)
            assertEquals(cpu, r.aux() & 0xfff, "TSC_AUX on CPU " + cpu);
            long tsc = pinned(b, cpu, b::rdtsc);
            assertTrue(Long.compareUnsigned(tsc, r.tsc()) >= 0, "rdtsc after rdtscp went backwards");
        }
    }

    // ---- the code page

    static Stream<Named<Supplier<Long>>> codePages() {
        return Stream.of(Named.of("ffm", FFM::codePageAddress), Named.of("jna", JNA::codePageAddress));
    }

    @ParameterizedTest
    @MethodSource("codePages")
    void theStubPageIsReadAndExecuteButNotWritable(Supplier<Long> codePage) throws IOException {
        long addr = codePage.get();
        assertEquals(0, addr % MachineCode.PAGE_SIZE);
        String line = mappingOf(addr);
        String perms = line.split("\\s+")[1];
        assertEquals("r-xp", perms, "/proc/self/maps: " + line);
        assertArrayEquals(MachineCode.pageImage(), FFM.peek(addr, MachineCode.PAGE_SIZE), "page holds the image");
        assertEquals(addr, codePage.get(), "one code page per process: the address never changes");
    }

    @Test
    void eachTwinHasItsOwnPage() {
        assertNotEquals(FFM.codePageAddress(), JNA.codePageAddress());
        assertEquals(FFM.codePageAddress(), new FfmBinding().codePageAddress(), "a new instance reuses the page");
    }

    /** The /proc/self/maps line whose range holds {@code addr} (fs/proc/task_mmu.c show_map_vma). */
    static String mappingOf(long addr) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            String[] range = line.substring(0, line.indexOf(' ')).split("-");
            long lo = Long.parseUnsignedLong(range[0], 16);
            long hi = Long.parseUnsignedLong(range[1], 16);
            if (Long.compareUnsigned(addr, lo) >= 0 && Long.compareUnsigned(addr, hi) < 0) {
                return line;
            }
        }
        throw new AssertionError("0x" + Long.toHexString(addr) + " is not mapped");
    }

    @Test
    void closeIsHarmlessAndStubsKeepWorking() {
        NativeBinding extra = new FfmBinding();
        extra.close();
        extra.close();
        assertEquals(FFM.cpuid(0, 0), JNA.cpuid(0, 0));
        assertFalse(FFM.cpuid(0, 0).isZero());
    }
}
