package dev.hwtool.linux;

import dev.hwtool.linux.sys.FixtureTree;
import dev.hwtool.linux.sys.LinuxProbe;
import dev.hwtool.linux.sys.Bindings;
import dev.hwtool.testing.Preconditions;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.bind.Errno;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.LinuxFacts.DriverState;
import dev.hwtool.caps.Verdicts;
import dev.hwtool.io.CpuList;
import dev.hwtool.linux.MsrAccessException.Operation;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DeviceMsrAccess on this machine (which has no msr driver) and on fixture trees.
 *
 * <p>The fixture's {@code /dev/cpu/N/msr} is a sparse regular file of 4 GiB + 8 bytes, not a mock:
 * pread/pwrite on it go through the real system calls and land exactly at byte offset = MSR index,
 * which is the part of the driver's contract this class is responsible for (offset, width, byte
 * order). Unlike the driver, the file's neighbouring indices overlap byte-wise, so the tests never
 * use adjacent MSRs.
 */
class DeviceMsrAccessTest {

    /** Every offset a 32-bit index can name, plus one register's width. */
    private static final long FIXTURE_SIZE = (1L << 32) + 8;

    private static final long SYS_SETFSUID = 122;
    private static final int NOBODY = 65534;

    @TempDir
    Path dir;
    FixtureTree tree;

    static Stream<Named<NativeBinding>> bindings() {
        return Bindings.names().stream().map(n -> Named.of(n, Bindings.open(n)));
    }

    /** The build machine's twin: two online CPUs, msr.ko installed but not loaded. */
    @BeforeEach
    void bareVm() {
        tree = FixtureTree.bareVm(dir);
    }

    private DeviceMsrAccess access(NativeBinding b) {
        return new DeviceMsrAccess(b, tree.at("/dev"), tree.root);
    }

    /** The msr module "loaded": sparse register files for CPUs 0 and 1. */
    private Path[] sparseNodes() throws IOException {
        tree.withMsr("default");
        Path[] nodes = {tree.at("/dev/cpu/0/msr"), tree.at("/dev/cpu/1/msr")};
        for (Path n : nodes) {
            try (RandomAccessFile f = new RandomAccessFile(n.toFile(), "rw")) {
                f.setLength(FIXTURE_SIZE);
            }
        }
        return nodes;
    }

    private static void put(Path node, long offset, long value) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).flip();
        try (FileChannel ch = FileChannel.open(node, StandardOpenOption.WRITE)) {
            assertEquals(8, ch.write(b, offset));
        }
    }

    private static byte[] bytesAt(Path node, long offset) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8);
        try (FileChannel ch = FileChannel.open(node, StandardOpenOption.READ)) {
            assertEquals(8, ch.read(b, offset));
        }
        return b.array();
    }

    // ---- this machine ---------------------------------------------------------------------------

    @ParameterizedTest
    @MethodSource("bindings")
    void thisKernelHasNoMsrDriver(NativeBinding b) {
        LinuxFacts f = LinuxProbe.probe();
        Preconditions.hostLacks(Preconditions.Kernel.MSR_DRIVER);
        assertEquals(DriverState.NOT_BUILT, f.msrDriver().state(), "the probe agrees: " + f.msrDriver());
        Preconditions.that(Files.isDirectory(Path.of("/dev/cpu/0")), "no /dev/cpu/0 (modprobe cpuid makes it)");
        try (DeviceMsrAccess msr = new DeviceMsrAccess(b)) {
            assertEquals(CpuList.online(), msr.cpus());
            MsrAccessException e = assertThrows(MsrAccessException.class, () -> msr.read(0, 0x10));
            assertEquals(Cause.DRIVER_NOT_LOADED, e.cause());
            assertEquals("CPU 0 cannot read MSR 0x00000010: open /dev/cpu/0/msr: ENOENT (No such file or directory):"
                    + " /dev/cpu/0 exists but has no msr node: the kernel has no msr driver ("
                    + f.msrDriver().evidence() + ")", e.getMessage());
            assertTrue(e.getMessage().contains("CONFIG_X86_MSR is not set"), e.getMessage());
            assertEquals(Verdicts.REBUILD_WITH_MSR, e.remedy().orElseThrow());
            assertEquals(Operation.OPEN, e.operation());
            assertEquals("open", e.operation().call());
            assertEquals(Errno.ENOENT, e.errno());
            assertEquals("No such file or directory", e.strerror());
            assertEquals(0, e.cpu());
            assertEquals(0x10, e.msr());
            assertEquals(Path.of("/dev/cpu/0/msr"), e.node());

            MsrAccessException w = assertThrows(MsrAccessException.class, () -> msr.write(1, 0x1d9, 1));
            assertEquals(Cause.DRIVER_NOT_LOADED, w.cause());
            assertTrue(w.getMessage().startsWith("CPU 1 cannot set MSR 0x000001d9 to 0x0000000000000001: open"
                    + " /dev/cpu/1/msr: ENOENT"), w.getMessage());
        }
    }

    @Test
    void aCpuThisMachineDoesNotHaveIsNoSuchCpu() {
        try (DeviceMsrAccess msr = new DeviceMsrAccess(Bindings.openDefault())) {
            MsrAccessException e = assertThrows(MsrAccessException.class, () -> msr.read(4000, 0x10));
            assertEquals(Cause.NO_SUCH_CPU, e.cause());
            assertEquals(Errno.ENOENT, e.errno());
            assertEquals("choose one of the online CPUs (" + CpuList.format(CpuList.online()) + ")",
                    e.remedy().orElseThrow());
            MsrAccessException negative = assertThrows(MsrAccessException.class, () -> msr.read(-1, 0x10));
            assertEquals(Cause.NO_SUCH_CPU, negative.cause());
        }
    }

    @Test
    void linuxPlatformHandsOutOneMsrAccessAndClosesIt() {
        MsrAccess msr;
        try (LinuxPlatform p = LinuxPlatform.open()) {
            msr = p.msr();
            assertSame(msr, p.msr());
            assertTrue(msr instanceof DeviceMsrAccess);
            assertEquals(CpuList.online(), msr.cpus());
        }
        HwException closed = assertThrows(HwException.class, () -> msr.read(0, 0x10));
        assertEquals(Cause.UNSUPPORTED, closed.cause());
        assertTrue(closed.getMessage().contains("closed platform"), closed.getMessage());
    }

    // ---- offsets, width, byte order, on sparse fixture files -------------------------------------

    @ParameterizedTest
    @MethodSource("bindings")
    void readsEightLittleEndianBytesAtTheIndex(NativeBinding b) throws IOException {
        Path[] nodes = sparseNodes();
        put(nodes[0], 0x10, 0x0123_4567_89ab_cdefL);
        put(nodes[0], 0xC000_0080L, 0xd00d_feed_0000_0d01L);
        put(nodes[0], 0xFFFF_FFFFL, -2L);
        put(nodes[1], 0x10, 42);
        try (DeviceMsrAccess msr = access(b)) {
            assertEquals(List.of(0, 1), msr.cpus());
            assertEquals(0x0123_4567_89ab_cdefL, msr.read(0, 0x10));
            assertEquals(0xd00d_feed_0000_0d01L, msr.read(0, 0xC000_0080), "IA32_EFER: the index is unsigned");
            assertEquals(-2L, msr.read(0, 0xFFFF_FFFF), "the highest index is offset 2^32-1");
            assertEquals(42, msr.read(1, 0x10), "each CPU has its own node");
            assertEquals(0, msr.read(0, 0x1d9), "a hole in the sparse file reads as zeros");
        }
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void writesEightLittleEndianBytesAtTheIndex(NativeBinding b) throws IOException {
        Path[] nodes = sparseNodes();
        try (DeviceMsrAccess msr = access(b)) {
            msr.write(0, 0xC000_0080, 0x8877_6655_4433_2211L);
            msr.write(1, 0x1d9, 0x1L);
        }
        assertEquals(List.of((byte) 0x11, (byte) 0x22, (byte) 0x33, (byte) 0x44, (byte) 0x55, (byte) 0x66,
                (byte) 0x77, (byte) 0x88), boxed(bytesAt(nodes[0], 0xC000_0080L)));
        assertEquals(List.of((byte) 1, (byte) 0, (byte) 0, (byte) 0, (byte) 0, (byte) 0, (byte) 0, (byte) 0),
                boxed(bytesAt(nodes[1], 0x1d9)));
        assertEquals(List.of((byte) 0, (byte) 0, (byte) 0, (byte) 0, (byte) 0, (byte) 0, (byte) 0, (byte) 0),
                boxed(bytesAt(nodes[0], 0x1d9)), "CPU 1's write stays on CPU 1");
        assertEquals(FIXTURE_SIZE, Files.size(nodes[0]), "nothing was written beyond 2^32+8");
    }

    private static List<Byte> boxed(byte[] b) {
        List<Byte> out = new ArrayList<>();
        for (byte x : b) {
            out.add(x);
        }
        return out;
    }

    @Test
    void bothBindingsGiveIdenticalResults() throws IOException {
        sparseNodes();
        int[] indices = {0x0, 0x10, 0x1b, 0x1d9, 0x345, 0x680, 0x6c0, 0x7fff_fff0, 0x8000_0000, 0xC000_0080,
                0xC001_0000, 0xFFFF_FFF0};
        try (NativeBinding ffmB = Bindings.open("ffm"); NativeBinding jnaB = Bindings.open("jna");
             DeviceMsrAccess ffm = access(ffmB); DeviceMsrAccess jna = access(jnaB)) {
            long value = 0x0102_0304_0506_0708L;
            for (int i = 0; i < indices.length; i++) {
                DeviceMsrAccess writer = i % 2 == 0 ? ffm : jna;
                writer.write(i % 2, indices[i], value * (i + 1) ^ (long) i << 60);
            }
            for (int cpu : List.of(0, 1)) {
                for (int i = 0; i < indices.length; i++) {
                    long expected = i % 2 == cpu ? value * (i + 1) ^ (long) i << 60 : 0;
                    assertEquals(expected, ffm.read(cpu, indices[i]), "ffm CPU " + cpu + " MSR " + indices[i]);
                    assertEquals(expected, jna.read(cpu, indices[i]), "jna CPU " + cpu + " MSR " + indices[i]);
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void aShortReadIsAnOsError(NativeBinding b) throws IOException {
        tree.withMsr("default"); // empty files: pread at any offset returns 0 bytes
        try (DeviceMsrAccess msr = access(b)) {
            HwException e = assertThrows(HwException.class, () -> msr.read(0, 0x10));
            assertEquals(Cause.OS_ERROR, e.cause());
            assertEquals("CPU 0 cannot read MSR 0x00000010: pread " + tree.at("/dev/cpu/0/msr")
                    + " at offset 0x10 transferred 0 of 8 bytes", e.getMessage());
        }
    }

    // ---- missing nodes, through real open(2) on fixture trees ---------------------------------------

    @ParameterizedTest
    @MethodSource("bindings")
    void aMissingNodeWithTheModuleInstalledNeedsModprobe(NativeBinding b) {
        try (DeviceMsrAccess msr = access(b)) {
            MsrAccessException e = assertThrows(MsrAccessException.class, () -> msr.read(0, 0x10));
            assertEquals(Cause.DRIVER_NOT_LOADED, e.cause());
            assertEquals("CPU 0 cannot read MSR 0x00000010: open " + tree.at("/dev/cpu/0/msr") + ": ENOENT (No such"
                    + " file or directory): " + tree.at("/dev/cpu/0") + " exists but has no msr node: the msr driver"
                    + " is not loaded (msr.ko installed, no /sys/module/msr)", e.getMessage());
            assertEquals("sudo modprobe msr", e.remedy().orElseThrow());
        }
    }

    @Test
    void aMissingNodeOnAKernelWithoutTheDriverNeedsAnotherKernel() {
        tree.delete("/lib/modules").kernelConfig("CONFIG_MODULES=y\n# CONFIG_X86_MSR is not set\n");
        try (DeviceMsrAccess msr = access(Bindings.openDefault())) {
            MsrAccessException e = assertThrows(MsrAccessException.class, () -> msr.write(1, 0x1d9, 0));
            assertEquals(Cause.DRIVER_NOT_LOADED, e.cause());
            assertTrue(e.getMessage().endsWith("the kernel has no msr driver (CONFIG_X86_MSR is not set in"
                    + " /proc/config.gz)"), e.getMessage());
            assertEquals(Verdicts.REBUILD_WITH_MSR, e.remedy().orElseThrow());
            assertTrue(e.remedy().orElseThrow().startsWith("boot a kernel built with CONFIG_X86_MSR"));
        }
    }

    @Test
    void anOnlineCpuWithoutItsDevDirectoryIsTheDriverNotTheCpu() {
        tree.delete("/dev/cpu/1");
        try (DeviceMsrAccess msr = access(Bindings.openDefault())) {
            MsrAccessException e = assertThrows(MsrAccessException.class, () -> msr.read(1, 0x10));
            assertEquals(Cause.DRIVER_NOT_LOADED, e.cause());
            assertTrue(e.getMessage().endsWith(": CPU 1 is online but " + tree.at("/dev/cpu/1")
                    + " is missing: the msr driver is not loaded (msr.ko installed, no /sys/module/msr)"),
                    e.getMessage());
        }
    }

    @Test
    void aContainerWithoutDevCpuOnAHostWithoutTheModuleLoadedNeedsTheModuleAndTheNodes() {
        tree.delete("/dev/cpu").docker();
        try (DeviceMsrAccess msr = access(Bindings.openDefault())) {
            MsrAccessException e = assertThrows(MsrAccessException.class, () -> msr.read(0, 0x10));
            assertEquals(Cause.DRIVER_NOT_LOADED, e.cause());
            assertTrue(e.getMessage().endsWith(": CPU 0 is online but there is no /dev/cpu in this docker container:"
                    + " the host's CPU device nodes were not passed in, and the msr driver is not loaded (msr.ko"
                    + " installed, no /sys/module/msr)"), e.getMessage());
            assertEquals(Verdicts.HOST_MODPROBE_AND_DEVICES, e.remedy().orElseThrow());
        }
    }

    /** The driver is loaded on the host: only the nodes are missing, so it is not DRIVER_NOT_LOADED. */
    @Test
    void aContainerWithoutDevCpuOnAHostWithTheDriverIsUnsupportedHere() {
        tree.delete("/dev/cpu").docker().file("/sys/module/msr/initstate", "live\n");
        try (DeviceMsrAccess msr = access(Bindings.openDefault())) {
            MsrAccessException e = assertThrows(MsrAccessException.class, () -> msr.read(0, 0x10));
            assertEquals(Cause.UNSUPPORTED, e.cause());
            assertTrue(e.getMessage().endsWith(": CPU 0 is online but there is no /dev/cpu in this docker container:"
                    + " the host's CPU device nodes were not passed in; the msr driver is present"
                    + " (/sys/module/msr/initstate: live)"), e.getMessage());
            assertEquals("start the container with --device=/dev/cpu --cap-add=SYS_RAWIO", e.remedy().orElseThrow());
        }
    }

    /** No CONFIG_X86_MSR on the host: there is nothing to modprobe, so the remedy is another kernel. */
    @Test
    void aContainerWithoutDevCpuOnAHostWithoutTheDriverNeedsAnotherHostKernel() {
        tree.delete("/dev/cpu").delete("/lib/modules").docker()
                .kernelConfig("CONFIG_MODULES=y\n# CONFIG_X86_MSR is not set\n");
        try (DeviceMsrAccess msr = access(Bindings.openDefault())) {
            MsrAccessException e = assertThrows(MsrAccessException.class, () -> msr.read(0, 0x10));
            assertEquals(Cause.DRIVER_NOT_LOADED, e.cause());
            assertTrue(e.getMessage().endsWith(", and the kernel has no msr driver (CONFIG_X86_MSR is not set in"
                    + " /proc/config.gz)"), e.getMessage());
            assertEquals("on the host: boot a kernel built with CONFIG_X86_MSR=y or =m, then sudo modprobe msr;"
                    + " then start the container with --device=/dev/cpu --cap-add=SYS_RAWIO", e.remedy().orElseThrow());
        }
    }

    @Test
    void aLoneDockerenvIsNoContainer() {
        tree.delete("/dev/cpu").file("/.dockerenv", "");
        try (DeviceMsrAccess msr = access(Bindings.openDefault())) {
            MsrAccessException e = assertThrows(MsrAccessException.class, () -> msr.read(0, 0x10));
            assertFalse(e.getMessage().contains("container"), e.getMessage());
            assertEquals(Verdicts.MODPROBE_MSR, e.remedy().orElseThrow());
        }
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void noDevDirectoryForACpuThatIsNotOnlineIsNoSuchCpu(NativeBinding b) throws IOException {
        Files.createDirectories(tree.at("/sys/devices/system/cpu/cpu2")); // present, offline
        try (DeviceMsrAccess msr = access(b)) {
            MsrAccessException absent = assertThrows(MsrAccessException.class, () -> msr.read(5, 0x10));
            assertEquals(Cause.NO_SUCH_CPU, absent.cause());
            assertEquals("CPU 5 cannot read MSR 0x00000010: open " + tree.at("/dev/cpu/5/msr") + ": ENOENT (No such"
                    + " file or directory): there is no " + tree.at("/dev/cpu/5") + " and CPU 5 is not online"
                    + " (online: 0-1)", absent.getMessage());
            assertEquals("choose one of the online CPUs (0-1)", absent.remedy().orElseThrow());

            MsrAccessException offline = assertThrows(MsrAccessException.class, () -> msr.read(2, 0x10));
            assertEquals(Cause.NO_SUCH_CPU, offline.cause());
            assertEquals("echo 1 | sudo tee " + tree.at("/sys/devices/system/cpu/cpu2/online")
                    + ", or choose one of the online CPUs (0-1)", offline.remedy().orElseThrow());
        }
    }

    // ---- file modes, for real (setfsuid) ----------------------------------------------------------

    /**
     * EACCES from the kernel: as root, DAC never refuses, so this thread drops its filesystem uid
     * to nobody (setfsuid(2) is per thread and, from uid 0, also drops CAP_DAC_OVERRIDE and
     * CAP_DAC_READ_SEARCH; capabilities(7)) for the calls, then takes uid 0 back.
     */
    @ParameterizedTest
    @MethodSource("bindings")
    void fileModesAreReportedAndAReadableNodeStillReads(NativeBinding b) throws IOException {
        Preconditions.privileged(b.syscall(SYS_SETFSUID, -1) == 0, "needs to run as root to switch the filesystem uid");
        Path[] nodes = sparseNodes();
        put(nodes[1], 0x10, 0x1234);
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.filter(Files::isDirectory).toList()) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
        }
        Files.setPosixFilePermissions(nodes[0], PosixFilePermissions.fromString("rw-------"));
        Files.setPosixFilePermissions(nodes[1], PosixFilePermissions.fromString("rw-r--r--"));
        try (DeviceMsrAccess msr = access(b)) {
            // Load every class a failure needs while files are still readable to this thread: as
            // nobody, a class file under a checkout in a 0700 directory (mktemp -d) cannot be read,
            // and a class that failed to load stays failed for the whole JVM (JVMS 5.4.3).
            assertThrows(MsrAccessException.class, () -> msr.read(7, 0x10));
            MsrErrors preload = new MsrErrors(tree.at("/dev"), tree.root.resolve("sys"), () -> LinuxProbe.probe(tree.root));
            preload.of(MsrErrors.Request.read(0, 0x10), Operation.OPEN, Errno.EACCES, null).getMessage();
            preload.of(MsrErrors.Request.write(1, 0x10, 0), Operation.OPEN, Errno.EACCES, null).getMessage();
            try (DeviceMsrAccess warm = access(b)) { // the binding's pread/pwrite, linked on first use; same value back
                warm.write(1, 0x10, warm.read(1, 0x10));
            }
            MsrAccessException none;
            MsrAccessException readOnly;
            long read;
            b.syscall(SYS_SETFSUID, NOBODY);
            try {
                assertEquals(NOBODY, b.syscall(SYS_SETFSUID, -1));
                none = assertThrows(MsrAccessException.class, () -> msr.read(0, 0x10));
                read = msr.read(1, 0x10);
                readOnly = assertThrows(MsrAccessException.class, () -> msr.write(1, 0x10, 0));
            } finally {
                b.syscall(SYS_SETFSUID, 0);
            }
            assertEquals(0, b.syscall(SYS_SETFSUID, -1), "fsuid restored");

            assertEquals(Cause.PERMISSION_DENIED, none.cause());
            assertEquals(Errno.EACCES, none.errno());
            assertEquals(Operation.OPEN, none.operation());
            assertEquals("Permission denied", none.strerror());
            assertTrue(none.getMessage().startsWith("CPU 0 cannot read MSR 0x00000010: open " + nodes[0]
                    + ": EACCES (Permission denied): mode -rw------- "), none.getMessage());
            assertTrue(none.remedy().orElseThrow().contains("setfacl -m u:0:r /dev/cpu/*/msr) and CAP_SYS_RAWIO"),
                    none.remedy().orElseThrow());

            assertEquals(0x1234, read, "mode 0644: a read opens read-only, as msr-tools' rdmsr does");

            assertEquals(Cause.PERMISSION_DENIED, readOnly.cause());
            assertEquals(Errno.EACCES, readOnly.errno());
            assertEquals(Operation.OPEN, readOnly.operation(), "as wrmsr's open(O_WRONLY) would fail");
            assertTrue(readOnly.getMessage().startsWith("CPU 1 cannot set MSR 0x00000010 to 0x0000000000000000:"
                    + " open " + nodes[1] + ": EACCES (Permission denied): mode -rw-r--r-- "),
                    readOnly.getMessage());
            assertTrue(readOnly.getMessage().endsWith(" does not let uid 0 write it"), readOnly.getMessage());
            assertTrue(readOnly.remedy().orElseThrow().contains("setfacl -m u:0:rw /dev/cpu/*/msr"));

            assertEquals(0x1234, msr.read(1, 0x10), "the read descriptor stays usable after a refused write");
        }
        assertEquals(0x1234, ByteBuffer.wrap(bytesAt(nodes[1], 0x10)).order(ByteOrder.LITTLE_ENDIAN).getLong(),
                "the refused write changed nothing");
    }

    // ---- descriptors and threads ---------------------------------------------------------------

    /** Descriptors of this process open on files under {@code under}, from /proc/self/fd. */
    private static long openFdsUnder(Path under) throws IOException {
        long n = 0;
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    if (Files.readSymbolicLink(fd).startsWith(under)) {
                        n++;
                    }
                } catch (IOException e) {
                    // the directory stream's own descriptor is gone by the time it is read
                }
            }
        }
        return n;
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void nodesAreOpenedOnFirstUseOnceAndClosedByClose(NativeBinding b) throws IOException {
        sparseNodes();
        Path devCpu = tree.at("/dev/cpu");
        DeviceMsrAccess msr = access(b);
        assertEquals(0, openFdsUnder(devCpu), "construction opens nothing");
        assertEquals(List.of(0, 1), msr.cpus());
        assertEquals(0, openFdsUnder(devCpu), "cpus() opens nothing");
        msr.read(0, 0x10);
        assertEquals(1, openFdsUnder(devCpu));
        msr.read(0, 0x11);
        assertEquals(1, openFdsUnder(devCpu), "the read descriptor, reused");
        msr.write(0, 0x1d9, 3);
        msr.write(0, 0x1d9, 4);
        assertEquals(2, openFdsUnder(devCpu), "writes open a write-only descriptor once (as wrmsr.c's O_WRONLY)");
        msr.write(1, 0x1d9, 3);
        assertEquals(3, openFdsUnder(devCpu), "a CPU that is only written has no read descriptor");
        assertThrows(MsrAccessException.class, () -> msr.read(5, 0x10));
        assertEquals(3, openFdsUnder(devCpu), "a failed open leaves nothing open");
        msr.close();
        assertEquals(0, openFdsUnder(devCpu), "close() closes every node");
        assertThrows(HwException.class, () -> msr.read(0, 0x10));
        assertThrows(HwException.class, () -> msr.write(1, 0x1d9, 0));
        msr.close(); // idempotent
    }

    @Test
    void concurrentReadersOnBothCpusSeeTheirOwnRegisters() throws Exception {
        Path[] nodes = sparseNodes();
        int[] indices = {0x10, 0x1d9, 0x345, 0xC000_0080};
        for (int cpu = 0; cpu < 2; cpu++) {
            for (int i = 0; i < indices.length; i++) {
                put(nodes[cpu], Integer.toUnsignedLong(indices[i]), (long) cpu << 32 | i);
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (DeviceMsrAccess msr = access(Bindings.openDefault())) {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int cpu = t % 2;
                done.add(pool.submit(() -> {
                    int reads = 0;
                    for (int round = 0; round < 200; round++) {
                        for (int i = 0; i < indices.length; i++) {
                            assertEquals((long) cpu << 32 | i, msr.read(cpu, indices[i]));
                            reads++;
                        }
                    }
                    return reads;
                }));
            }
            for (Future<Integer> f : done) {
                assertEquals(800, f.get());
            }
            assertEquals(2, openFdsUnder(tree.at("/dev/cpu")), "one descriptor per CPU despite the race to open");
        } finally {
            pool.shutdownNow();
        }
    }
}
