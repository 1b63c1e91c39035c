package dev.hwtool.linux.sys;

import dev.hwtool.bind.Errno;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.NativeBinding;
import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.io.FileInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * SIGHUP, SIGINT and SIGTERM, the JVM's "shutdown signals", in force from before the JVM starts.
 *
 * <p>Why: the JVM handles them from {@code System.initPhase1} on (java.lang.Terminator calls
 * {@code Shutdown.exit(128 + N)}), but before {@code initPhase2} has set up the module system,
 * {@code Shutdown.logRuntimeExit} looks up the System.Logger "java.lang.Runtime" for a class whose
 * {@code getModule()} is still null: it prints {@code Runtime.exit(130) logging failed: Cannot invoke
 * "java.lang.Module.getClassLoader()" because "m" is null}, and the process sometimes ends with 1.
 * And until a command installs its own handler, a signal ends it with no chance to clean up.
 *
 * <p>So the launchers start java with the three signals <b>blocked</b> ({@code env
 * --block-signal=HUP,INT,TERM}, coreutils; a blocked mask survives execve(2)) and with {@code -Xrs}
 * (ReduceSignalUsage: hotspot's signals_posix.cpp then neither installs handlers for them nor
 * unblocks them in the threads it starts, which inherit the mask), and say so with
 * {@code -Dhwtool.signals=blocked}. A signal sent at any moment from then on stays pending (a
 * blocked signal is never discarded, kernel/signal.c sig_ignored(), not even for a container's
 * PID 1) until {@link #start()} takes it with rt_sigtimedwait(2) on a thread of its own and acts
 * on it: the handler a command installed with {@link #handle}, else what the JVM would do, {@code
 * System.exit(128 + N)}, which runs the shutdown hooks ({@link dev.hwtool.io.ExitCleanup}). A
 * signal ignored by the caller (nohup, a background job's SIGINT) stays ignored, as it would for
 * the JVM. Children get an empty mask (the JDK's childproc.c resets it before exec).
 *
 * <p>The thread takes its first signal only after {@value #DEFER_MS} ms, or as soon as a command
 * puts a handler in force ({@link #handle}), whichever is first: taking needs the FFM binding,
 * whose first link costs a one-shot command about 15 ms of its start on 2 cores (README,
 * "Signals"), and those commands end before then. A signal sent meanwhile stays pending; if the
 * command ends first, {@link #settlePending()} acts on it as the thread would have. Either way the
 * outcome is the one the signal gives at once, 128 + N, only later by at most that delay.
 *
 * <p>Without the launchers (java started by hand, a library user's JVM, in-process tests) the
 * signals are not blocked, and {@link #handle} goes through sun.misc.Signal as before.
 */
public final class ShutdownSignals {

    /** The three, with their x86-64 Linux numbers (asm-generic/signal.h). */
    public enum Sig {
        HUP(1), INT(2), TERM(15);

        private final int number;

        Sig(int number) {
            this.number = number;
        }

        public int number() {
            return number;
        }

        /** Its bit in a kernel sigset_t and in /proc's masks (proc(5): bit N-1 for signal N). */
        long bit() {
            return 1L << (number - 1);
        }

        /** The exit status of a process this signal ended, as shells report it: 128 + N. */
        public int status() {
            return 128 + number;
        }

        static Sig of(int number) {
            for (Sig s : values()) {
                if (s.number == number) {
                    return s;
                }
            }
            return null;
        }
    }

    /** What a command does on a signal (on a thread of its own, as the JDK runs signal handlers). */
    @FunctionalInterface
    public interface Handler {
        void handle(Sig sig);
    }

    /** x86-64 rt_sigtimedwait, getpid, gettid and tgkill (arch/x86/entry/syscalls/syscall_64.tbl). */
    private static final long SYS_RT_SIGTIMEDWAIT = 128;
    private static final long SYS_GETPID = 39;
    private static final long SYS_GETTID = 186;
    private static final long SYS_TGKILL = 234;
    /** sizeof(kernel sigset_t) on x86-64: 64 signals. */
    private static final long SIGSET_BYTES = 8;
    /** sizeof(siginfo_t). */
    private static final long SIGINFO_BYTES = 128;

    /**
     * How long the taking thread waits before it links the binding, unless a handler is asked for.
     * The one-shot commands end 70 to 300 ms after java starts here (2 shared cores); at 250 ms,
     * `caps` still met the link on its way out in slow runs (median 1.13 times the time before the
     * signal thread was added, against 1.05 for the others). A signal meanwhile waits at most this.
     */
    static final long DEFER_MS = 500;

    private static final Object LOCK = new Object();
    private static final Map<Sig, Deque<Handler>> HANDLERS = new EnumMap<>(Sig.class);
    private static boolean started;
    private static volatile boolean routed;
    /** The taking thread's kernel thread id once it runs, for the exit's wake-up. */
    private static volatile long takerTid;
    private static volatile boolean exiting;
    /** A command put a handler in force: the thread takes at once, without waiting {@link #DEFER_MS}. */
    private static boolean urgent;
    /** The build's AOT training of a one-shot family: the thread never starts taking ({@link #forTraining}). */
    private static boolean held;

    private ShutdownSignals() {
    }

    /**
     * Starts taking the blocked signals when the launcher blocked them ({@code -Dhwtool.signals=blocked}
     * and the mask says so); else does nothing. Idempotent; the first thing {@code main} does.
     *
     * @return whether the signals are taken here (else the JVM handles them)
     */
    public static boolean start() {
        synchronized (LOCK) {
            if (started) {
                return routed;
            }
            started = true;
            if (!"blocked".equals(System.getProperty("hwtool.signals")) || !allBlocked()) {
                return false;
            }
            // new Thread, not Thread.ofPlatform(): the builder's classes are six more per start.
            Thread t = new Thread(ShutdownSignals::take, "hwtool-signals");
            t.setDaemon(true);
            routed = true;
            t.start();
            return true;
        }
    }

    /**
     * Whether this thread's mask blocks all three (inherited by every thread of the JVM under -Xrs),
     * from the SigBlk line of /proc/thread-self/status (proc(5): the blocked mask in hex, bit N-1
     * for signal N). A file read rather than rt_sigprocmask: the FFM binding costs a one-shot
     * command about 150 ms of start-up it would not otherwise spend.
     */
    static boolean allBlocked() {
        // No /proc: the JVM's own handling, as without the launchers.
        OptionalLong blocked = statusMask("SigBlk:");
        return blocked.isPresent() && allBlocked(blocked.getAsLong());
    }

    static boolean allBlocked(long mask) {
        for (Sig s : Sig.values()) {
            if ((mask & s.bit()) == 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The taking thread: rt_sigtimedwait without a timeout, until the JVM exits. A thread blocked
     * in a native call holds up the JVM's exit by 300 ms (hotspot's vmOperations.cpp
     * VM_Exit::wait_for_threads_in_native_to_block waits up to 30 times 10 ms for user threads in
     * native), so a shutdown hook wakes it first: it marks the exit, then sends one of the three
     * signals to this thread alone (tgkill), which rt_sigtimedwait takes, and the thread ends.
     * The thread publishes its id before it reads the mark and the hook marks before it reads the
     * id (both volatile), so either the thread sees the mark or the hook sees the id.
     */
    private static void take() {
        // The wait is in Java, which holds up no exit: a command that ends first leaves this
        // thread here, and settlePending acts on anything pending.
        synchronized (LOCK) {
            long end = System.nanoTime() + DEFER_MS * 1_000_000L;
            while (true) {
                long waitMs = 0; // held: until the exit
                if (!held) {
                    long left = end - System.nanoTime();
                    if (urgent || left <= 0) {
                        break;
                    }
                    waitMs = Math.max(1, left / 1_000_000L);
                }
                try {
                    LOCK.wait(waitMs);
                } catch (InterruptedException e) {
                    break; // no one interrupts this thread; take at once if someone does
                }
            }
        }
        // The exit's wake-up is needed only from here on: registered now, a one-shot command
        // starts no hook thread at its exit. A JVM already shutting down refuses it
        // (ApplicationShutdownHooks.add), and settlePending has then acted on anything pending.
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(ShutdownSignals::wakeTaker, "hwtool-signals-exit"));
        } catch (IllegalStateException e) {
            return;
        }
        try (NativeBinding b = Bindings.openDefault()) {
            MemorySegment set = Arena.global().allocate(SIGSET_BYTES);
            long bits = 0;
            for (Sig s : Sig.values()) {
                bits |= s.bit();
            }
            set.set(ValueLayout.JAVA_LONG, 0, bits);
            MemorySegment info = Arena.global().allocate(SIGINFO_BYTES);
            takerTid = b.syscall(SYS_GETTID);
            synchronized (LOCK) {
                LOCK.notifyAll(); // forTraining
            }
            while (!exiting) {
                long n;
                try {
                    n = b.syscall(SYS_RT_SIGTIMEDWAIT, set.address(), info.address(), 0, SIGSET_BYTES);
                } catch (ErrnoException e) {
                    if (e.errno() == Errno.EINTR) {
                        continue; // another signal's handler ran on this thread (the JVM's own)
                    }
                    throw e;
                }
                if (exiting) {
                    return; // the hook's wake-up, or a signal during the exit: the exit goes on
                }
                Sig sig = Sig.of((int) n);
                if (sig != null) {
                    Thread.ofPlatform().name("SIG" + sig.name() + " handler").start(() -> dispatch(sig));
                }
            }
        }
    }

    /**
     * For the build's AOT training (hwtool-cli's AotTrainCommand), which runs many commands in one
     * JVM, so that the cache holds what a real start of those commands loads, no more and no
     * less (a JDK 25 cache loads everything it holds at every start): with {@code takes}, the
     * thread starts taking now and this waits until it does, as in a long-running command; without,
     * it never starts taking, as in a one-shot command, which ends before {@value #DEFER_MS} ms.
     * Does nothing when the signals are not routed here.
     */
    public static void forTraining(boolean takes) throws InterruptedException {
        synchronized (LOCK) {
            if (!routed) {
                return;
            }
            held = !takes;
            urgent = takes;
            LOCK.notifyAll();
            long end = System.nanoTime() + 10_000_000_000L;
            long left;
            while (takes && takerTid == 0 && (left = end - System.nanoTime()) > 0) {
                LOCK.wait(Math.max(1, left / 1_000_000L));
            }
        }
    }

    /** The shutdown hook's half of {@link #take}'s wake-up. */
    private static void wakeTaker() {
        exiting = true;
        long tid = takerTid;
        if (tid != 0) {
            try (NativeBinding b = Bindings.openDefault()) {
                b.syscall(SYS_TGKILL, b.syscall(SYS_GETPID), tid, Sig.HUP.number);
            } catch (RuntimeException e) {
                // the exit waits its 300 ms instead
            }
        }
    }

    /**
     * Acts on a signal that is pending because the taking thread has not started taking yet (see
     * the class comment), as the thread would: the handler in force, else {@code System.exit(128 +
     * N)}. Main calls it once the command has ended, before the JVM exits; a signal that arrives
     * after it is one that arrived during the exit, which the JVM's own handling also lets pass.
     * Does nothing when the signals are not routed here, or the thread takes them already.
     */
    public static void settlePending() {
        if (!routed || takerTid != 0) {
            return;
        }
        Sig sig = firstPending();
        if (sig != null) {
            dispatch(sig);
        }
    }

    /**
     * The lowest-numbered of the three that is pending for this thread or the process (SigPnd and
     * ShdPnd of /proc/thread-self/status, proc(5)), as rt_sigtimedwait would take it; null if none.
     */
    static Sig firstPending() {
        long pending = statusMask("SigPnd:", "ShdPnd:").orElse(0);
        for (Sig s : Sig.values()) {
            if ((pending & s.bit()) != 0) {
                return s;
            }
        }
        return null;
    }

    /**
     * The masks of the {@code fields} of /proc/thread-self/status (hexadecimal, proc(5)) ORed
     * together; empty without /proc, when none of them is there, or when one does not parse.
     * Read through java.io, whose classes every JVM has loaded already, not java.nio.file (some
     * 35 classes more for a one-shot command); the file is ASCII.
     */
    private static OptionalLong statusMask(String... fields) {
        String text;
        try (FileInputStream in = new FileInputStream("/proc/thread-self/status")) {
            text = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            return OptionalLong.empty();
        }
        long mask = 0;
        boolean found = false;
        for (int from = 0, end; from < text.length(); from = end + 1) {
            end = text.indexOf('\n', from);
            if (end < 0) {
                end = text.length();
            }
            for (String field : fields) {
                if (text.startsWith(field, from)) {
                    try {
                        mask |= Long.parseUnsignedLong(text.substring(from + field.length(), end).strip(), 16);
                    } catch (NumberFormatException e) {
                        return OptionalLong.empty();
                    }
                    found = true;
                }
            }
        }
        return found ? OptionalLong.of(mask) : OptionalLong.empty();
    }

    private static void dispatch(Sig sig) {
        Handler h;
        synchronized (LOCK) {
            Deque<Handler> d = HANDLERS.get(sig);
            h = d == null ? null : d.peek();
        }
        if (h == null) {
            // What java.lang.Terminator does: the shutdown hooks run, the status is 128 + N.
            System.exit(sig.status());
        } else {
            h.handle(sig);
        }
    }

    /** A handler in force; {@link #close()} puts back what was in force before it. */
    public static final class Registration implements AutoCloseable {
        private final List<Runnable> undo;

        private Registration(List<Runnable> undo) {
            this.undo = undo;
        }

        @Override
        public void close() {
            for (int i = undo.size() - 1; i >= 0; i--) {
                undo.get(i).run();
            }
        }
    }

    /**
     * Puts {@code handler} in force for {@code sigs} until the registration is closed. Without the
     * launchers' blocking, through sun.misc.Signal; a signal the JVM reserves (-Xrs without the
     * blocking) or that is ignored keeps its disposition.
     */
    public static Registration handle(Handler handler, Sig... sigs) {
        List<Runnable> undo = new ArrayList<>();
        for (Sig sig : sigs) {
            if (routed) {
                synchronized (LOCK) {
                    HANDLERS.computeIfAbsent(sig, k -> new ArrayDeque<>()).push(handler);
                    urgent = true;
                    LOCK.notifyAll(); // the taking thread starts now, not after DEFER_MS
                }
                undo.add(() -> {
                    synchronized (LOCK) {
                        HANDLERS.get(sig).remove(handler);
                    }
                });
            } else {
                Signal s = new Signal(sig.name());
                try {
                    SignalHandler previous = Signal.handle(s, x -> handler.handle(sig));
                    undo.add(() -> Signal.handle(s, previous));
                } catch (IllegalArgumentException | UnsupportedOperationException e) {
                    // Reserved by the VM (-Xrs): the signal keeps its default action.
                }
            }
        }
        return new Registration(undo);
    }
}
