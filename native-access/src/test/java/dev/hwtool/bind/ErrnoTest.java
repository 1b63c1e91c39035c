package dev.hwtool.bind;

import org.junit.jupiter.api.Test;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Errno's words are glibc's: every number 0..200 against the running libc's strerror(3). */
class ErrnoTest {

    @Test
    void everyErrnoReadsAsThisLibcsStrerror() throws Throwable {
        Linker linker = Linker.nativeLinker();
        // strerror_r is the GNU variant in glibc with _GNU_SOURCE; strerror is plain and the test is single-threaded
        MethodHandle strerror = linker.downcallHandle(linker.defaultLookup().find("strerror").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        int named = 0;
        for (int n = 1; n <= 200; n++) {
            MemorySegment p = (MemorySegment) strerror.invokeExact(n);
            String libc = p.reinterpret(Long.MAX_VALUE).getString(0);
            assertEquals(libc, Errno.strerror(n), "errno " + n);
            if (!libc.startsWith("Unknown error")) {
                named++;
                assertTrue(Errno.name(n).matches("E[A-Z0-9]+"), n + ": " + Errno.name(n));
                assertEquals(Errno.name(n) + " (" + libc + ")", Errno.describe(n));
            }
        }
        assertEquals(131, named, "1..133 less the two numbers Linux leaves unused (41, 58)");
        assertEquals("EROFS (Read-only file system)", Errno.describe(Errno.EROFS));
        assertEquals("errno -1 (Unknown error -1)", Errno.describe(-1));
    }
}
