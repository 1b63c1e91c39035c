package dev.hwtool.msr;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.linux.sys.Bindings;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The MSR journal (hwtool-api, MsrJournalTest there) where this user may not write: here, not
 * beside the others, because it takes the file system as another user through setfsuid(2), a
 * native call through this module's binding.
 */
class MsrJournalPermissionTest {

    /** setfsuid(2): file access as another user, for the calling thread only (as root). */
    private static final long SYS_SETFSUID = 122;
    private static final int NOBODY = 65534;

    @Test
    void aStateDirectoryThisUserMayNotWriteIsPermissionDeniedInWords(@TempDir Path dir) throws IOException {
        NativeBinding b = Bindings.openDefault();
        Preconditions.privileged(b.syscall(SYS_SETFSUID, -1) == 0, "switching the file-system uid needs root");
        MsrJournal j = new MsrJournal(dir.resolve("hwtool"));
        MsrJournal existing = new MsrJournal(dir);
        MsrJournalTest.append(existing, MsrJournalTest.e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1));
        HwException noDir;
        HwException noLock;
        b.syscall(SYS_SETFSUID, NOBODY);
        try {
            noDir = assertThrows(HwException.class, () -> j.lock(null));
            noLock = assertThrows(HwException.class, () -> existing.lock(null));
        } finally {
            b.syscall(SYS_SETFSUID, 0);
        }
        assertEquals(0, b.syscall(SYS_SETFSUID, -1), "fsuid restored");
        assertEquals(Cause.OS_ERROR, noDir.cause());
        assertEquals("cannot create the state directory " + dir.resolve("hwtool") + ": Permission denied; nothing written",
                noDir.getMessage());
        assertEquals("make writable: " + dir.resolve("hwtool") + ", or point XDG_STATE_HOME at another directory",
                noDir.remedy().orElseThrow());
        assertEquals("cannot lock the MSR journal " + existing.lockFile() + ": Permission denied; nothing written",
                noLock.getMessage());
        assertEquals(1, existing.entries().size(), "the journal is as it was");
    }
}
