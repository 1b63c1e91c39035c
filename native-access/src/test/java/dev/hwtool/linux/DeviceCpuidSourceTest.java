package dev.hwtool.linux;

import dev.hwtool.linux.sys.FixtureTree;
import dev.hwtool.linux.sys.Bindings;
import dev.hwtool.testing.Preconditions;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.bind.Errno;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.NativeBinding;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** DeviceCpuidSource's offset encoding and error mapping, on fixture trees and the real device. */
class DeviceCpuidSourceTest {

    private static final long SYS_SETFSUID = 122;
    private static final int NOBODY = 65534;

    /** Holds sys/, dev/ and, where a test needs them, proc/ and the container markers. */
    @TempDir
    Path root;
    Path dev;
    Path sys;

    static Stream<Named<NativeBinding>> bindings() {
        return Bindings.names().stream().map(n -> Named.of(n, Bindings.open(n)));
    }

    /** A sysfs with CPUs 0 and 1 online and a cpu2 directory (present, offline). */
    @BeforeEach
    void fakeSysfs() throws IOException {
        dev = Files.createDirectories(root.resolve("dev"));
        sys = root.resolve("sys");
        Path cpu = sys.resolve("devices/system/cpu");
        for (int n = 0; n <= 2; n++) {
            Files.createDirectories(cpu.resolve("cpu" + n));
        }
        Files.writeString(cpu.resolve("online"), "0-1\n");
    }

    private Path fakeNode(int cpu) throws IOException {
        Path node = DeviceCpuidSource.node(dev, cpu);
        Files.createDirectories(node.getParent());
        return Files.write(node, new byte[2 * 16]); // leaves 0 and 1, zeros
    }

    private static void put(Path node, long offset, CpuidRegs r) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(r.eax()).putInt(r.ebx()).putInt(r.ecx()).putInt(r.edx()).flip();
        try (FileChannel ch = FileChannel.open(node, StandardOpenOption.WRITE)) {
            ch.write(b, offset);
        }
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void readsSixteenLittleEndianBytesAtLeafOrSubleafShifted(NativeBinding b) throws IOException {
        Path node = fakeNode(0);
        CpuidRegs basic = new CpuidRegs(0x11223344, 0x55667788, 0x99aabbcc, 0xddeeff00);
        CpuidRegs sub = new CpuidRegs(1, 2, 3, 4);
        CpuidRegs ext = new CpuidRegs(-1, 0x80000000, 0x7fffffff, 42);
        put(node, 0x7, basic);
        put(node, 0x7L | 2L << 32, sub);           // leaf 7, subleaf 2
        put(node, 0x8000_0001L, ext);               // the leaf is unsigned: no sign extension into the subleaf
        try (DeviceCpuidSource s = new DeviceCpuidSource(b, dev, root)) {
            assertEquals(basic, s.regs(0, 7, 0));
            assertEquals(sub, s.regs(0, 7, 2));
            assertEquals(ext, s.regs(0, 0x8000_0001, 0));
            assertEquals(CpuidRegs.ZERO, s.regs(0, 7, 1), "a hole in the sparse file reads as zeros");
        }
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void aShortReadIsAnOsError(NativeBinding b) throws IOException {
        Path node = fakeNode(0);
        Files.write(node, new byte[20]); // leaf 0 has 16 bytes, leaf 8 only 12
        try (DeviceCpuidSource s = new DeviceCpuidSource(b, dev, root)) {
            assertEquals(CpuidRegs.ZERO, s.regs(0, 0, 0));
            HwException e = assertThrows(HwException.class, () -> s.regs(0, 8, 0));
            assertEquals(Cause.OS_ERROR, e.cause());
            assertEquals("pread " + node + " at offset 0x8 returned 12 of 16 bytes", e.getMessage());
        }
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void aMissingNodeUnderAnExistingCpuDirectoryMeansTheDriverIsNotLoaded(NativeBinding b) throws IOException {
        Files.createDirectories(dev.resolve("cpu/0"));
        try (DeviceCpuidSource s = new DeviceCpuidSource(b, dev, root)) {
            HwException e = assertThrows(HwException.class, () -> s.regs(0, 0, 0));
            assertEquals(Cause.DRIVER_NOT_LOADED, e.cause());
            assertEquals("open " + dev + "/cpu/0/cpuid: ENOENT (No such file or directory): " + dev + "/cpu/0 exists"
                    + " but has no cpuid node: the cpuid driver is not loaded (no /sys/module/cpuid, no device nodes,"
                    + " no kernel config)", e.getMessage());
            assertEquals("sudo modprobe cpuid", e.remedy().orElseThrow());
            assertEquals(Errno.ENOENT, ((ErrnoException) e.getCause()).errno());
        }
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void noCpuDirectoryForAnOnlineCpuAlsoMeansTheDriverIsNotLoaded(NativeBinding b) {
        try (DeviceCpuidSource s = new DeviceCpuidSource(b, dev, root)) {
            HwException e = assertThrows(HwException.class, () -> s.regs(1, 0, 0));
            assertEquals(Cause.DRIVER_NOT_LOADED, e.cause());
            assertEquals("sudo modprobe cpuid", e.remedy().orElseThrow());
        }
    }

    /**
     * A docker container started without --device=/dev/cpu on a host whose cpuid driver is
     * loaded: nothing to modprobe, the nodes were not passed in (what DeviceMsrAccess says too).
     */
    @ParameterizedTest
    @MethodSource("bindings")
    void aContainerWithoutDevCpuOnAHostWithTheDriverNeedsTheNodesPassedIn(NativeBinding b, @TempDir Path dir) {
        FixtureTree t = FixtureTree.bareVm(dir).docker().delete("/dev/cpu");
        try (DeviceCpuidSource s = new DeviceCpuidSource(b, t.at("/dev"), t.root)) {
            HwException e = assertThrows(HwException.class, () -> s.regs(0, 0, 0));
            assertEquals(Cause.UNSUPPORTED, e.cause());
            assertEquals("open " + t.at("/dev/cpu/0/cpuid") + ": ENOENT (No such file or directory): CPU 0 is online"
                    + " but there is no /dev/cpu in this docker container: the host's CPU device nodes were not passed"
                    + " in; the cpuid driver is present (/sys/module/cpuid/initstate: live)", e.getMessage());
            assertEquals("start the container with --device=/dev/cpu", e.remedy().orElseThrow());
        }
    }

    /** docker run --device /dev/cpu/0/cpuid: CPU 1's node was not passed in. */
    @Test
    void aContainerWithOnlySomeNodesNamesTheOneNotPassedIn(@TempDir Path dir) {
        FixtureTree t = FixtureTree.bareVm(dir).docker().delete("/dev/cpu/1");
        try (DeviceCpuidSource s = new DeviceCpuidSource(Bindings.openDefault(), t.at("/dev"), t.root)) {
            HwException e = assertThrows(HwException.class, () -> s.regs(1, 0, 0));
            assertEquals(Cause.UNSUPPORTED, e.cause());
            assertTrue(e.getMessage().endsWith(": CPU 1 is online but " + t.at("/dev/cpu/1") + " is missing: not passed"
                    + " into this docker container; the cpuid driver is present (/sys/module/cpuid/initstate: live)"),
                    e.getMessage());
            assertEquals("start the container with --device=/dev/cpu", e.remedy().orElseThrow());
        }
    }

    /** On a host, the driver loaded but its node absent: /dev is not devtmpfs, no module to load. */
    @Test
    void onAHostWithTheDriverLoadedAMissingNodeIsNotTheDriver(@TempDir Path dir) {
        FixtureTree t = FixtureTree.bareVm(dir).delete("/dev/cpu/0/cpuid");
        try (DeviceCpuidSource s = new DeviceCpuidSource(Bindings.openDefault(), t.at("/dev"), t.root)) {
            HwException e = assertThrows(HwException.class, () -> s.regs(0, 0, 0));
            assertEquals(Cause.UNSUPPORTED, e.cause());
            assertTrue(e.getMessage().endsWith(t.at("/dev/cpu/0") + " exists but has no cpuid node: the cpuid driver"
                    + " is present (/sys/module/cpuid/initstate: live) but its node is not in this /dev"), e.getMessage());
            assertEquals("sudo mount -t devtmpfs devtmpfs /dev (creates /dev/cpu/N/cpuid)", e.remedy().orElseThrow());
        }
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void noCpuDirectoryForACpuThatIsNotOnlineIsNoSuchCpu(NativeBinding b) {
        try (DeviceCpuidSource s = new DeviceCpuidSource(b, dev, root)) {
            HwException absent = assertThrows(HwException.class, () -> s.regs(5, 0, 0));
            assertEquals(Cause.NO_SUCH_CPU, absent.cause());
            assertEquals("open " + dev + "/cpu/5/cpuid: ENOENT (No such file or directory): "
                    + "CPU 5 does not exist or is offline (online: 0-1)", absent.getMessage());
            assertEquals("choose one of the online CPUs: 0-1", absent.remedy().orElseThrow());

            HwException offline = assertThrows(HwException.class, () -> s.regs(2, 0, 0));
            assertEquals(Cause.NO_SUCH_CPU, offline.cause());
            assertEquals("bring it online (echo 1 > " + sys + "/devices/system/cpu/cpu2/online) "
                    + "or choose one of the online CPUs: 0-1", offline.remedy().orElseThrow());
        }
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void aSubleafTheOffsetCannotCarryIsUnsupported(NativeBinding b) throws IOException {
        fakeNode(0);
        try (DeviceCpuidSource s = new DeviceCpuidSource(b, dev, root)) {
            HwException e = assertThrows(HwException.class, () -> s.regs(0, 0, 0x8000_0000));
            assertEquals(Cause.UNSUPPORTED, e.cause());
        }
    }

    /**
     * EACCES for real: as root, DAC never refuses, so this thread drops its filesystem uid to
     * nobody (setfsuid(2) is per thread and, from uid 0, also drops CAP_DAC_OVERRIDE; see
     * capabilities(7)) for the one open, then takes uid 0 back.
     */
    @ParameterizedTest
    @MethodSource("bindings")
    void aNodeThisUserMayNotReadIsPermissionDenied(NativeBinding b) throws IOException {
        Path node = Path.of("/dev/cpu/0/cpuid");
        Preconditions.that(Files.exists(node), "no " + node + " (modprobe cpuid)");
        Preconditions.that(!Files.getPosixFilePermissions(node).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_READ),
                node + " is world-readable here (the cpuid driver creates it 0400; chmod o-r it)");
        long fsuid = b.syscall(SYS_SETFSUID, -1); // an invalid id changes nothing and returns the current fsuid
        Preconditions.privileged(fsuid == 0, "needs to run as root to switch the filesystem uid");
        HwException e;
        try (DeviceCpuidSource s = new DeviceCpuidSource(b)) {
            b.syscall(SYS_SETFSUID, NOBODY);
            try {
                assertEquals(NOBODY, b.syscall(SYS_SETFSUID, -1));
                e = assertThrows(HwException.class, () -> s.regs(0, 0, 0));
            } finally {
                b.syscall(SYS_SETFSUID, 0);
            }
        }
        assertEquals(0, b.syscall(SYS_SETFSUID, -1), "fsuid restored");
        assertEquals(Cause.PERMISSION_DENIED, e.cause());
        assertEquals("open /dev/cpu/0/cpuid: EACCES (Permission denied)", e.getMessage());
        assertTrue(e.remedy().orElseThrow().contains("grant read access to /dev/cpu/*/cpuid"));
    }

    @Test
    void errnoMapsToCause() {
        DeviceCpuidSource s = new DeviceCpuidSource(Bindings.openDefault(), dev, root);
        Path node = DeviceCpuidSource.node(dev, 3);
        HwException enxio = s.failure("open", Errno.ENXIO, node, 3, null);
        assertEquals(Cause.NO_SUCH_CPU, enxio.cause());
        assertEquals("open " + node + ": ENXIO (No such device or address): CPU 3 does not exist or is offline (online: 0-1)",
                enxio.getMessage());
        HwException eacces = s.failure("open", Errno.EACCES, node, 3, null);
        assertEquals(Cause.PERMISSION_DENIED, eacces.cause());
        assertTrue(eacces.remedy().orElseThrow().startsWith("run as root"));
        HwException eio = s.failure("open", Errno.EIO, node, 3, null);
        assertEquals(Cause.UNSUPPORTED, eio.cause());
        assertEquals("open " + node + ": EIO (Input/output error): CPU 3 has no CPUID instruction", eio.getMessage());
        for (int other : new int[] {Errno.EINVAL, Errno.EPERM, Errno.EFAULT, 77}) {
            HwException e = s.failure("pread", other, node, 3, null);
            assertEquals(Cause.OS_ERROR, e.cause(), Errno.describe(other));
            assertEquals("pread " + node + ": " + Errno.describe(other), e.getMessage());
        }
    }

    @Test
    void theRealDeviceAnswersLikeTheInstructionOnLeafZero() {
        // Host fact: the instruction against the device only where this host's paths agree;
        // the instruction only on CPUs of the affinity mask.
        Preconditions.cpuidPathsAgree();
        NativeBinding b = Bindings.openDefault();
        try (DeviceCpuidSource s = new DeviceCpuidSource(b)) {
            for (int cpu : Preconditions.cpusInMask()) {
                assertEquals(new InstructionCpuidSource(b).regs(cpu, 0, 0), s.regs(cpu, 0, 0));
            }
        }
    }

    // ---- descriptors

    /** fds of this process whose /proc/self/fd link points at {@code target}. */
    private static List<Integer> fdsOn(Path target) throws IOException {
        List<Integer> fds = new ArrayList<>();
        try (Stream<Path> links = Files.list(Path.of("/proc/self/fd"))) {
            for (Path link : links.toList()) {
                try {
                    if (Files.readSymbolicLink(link).equals(target)) {
                        fds.add(Integer.parseInt(link.getFileName().toString()));
                    }
                } catch (IOException gone) {
                    // the fd of the directory stream itself, or one closed meanwhile
                }
            }
        }
        return fds;
    }

    @ParameterizedTest
    @MethodSource("bindings")
    void nodesAreOpenedLazilyOnceWithCloexecAndClosedOnClose(NativeBinding b) throws IOException {
        Path node0 = fakeNode(0).toRealPath();
        Path node1 = fakeNode(1).toRealPath();
        DeviceCpuidSource s = new DeviceCpuidSource(b, dev, root);
        assertEquals(List.of(), fdsOn(node0), "nothing opened before the first read");
        s.regs(0, 0, 0);
        s.regs(0, 1, 0);
        List<Integer> open = fdsOn(node0);
        assertEquals(1, open.size(), "one fd per CPU, reused");
        assertEquals(List.of(), fdsOn(node1), "CPU 1 not read yet");
        String flags = Files.readAllLines(Path.of("/proc/self/fdinfo/" + open.get(0))).stream()
                .filter(l -> l.startsWith("flags:")).findFirst().orElseThrow().substring(6).strip();
        int octal = Integer.parseInt(flags, 8);
        assertTrue((octal & 02000000) != 0, "O_CLOEXEC in flags " + flags);      // asm-generic/fcntl.h, octal
        assertEquals(NativeBinding.O_RDONLY, octal & 3, "opened read-only");
        s.regs(1, 0, 0);
        assertEquals(1, fdsOn(node1).size());
        s.close();
        assertEquals(List.of(), fdsOn(node0), "closed");
        assertEquals(List.of(), fdsOn(node1), "closed");
        assertThrows(IllegalStateException.class, () -> s.regs(0, 0, 0));
        s.close(); // idempotent
        assertFalse(Files.notExists(node0));
    }
}
