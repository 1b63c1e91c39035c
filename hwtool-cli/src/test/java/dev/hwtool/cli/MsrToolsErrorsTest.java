package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.bind.Errno;
import dev.hwtool.linux.MsrAccessException;
import dev.hwtool.linux.MsrAccessException.Operation;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** rdmsr.c/wrmsr.c's message and exit code for each errno and call, and for each simulator cause. */
class MsrToolsErrorsTest {

    private static MsrToolsErrors.Failure hw(Cause cause, Operation op, int errno, MsrToolsErrors.Op what) {
        MsrAccessException e = new MsrAccessException(cause, "x", null, op, errno, 3, 0x1D9, Path.of("/dev/cpu/3/msr"), null);
        return MsrToolsErrors.of(e, what, 3, 0x1D9, 0x4801);
    }

    @Test
    void hardwareErrnos() {
        assertEquals(new MsrToolsErrors.Failure("No CPU 3", 2, false), hw(Cause.NO_SUCH_CPU, Operation.OPEN, Errno.ENXIO, MsrToolsErrors.Op.READ));
        assertEquals(new MsrToolsErrors.Failure("CPU 3 doesn't support MSRs", 3, false),
                hw(Cause.UNSUPPORTED, Operation.OPEN, Errno.EIO, MsrToolsErrors.Op.READ));
        assertEquals(new MsrToolsErrors.Failure("CPU 3 cannot read MSR 0x000001d9", 4, false),
                hw(Cause.REGISTER_FAULT, Operation.PREAD, Errno.EIO, MsrToolsErrors.Op.READ));
        assertEquals(new MsrToolsErrors.Failure("CPU 3 cannot set MSR 0x000001d9 to 0x0000000000004801", 4, false),
                hw(Cause.REGISTER_FAULT, Operation.PWRITE, Errno.EIO, MsrToolsErrors.Op.WRITE));
        assertEquals(new MsrToolsErrors.Failure("open: No such file or directory", 127, true),
                hw(Cause.DRIVER_NOT_LOADED, Operation.OPEN, Errno.ENOENT, MsrToolsErrors.Op.READ));
        assertEquals(new MsrToolsErrors.Failure("open: Permission denied", 127, true),
                hw(Cause.PERMISSION_DENIED, Operation.OPEN, Errno.EACCES, MsrToolsErrors.Op.READ));
        assertEquals(new MsrToolsErrors.Failure("pwrite: Operation not permitted", 127, true),
                hw(Cause.LOCKDOWN, Operation.PWRITE, Errno.EPERM, MsrToolsErrors.Op.WRITE));
    }

    @Test
    void simulatorCausesMapToTheErrnoTheDriverGives() {
        assertEquals(2, MsrToolsErrors.of(new HwException(Cause.NO_SUCH_CPU, "x"), MsrToolsErrors.Op.READ, 9, 0x10, 0).exit());
        assertEquals("CPU 9 cannot read MSR 0x00000010",
                MsrToolsErrors.of(new HwException(Cause.REGISTER_FAULT, "x"), MsrToolsErrors.Op.READ, 9, 0x10, 0).message());
        assertEquals("pwrite: Operation not permitted",
                MsrToolsErrors.of(new HwException(Cause.WRITES_DISABLED, "x"), MsrToolsErrors.Op.WRITE, 0, 0x10, 1).message());
        assertEquals("open: Operation not permitted",
                MsrToolsErrors.of(new HwException(Cause.MISSING_CAPABILITY, "x"), MsrToolsErrors.Op.READ, 0, 0x10, 0).message());
    }
}
