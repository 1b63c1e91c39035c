package dev.hwtool.devcpu;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.sim.Profiles;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The simulated /dev/cpu tree through the kernel's interface (pread/pwrite on the files, by
 * Java, by a C program and by a Python script), checked against the platform a Java test
 * inspects at the same time: msr.c's and cpuid.c's rules, one machine, the trace, concurrent
 * access, and an unmount while a file is held open.
 */
class DevCpuTreeTest {

    private static final int IA32_PERF_CAPABILITIES = 0x345;
    private static final int IA32_MISC_ENABLE = 0x1a0;
    private static final int IA32_PEBS_ENABLE = 0x3f1;
    private static final int IA32_A_PMC0 = 0x4c1;

    @TempDir
    Path dir;
    private SimulatedPlatform platform;
    private DevCpuTree tree;
    private final List<DevCpuAccess> trace = new CopyOnWriteArrayList<>();

    @BeforeEach
    void mount() {
        Preconditions.that(Files.exists(Path.of("/dev/fuse")), "no /dev/fuse (modprobe fuse; docker run --device /dev/fuse)");
        Preconditions.library("libfuse3.so.3", "libfuse3-3"); // by soname, as Libfuse loads it
        platform = new SimulatedPlatform(Profiles.resolve("skylake"), 2);
        tree = DevCpuTree.mount(platform, dir, trace::add);
    }

    @AfterEach
    void unmount() {
        if (tree != null) {
            tree.close();
        }
        if (platform != null) {
            platform.close();
        }
    }

    /** CPUID(leaf, subleaf) of simulated CPU {@code cpu}, as the driver's 16-byte records hold it. */
    private CpuidRegs regs(int cpu, int leaf, int subleaf) {
        return CpuidReading.of(platform.cpuid()).regs(cpu, leaf, subleaf);
    }

    private FileChannel open(int cpu, String node) throws IOException {
        return FileChannel.open(dir.resolve(cpu + "/" + node), StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    private static long read(FileChannel ch, long offset) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(8, ch.read(b, offset));
        return b.getLong(0);
    }

    private static void write(FileChannel ch, long offset, long value) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value);
        assertEquals(8, ch.write(b, offset));
    }

    private static String errno(IOException e) {
        return e.getMessage();
    }

    @Test
    void theTreeHasTheProfilesCpus() {
        assertEquals(List.of("0", "1"), List.of(dir.toFile().list()).stream().sorted().toList());
        assertEquals(List.of("cpuid", "msr"), List.of(dir.resolve("1").toFile().list()).stream().sorted().toList());
    }

    /** This machine's CPUs have their /dev/cpu: a second tree is refused, and nothing is mounted. */
    @Test
    void aHardwarePlatformIsRefused(@TempDir Path other) throws IOException {
        try (Platform hw = Platform.open()) {
            assertEquals(Platform.Kind.HARDWARE, hw.kind());
            HwException e = assertThrows(HwException.class, () -> DevCpuTree.mount(hw, other));
            assertEquals(Cause.BAD_INPUT, e.cause(), e.getMessage());
            assertTrue(e.getMessage().contains("serves a simulated platform"), e.getMessage());
        }
        assertFalse(Files.readString(Path.of("/proc/self/mounts")).contains(" " + other + " "), "nothing mounted at " + other);
    }

    /** The trace's CPUID registers are the contract's, equal to what the platform answers. */
    @Test
    void theTraceShowsTheContractsCpuidResult() throws IOException {
        try (FileChannel ch = open(1, "cpuid")) {
            ByteBuffer b = ByteBuffer.allocate(16);
            assertEquals(16, ch.read(b, 0x7));
        }
        DevCpuAccess a = trace.stream().filter(t -> t.kind() == DevCpuAccess.Kind.CPUID).findFirst().orElseThrow();
        assertEquals(platform.cpuid().cpuid(1, 7, 0), a.regs());
        assertEquals(1, a.cpu());
        assertEquals(7, a.register());
        assertTrue(Files.readString(Path.of("/proc/self/mounts")).contains("hwtool-" + platform.cpuid().name() + " " + dir + " "),
                "the mount is named after the platform's CPUID source");
    }

    @Test
    void msrFollowsTheDriver() throws IOException {
        try (FileChannel ch = open(0, "msr")) {
            long caps;
            synchronized (platform) {
                caps = platform.msr().read(0, IA32_PERF_CAPABILITIES);
            }
            assertEquals(caps, read(ch, IA32_PERF_CAPABILITIES));
            // u32 reg = *ppos: the offset's high half is ignored, as msr_read() does.
            assertEquals(caps, read(ch, (1L << 32) | IA32_PERF_CAPABILITIES));
            // 16 bytes: the same register twice.
            ByteBuffer two = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(16, ch.read(two, IA32_MISC_ENABLE));
            assertEquals(two.getLong(0), two.getLong(8));
            // Not a multiple of 8: EINVAL. A register the CPU lacks: #GP, EIO.
            assertEquals("Invalid argument", errno(assertThrows(IOException.class, () -> ch.read(ByteBuffer.allocate(4), IA32_MISC_ENABLE))));
            assertEquals("Input/output error", errno(assertThrows(IOException.class, () -> read(ch, 0x12345))));
            // A write reaches the same machine; a reserved bit faults and changes nothing.
            write(ch, IA32_PEBS_ENABLE, 0xf0000000fL);
            synchronized (platform) {
                assertEquals(0xf0000000fL, platform.msr().read(0, IA32_PEBS_ENABLE));
            }
            assertEquals("Input/output error", errno(assertThrows(IOException.class, () -> write(ch, IA32_PEBS_ENABLE, 0x10))));
            assertEquals(0xf0000000fL, read(ch, IA32_PEBS_ENABLE));
            assertEquals("Invalid argument", errno(assertThrows(IOException.class,
                    () -> ch.write(ByteBuffer.allocate(12), IA32_PEBS_ENABLE))));
            // A read-only register: #GP on write.
            assertEquals("Input/output error", errno(assertThrows(IOException.class, () -> write(ch, IA32_PERF_CAPABILITIES, 0))));
        }
        try (FileChannel cpu1 = open(1, "msr")) {
            assertEquals(0, read(cpu1, IA32_PEBS_ENABLE), "CPU 1 has registers of its own");
        }
    }

    @Test
    void cpuidFollowsTheDriver() throws IOException {
        try (FileChannel ch = open(0, "cpuid")) {
            CpuidRegs leaf0 = regs(0, 0, 0);
            ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(32, ch.read(b, 7));
            // Each 16-byte record advances the position by one: leaf 7, then leaf 8 (cpuid_read()).
            assertEquals(regs(0, 7, 0), CpuidRegs.fromLittleEndian(b.array(), 0));
            assertEquals(regs(0, 8, 0), CpuidRegs.fromLittleEndian(b.array(), 16));
            ByteBuffer one = ByteBuffer.allocate(16);
            assertEquals(16, ch.read(one, 0));
            assertEquals(leaf0, CpuidRegs.fromLittleEndian(one.array(), 0));
            ByteBuffer sub = ByteBuffer.allocate(16);
            assertEquals(16, ch.read(sub, (1L << 32) | 0xd));
            assertEquals(regs(0, 0xd, 1), CpuidRegs.fromLittleEndian(sub.array(), 0));
            assertEquals("Invalid argument", errno(assertThrows(IOException.class, () -> ch.read(ByteBuffer.allocate(8), 0))));
            // The driver has no write operation.
            assertEquals("Invalid argument", errno(assertThrows(IOException.class, () -> ch.write(ByteBuffer.allocate(16), 0))));
        }
    }

    @Test
    void theTraceRecordsEveryAccessWithItsResult() throws IOException {
        try (FileChannel ch = open(1, "msr")) {
            write(ch, IA32_A_PMC0, 0x1234);
            assertThrows(IOException.class, () -> read(ch, 0x12345));
        }
        List<DevCpuAccess> msr = trace.stream().filter(a -> a.kind() == DevCpuAccess.Kind.MSR).toList();
        assertEquals(2, msr.size(), msr.toString());
        DevCpuAccess w = msr.get(0);
        assertEquals(1, w.cpu());
        assertEquals(DevCpuAccess.Op.WRITE, w.op());
        assertEquals(IA32_A_PMC0, w.register());
        assertEquals(0x1234L, w.value());
        assertEquals("ok", w.result());
        assertTrue(Files.isDirectory(Path.of("/proc/self/task", String.valueOf(w.pid()))), "the writing thread: " + w.pid());
        assertEquals("EIO", msr.get(1).result());
        assertEquals(0x12345, msr.get(1).register());
    }

    @Test
    void concurrentReadersAndWritersSeeNoTornValue() throws Exception {
        long a = 0x0000_1111_2222_3333L;
        long b = 0x0000_4444_5555_6666L;
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> jobs = new ArrayList<>();
            for (long v : new long[]{a, b}) {
                jobs.add(pool.submit(() -> {
                    try (FileChannel ch = open(0, "msr")) {
                        for (int i = 0; i < 300; i++) {
                            write(ch, IA32_A_PMC0, v);
                        }
                    }
                    return null;
                }));
                jobs.add(pool.submit(() -> {
                    try (FileChannel ch = open(0, "msr")) {
                        for (int i = 0; i < 300; i++) {
                            seen.add(read(ch, IA32_A_PMC0));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : jobs) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        assertTrue(Set.of(0L, a, b).containsAll(seen), "torn or foreign values: " + seen);
    }

    @Test
    void anUnmountWhileAFileIsHeldOpenLeavesNoMountAndFailsTheHolder() throws Exception {
        FileChannel held = open(0, "msr");
        try {
            read(held, IA32_MISC_ENABLE);
            tree.close();
            assertFalse(Files.readString(Path.of("/proc/self/mountinfo")).contains(" " + dir.toAbsolutePath() + " "),
                    "the mount is gone at once");
            assertFalse(Files.exists(dir.resolve("0/msr")));
            // The holder's next request may still be served; the one after it finds the connection closed.
            IOException gone = null;
            for (int i = 0; i < 3 && gone == null; i++) {
                try {
                    read(held, IA32_MISC_ENABLE);
                } catch (IOException e) {
                    gone = e;
                }
            }
            // ENOTCONN for a request after the abort, ECONNABORTED for one in flight (fs/fuse/dev.c).
            assertTrue(gone != null && (gone.getMessage().equals("Transport endpoint is not connected")
                    || gone.getMessage().equals("Software caused connection abort")), String.valueOf(gone));
        } finally {
            try {
                held.close();
            } catch (IOException e) {
                // close(2) sends FUSE_FLUSH, which the closed connection refuses (ENOTCONN): expected here.
            }
        }
    }

    @Test
    void aCProgramAndAPythonScriptPreadTheNodes(@TempDir Path work) throws Exception {
        Preconditions.tool("/usr/bin/cc", "gcc");
        Path python = Preconditions.onPath("python3", "python3");
        Path src = work.resolve("rd.c");
        Files.writeString(src, """
                #include <fcntl.h>
                #include <stdio.h>
                #include <stdint.h>
                #include <stdlib.h>
                #include <unistd.h>
                #include <errno.h>
                #include <string.h>
                int main(int argc, char **argv) {
                    char path[4096];
                    snprintf(path, sizeof path, "%s/0/msr", argv[1]);
                    int fd = open(path, O_RDWR);
                    if (fd < 0) { perror("open"); return 2; }
                    uint64_t v = strtoull(argv[2], 0, 0);
                    if (pwrite(fd, &v, 8, 0x3f1) != 8) { perror("pwrite"); return 3; }
                    uint64_t r;
                    if (pread(fd, &r, 8, 0x3f1) != 8) { perror("pread"); return 4; }
                    printf("%llx\\n", (unsigned long long) r);
                    if (pread(fd, &r, 8, 0x12345) != -1 || errno != EIO) return 5;
                    if (pread(fd, &r, 4, 0x3f1) != -1 || errno != EINVAL) return 6;
                    snprintf(path, sizeof path, "%s/0/cpuid", argv[1]);
                    int c = open(path, O_RDONLY);
                    uint32_t regs[4];
                    if (pread(c, regs, 16, 0) != 16) { perror("cpuid"); return 7; }
                    printf("%.4s%.4s%.4s\\n", (char *) &regs[1], (char *) &regs[3], (char *) &regs[2]);
                    return 0;
                }
                """);
        Path exe = work.resolve("rd");
        assertEquals("", run(List.of("/usr/bin/cc", "-o", exe.toString(), src.toString())));
        assertEquals("f0000000f\nGenuineIntel\n", run(List.of(exe.toString(), dir.toString(), "0xf0000000f")));
        synchronized (platform) {
            assertEquals(0xf0000000fL, platform.msr().read(0, IA32_PEBS_ENABLE), "the C program wrote the platform's register");
        }
        Path py = work.resolve("rd.py");
        Files.writeString(py, """
                import os, struct, sys
                fd = os.open(sys.argv[1] + "/1/msr", os.O_RDWR)
                os.pwrite(fd, struct.pack("<Q", 0x123456789abc), 0x4c1)
                print(hex(struct.unpack("<Q", os.pread(fd, 8, 0x4c1))[0]))
                try:
                    os.pread(fd, 8, 0x12345)
                except OSError as e:
                    print(e.strerror)
                eax, ebx, ecx, edx = struct.unpack("<4I", os.pread(os.open(sys.argv[1] + "/1/cpuid", os.O_RDONLY), 16, 1))
                print(hex(eax))
                """);
        String out = run(List.of(python.toString(), py.toString(), dir.toString()));
        long a = regs(1, 1, 0).eax();
        assertEquals("0x123456789abc\nInput/output error\n0x" + Long.toHexString(a) + "\n", out);
        synchronized (platform) {
            assertEquals(0x123456789abcL, platform.msr().read(1, IA32_A_PMC0));
        }
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + ":\n" + out);
        return out;
    }

    @Test
    void closingThePlatformAfterTheTreeIsFine() {
        tree.close();
        platform.close();
        assertThrows(IllegalStateException.class, () -> platform.msr());
        assertArrayEquals(new String[0], dir.toFile().list());
    }
}
