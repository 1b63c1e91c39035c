package dev.hwtool.linux.sys;

import dev.hwtool.bind.NativeBinding;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The blocked mask ShutdownSignals reads from /proc/thread-self/status (SigBlk) is the one
 * rt_sigprocmask(2) gives this thread: a law of Linux (proc(5), fs/proc/array.c render_sigset_t
 * prints current->blocked), checked with the three signals blocked and unblocked on this thread.
 */
class ShutdownSignalsMaskTest {

    private static final long SYS_RT_SIGPROCMASK = 14;
    private static final long SIG_BLOCK = 0;
    private static final long SIG_SETMASK = 2;
    private static final long THREE = (1L << 0) | (1L << 1) | (1L << 14); // HUP, INT, TERM

    @Test
    void sigBlkIsThisThreadsMask() throws Exception {
        onItsOwnThread(() -> {
            try (NativeBinding b = Bindings.openDefault(); Arena arena = Arena.ofConfined()) {
                MemorySegment set = arena.allocate(8);
                MemorySegment old = arena.allocate(8);
                b.syscall(SYS_RT_SIGPROCMASK, SIG_BLOCK, 0, old.address(), 8);
                long before = old.get(ValueLayout.JAVA_LONG, 0);
                assertEquals(ShutdownSignals.allBlocked(before), ShutdownSignals.allBlocked());

                set.set(ValueLayout.JAVA_LONG, 0, before | THREE);
                b.syscall(SYS_RT_SIGPROCMASK, SIG_SETMASK, set.address(), 0, 8);
                assertTrue(ShutdownSignals.allBlocked(), "all three blocked");

                set.set(ValueLayout.JAVA_LONG, 0, (before | THREE) & ~(1L << 1));
                b.syscall(SYS_RT_SIGPROCMASK, SIG_SETMASK, set.address(), 0, 8);
                assertFalse(ShutdownSignals.allBlocked(), "SIGINT unblocked");
            }
        });
    }

    interface Body {
        void run() throws Exception;
    }

    /** {@code body} on a thread of its own: the mask it changes is that thread's, and ends with it. */
    private static void onItsOwnThread(Body body) throws InterruptedException {
        Throwable[] failure = new Throwable[1];
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure[0] = e;
            }
        });
        t.join();
        if (failure[0] != null) {
            throw new AssertionError(failure[0]);
        }
    }

    private static final long SYS_GETPID = 39;
    private static final long SYS_GETTID = 186;
    private static final long SYS_TGKILL = 234;
    private static final long SYS_RT_SIGTIMEDWAIT = 128;

    /**
     * A blocked signal sent to this thread is pending in SigPnd (fs/proc/array.c task_sig:
     * p->pending), where settlePending finds it; the lowest-numbered of the three comes first.
     * The thread takes them back with rt_sigtimedwait before it ends, and never unblocks them
     * (a thread's own pending signals go with it, kernel/signal.c flush_sigqueue at exit).
     */
    @Test
    void aBlockedSignalSentToThisThreadIsFoundPending() throws Exception {
        onItsOwnThread(() -> {
            try (NativeBinding b = Bindings.openDefault(); Arena arena = Arena.ofConfined()) {
                MemorySegment set = arena.allocate(8);
                set.set(ValueLayout.JAVA_LONG, 0, THREE);
                b.syscall(SYS_RT_SIGPROCMASK, SIG_BLOCK, set.address(), 0, 8);
                assertEquals(null, ShutdownSignals.firstPending(), "none pending yet");
                long pid = b.syscall(SYS_GETPID);
                long tid = b.syscall(SYS_GETTID);
                b.syscall(SYS_TGKILL, pid, tid, 15);
                assertEquals(ShutdownSignals.Sig.TERM, ShutdownSignals.firstPending());
                b.syscall(SYS_TGKILL, pid, tid, 2);
                assertEquals(ShutdownSignals.Sig.INT, ShutdownSignals.firstPending(), "INT (2) before TERM (15)");
                MemorySegment zero = arena.allocate(16); // struct timespec {0, 0}: poll
                assertEquals(2, b.syscall(SYS_RT_SIGTIMEDWAIT, set.address(), 0, zero.address(), 8));
                assertEquals(15, b.syscall(SYS_RT_SIGTIMEDWAIT, set.address(), 0, zero.address(), 8));
                assertEquals(null, ShutdownSignals.firstPending(), "none pending once taken");
            }
        });
    }

    @Test
    void allThreeMustBeBlocked() {
        assertTrue(ShutdownSignals.allBlocked(THREE));
        assertTrue(ShutdownSignals.allBlocked(-1L));
        assertFalse(ShutdownSignals.allBlocked(0));
        assertFalse(ShutdownSignals.allBlocked(THREE & ~1L), "HUP missing");
        assertFalse(ShutdownSignals.allBlocked(THREE & ~(1L << 14)), "TERM missing");
    }
}
