package dev.hwtool.linux;

import dev.hwtool.linux.sys.FixtureTree;
import dev.hwtool.linux.sys.LinuxProbe;
import dev.hwtool.api.Cause;
import dev.hwtool.bind.Errno;
import dev.hwtool.caps.Verdicts;
import dev.hwtool.linux.MsrAccessException.Operation;
import dev.hwtool.linux.MsrErrors.Request;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The errno → cause mapping of the msr driver's failures (arch/x86/kernel/msr.c), judged with
 * facts read by {@link LinuxProbe} from fixture /sys and /proc trees: the same errno means
 * different things depending on what the kernel shows there.
 */
class MsrErrorsTest {

    private static final Request READ_0x10 = Request.read(0, 0x10);
    private static final Request WRITE_DEBUGCTL = Request.write(0, 0x1d9, 0x1);

    @TempDir
    Path dir;
    FixtureTree tree;
    AtomicInteger probes;

    /** A two-CPU guest with the msr module loaded and writes allowed (default), no lockdown LSM file. */
    @BeforeEach
    void loadedModule() {
        tree = FixtureTree.bareVm(dir).withMsr("default");
        probes = new AtomicInteger();
    }

    private MsrErrors errors() {
        return new MsrErrors(tree.at("/dev"), tree.at("/sys"), () -> {
            probes.incrementAndGet();
            return LinuxProbe.probe(tree.root);
        });
    }

    private Path node0() {
        return tree.at("/dev/cpu/0/msr");
    }

    private MsrAccessException writeEperm() {
        return errors().of(WRITE_DEBUGCTL, Operation.PWRITE, Errno.EPERM, null);
    }

    // ---- EPERM on write: lockdown or the write filter ----------------------------------------------

    @Test
    void epermOnWriteUnderLockdownIsLockdown() {
        tree.file("/sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
        MsrAccessException e = writeEperm();
        assertEquals(Cause.LOCKDOWN, e.cause());
        assertEquals("CPU 0 cannot set MSR 0x000001d9 to 0x0000000000000001: pwrite " + node0() + ": EPERM (Operation"
                + " not permitted): kernel lockdown is [integrity] (/sys/kernel/security/lockdown): raw MSR writes are"
                + " restricted (kernel_lockdown(7))", e.getMessage());
        assertEquals(Verdicts.LOCKDOWN_BOOT, e.remedy().orElseThrow());
        assertEquals(Errno.EPERM, e.errno());
        assertEquals(Operation.PWRITE, e.operation());
        assertEquals("Operation not permitted", e.strerror());
        assertEquals(0x1d9, e.msr());
    }

    @Test
    void lockdownIsCheckedBeforeTheWriteFilter() {
        tree.withMsr("off").file("/sys/kernel/security/lockdown", "none integrity [confidentiality]\n");
        assertEquals(Cause.LOCKDOWN, writeEperm().cause());
    }

    @Test
    void epermOnWriteWithAllowWritesOffIsWritesDisabled() {
        tree.withMsr("off").file("/sys/kernel/security/lockdown", "[none] integrity confidentiality\n");
        MsrAccessException e = writeEperm();
        assertEquals(Cause.WRITES_DISABLED, e.cause());
        assertTrue(e.getMessage().endsWith("EPERM (Operation not permitted): msr.allow_writes is off"
                + " (/sys/module/msr/parameters/allow_writes): filter_write refuses every write"), e.getMessage());
        assertEquals("echo on | sudo tee /sys/module/msr/parameters/allow_writes (or msr.allow_writes=on on the"
                + " kernel command line)", e.remedy().orElseThrow());
    }

    @Test
    void allowWritesOffWithoutALockdownFileIsWritesDisabled() {
        tree.withMsr("off");
        assertEquals(Cause.WRITES_DISABLED, writeEperm().cause());
    }

    @Test
    void aKernelBuiltToForceLockdownIsLockdownEvenWithoutSecurityfs() {
        tree.withMsr("off").kernelConfig("CONFIG_SECURITY_LOCKDOWN_LSM=y\nCONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY=y\n");
        MsrAccessException e = writeEperm();
        assertEquals(Cause.LOCKDOWN, e.cause());
        assertTrue(e.getMessage().contains("CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY=y in /proc/config.gz"),
                e.getMessage());
    }

    @Test
    void whenOnlyOneStateIsVisibleTheOtherCheckIsNamed() throws IOException {
        // allow_writes unreadable (a directory where the attribute belongs), lockdown none: the filter
        tree.delete("/sys/module/msr/parameters/allow_writes").file("/sys/kernel/security/lockdown", "[none]\n");
        Files.createDirectories(tree.at("/sys/module/msr/parameters/allow_writes"));
        MsrAccessException filter = writeEperm();
        assertEquals(Cause.WRITES_DISABLED, filter.cause());
        assertTrue(filter.getMessage().contains("msr.allow_writes is unreadable"), filter.getMessage());

        // allow_writes on, lockdown file absent (securityfs not mounted): lockdown
        tree.delete("/sys/kernel/security").delete("/sys/module/msr/parameters/allow_writes").withMsr("on");
        MsrAccessException lockdown = writeEperm();
        assertEquals(Cause.LOCKDOWN, lockdown.cause());
        assertTrue(lockdown.getMessage().contains("msr.allow_writes is on and /sys/kernel/security/lockdown is absent"),
                lockdown.getMessage());

        // a module without the parameter (before 5.9) has no write filter: lockdown
        tree.delete("/sys/module/msr/parameters");
        assertEquals(Cause.LOCKDOWN, writeEperm().cause());
    }

    @Test
    void epermWithNeitherStateReadableNamesBoth() throws IOException {
        tree.delete("/sys/module/msr/parameters/allow_writes");
        Files.createDirectories(tree.at("/sys/module/msr/parameters/allow_writes"));
        MsrAccessException e = writeEperm();
        assertEquals(Cause.OS_ERROR, e.cause());
        assertTrue(e.getMessage().endsWith("kernel lockdown (/sys/kernel/security/lockdown: absent) or"
                + " msr.allow_writes=off (/sys/module/msr/parameters/allow_writes: unreadable) refused it"),
                e.getMessage());
    }

    @Test
    void epermOnWriteWithBothStatesPermissiveIsAnOsError() {
        tree.withMsr("on").file("/sys/kernel/security/lockdown", "[none] integrity confidentiality\n");
        assertEquals(Cause.OS_ERROR, writeEperm().cause());
    }

    @Test
    void epermOnReadIsNotAWriteRefusal() {
        tree.withMsr("off").file("/sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
        MsrAccessException e = errors().of(READ_0x10, Operation.PREAD, Errno.EPERM, null);
        assertEquals(Cause.OS_ERROR, e.cause(), "msr_read checks neither lockdown nor the filter");
        assertEquals("CPU 0 cannot read MSR 0x00000010: pread " + node0() + ": EPERM (Operation not permitted)",
                e.getMessage());
    }

    // ---- EPERM on open: CAP_SYS_RAWIO -----------------------------------------------------------

    @Test
    void epermOnOpenWithoutCapSysRawioIsMissingCapability() {
        tree.status(1000, "000001fffffdffff"); // every capability but bit 17
        MsrAccessException e = errors().of(READ_0x10, Operation.OPEN, Errno.EPERM, null);
        assertEquals(Cause.MISSING_CAPABILITY, e.cause());
        assertEquals("CPU 0 cannot read MSR 0x00000010: open " + node0() + ": EPERM (Operation not permitted):"
                + " msr_open requires CAP_SYS_RAWIO and CapEff 0x1fffffdffff lacks it", e.getMessage());
        assertEquals(Verdicts.RUN_AS_ROOT_RAWIO, e.remedy().orElseThrow());
    }

    @Test
    void inAContainerTheRemedyIsTheContainersCapability() {
        tree.status(0, "00000000a80425fb").docker(); // docker's default set
        MsrAccessException e = errors().of(READ_0x10, Operation.OPEN, Errno.EPERM, null);
        assertEquals(Cause.MISSING_CAPABILITY, e.cause());
        assertEquals("start the container with --cap-add=SYS_RAWIO", e.remedy().orElseThrow());
    }

    @Test
    void capabilitiesInAUserNamespaceDoNotCount() {
        tree.file("/proc/self/uid_map", "         0       1000          1\n");
        MsrAccessException e = errors().of(READ_0x10, Operation.OPEN, Errno.EPERM, null);
        assertEquals(Cause.MISSING_CAPABILITY, e.cause());
        assertTrue(e.getMessage().endsWith("msr_open requires CAP_SYS_RAWIO in the initial user namespace; this"
                + " process is in a child user namespace (/proc/self/uid_map), where its capabilities do not count"),
                e.getMessage());
        assertEquals(Verdicts.INITIAL_USER_NAMESPACE, e.remedy().orElseThrow());
    }

    @Test
    void epermOnOpenDespiteTheCapabilityPointsAtTheSecurityModule() {
        MsrAccessException e = errors().of(WRITE_DEBUGCTL, Operation.OPEN, Errno.EPERM, null);
        assertEquals(Cause.MISSING_CAPABILITY, e.cause());
        assertTrue(e.getMessage().contains("CapEff has it, so a security module"), e.getMessage());
    }

    // ---- EACCES, EIO, ENXIO, others ---------------------------------------------------------------

    @Test
    void eaccesIsTheFileMode() {
        tree.status(1000, "0000000000000000");
        MsrAccessException e = errors().of(READ_0x10, Operation.OPEN, Errno.EACCES, null);
        assertEquals(Cause.PERMISSION_DENIED, e.cause());
        assertTrue(e.getMessage().startsWith("CPU 0 cannot read MSR 0x00000010: open " + node0()
                + ": EACCES (Permission denied): mode -rw------- "), e.getMessage());
        assertTrue(e.getMessage().endsWith(" does not let uid 1000 read it"), e.getMessage());
        assertTrue(e.remedy().orElseThrow().startsWith("run as root (sudo), or grant both file access (sudo setfacl"
                + " -m u:1000:r /dev/cpu/*/msr) and CAP_SYS_RAWIO (sudo setcap cap_sys_rawio=ep"),
                e.remedy().orElseThrow());
        MsrAccessException w = errors().of(WRITE_DEBUGCTL, Operation.OPEN, Errno.EACCES, null);
        assertTrue(w.getMessage().endsWith(" does not let uid 1000 write it"), w.getMessage());
        assertTrue(w.remedy().orElseThrow().contains("setfacl -m u:1000:rw "));
    }

    @Test
    void erofsIsAReadOnlyMountInWords() {
        MsrAccessException e = errors().of(WRITE_DEBUGCTL, Operation.OPEN, Errno.EROFS, null);
        assertEquals(Cause.OS_ERROR, e.cause());
        assertEquals("Read-only file system", e.strerror());
        assertEquals("CPU 0 cannot set MSR 0x000001d9 to 0x0000000000000001: open " + node0()
                + ": EROFS (Read-only file system): " + node0() + " is on a read-only mount: it can be read but not"
                + " written", e.getMessage());
        assertTrue(e.remedy().orElseThrow().contains("read-write mount"), e.remedy().orElseThrow());
    }

    @Test
    void eioFromPreadIsAGeneralProtectionFault() {
        MsrAccessException e = errors().of(Request.read(0, 0x123), Operation.PREAD, Errno.EIO, null);
        assertEquals(Cause.REGISTER_FAULT, e.cause());
        assertEquals("CPU 0 cannot read MSR 0x00000123: #GP (EIO from pread " + node0() + "): not implemented on this"
                + " CPU, or not emulated by its hypervisor", e.getMessage());
        assertFalse(e.remedy().isPresent());
        assertEquals(0, probes.get(), "a #GP needs no facts");
    }

    @Test
    void eioFromPwriteIsAGeneralProtectionFault() {
        MsrAccessException e = errors().of(Request.write(1, 0xC000_0080, -1L), Operation.PWRITE, Errno.EIO, null);
        assertEquals(Cause.REGISTER_FAULT, e.cause());
        assertEquals("CPU 1 cannot set MSR 0xc0000080 to 0xffffffffffffffff: #GP (EIO from pwrite "
                + tree.at("/dev/cpu/1/msr") + "): not implemented on this CPU, or the value sets a reserved bit",
                e.getMessage());
        assertEquals(0xC000_0080, e.msr());
        assertEquals(1, e.cpu());
    }

    @Test
    void eioFromOpenIsACpuWithoutMsrs() {
        MsrAccessException e = errors().of(READ_0x10, Operation.OPEN, Errno.EIO, null);
        assertEquals(Cause.UNSUPPORTED, e.cause());
        assertEquals("CPU 0 cannot read MSR 0x00000010: open " + node0() + ": EIO (Input/output error): CPU 0 has no"
                + " MSRs (CPUID.01H:EDX[5] is clear): msr_open refuses it", e.getMessage());
    }

    @Test
    void enxioIsAnOfflineCpu() throws IOException {
        Files.createDirectories(tree.at("/sys/devices/system/cpu/cpu3"));
        MsrAccessException e = errors().of(Request.read(3, 0x10), Operation.OPEN, Errno.ENXIO, null);
        assertEquals(Cause.NO_SUCH_CPU, e.cause());
        assertEquals("CPU 3 cannot read MSR 0x00000010: open " + tree.at("/dev/cpu/3/msr") + ": ENXIO (No such device"
                + " or address): CPU 3 is offline or does not exist (online: 0-1)", e.getMessage());
        assertEquals("echo 1 | sudo tee " + tree.at("/sys/devices/system/cpu/cpu3/online")
                + ", or choose one of the online CPUs (0-1)", e.remedy().orElseThrow());
        // a CPU that went offline after its node was opened: smp_call_function_single says ENXIO
        MsrAccessException later = errors().of(Request.read(9, 0x10), Operation.PREAD, Errno.ENXIO, null);
        assertEquals(Cause.NO_SUCH_CPU, later.cause());
        assertEquals("choose one of the online CPUs (0-1)", later.remedy().orElseThrow());
    }

    @Test
    void otherErrnosAreOsErrors() {
        for (int errno : new int[] {Errno.EINVAL, Errno.EFAULT, Errno.EBUSY, Errno.EBADF, 77}) {
            MsrAccessException e = errors().of(READ_0x10, Operation.PREAD, errno, null);
            assertEquals(Cause.OS_ERROR, e.cause(), Errno.describe(errno));
            assertEquals("CPU 0 cannot read MSR 0x00000010: pread " + node0() + ": " + Errno.describe(errno),
                    e.getMessage());
            assertEquals(errno, e.errno());
        }
        assertEquals("Unknown error 200", errors().of(READ_0x10, Operation.PREAD, 200, null).strerror());
        assertEquals("Read-only file system", errors().of(READ_0x10, Operation.OPEN, Errno.EROFS, null).strerror());
        assertEquals(0, probes.get(), "plain OS errors need no facts");
    }
}
