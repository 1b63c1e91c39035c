package dev.hwtool.io;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What must not outlive the process: temporary files being written, a held child command and
 * its FIFO directory. Each is registered while it exists; one JVM shutdown hook undoes whatever
 * is still registered when the process ends.
 *
 * <p>Why a shutdown hook: shutdown hooks run when SIGTERM, SIGHUP or SIGINT ends the process
 * (System.exit(128 + signal), so the exit status is 143, 129 or 130 as shells report a death by
 * that signal: java.lang.Terminator's handlers, or under the launchers dev.hwtool.linux.sys.ShutdownSignals
 * with the same default), on System.exit and at the end of main, and not for SIGKILL. A command
 * handles a signal itself only where it must not end the process at once (SIGINT during a
 * recording, which finishes and keeps it; a watch ending after its row; an unmount).
 *
 * <p>The hook runs while other threads still run. So that a thread cannot create a temporary
 * file (or start a child) just after the hook has swept, creating and registering happen under
 * the lock the sweep takes ({@link #guarded}); after the sweep began, {@link #guarded} refuses.
 */
public final class ExitCleanup {

    private static final Object LOCK = new Object();
    private static final Map<Long, Runnable> ACTIONS = new LinkedHashMap<>();
    private static long next;
    private static boolean hooked;
    private static boolean exiting;

    private ExitCleanup() {
    }

    /** Something that may throw, run under the lock. */
    @FunctionalInterface
    public interface Action<T, E extends Exception> {
        T run() throws E;
    }

    /** A registered undo action; {@link #close()} deregisters it without running it. */
    public static final class Registration implements AutoCloseable {
        private final long id;

        private Registration(long id) {
            this.id = id;
        }

        @Override
        public void close() {
            synchronized (LOCK) {
                ACTIONS.remove(id);
            }
        }
    }

    /** The process is ending (a signal or System.exit): nothing new may be created. */
    public static final class ExitingException extends IllegalStateException {
        ExitingException() {
            super("the process is exiting");
        }
    }

    /**
     * Registers {@code undo} to run if the process ends while it is registered.
     *
     * @throws ExitingException when the process is already ending
     */
    public static Registration register(Runnable undo) {
        synchronized (LOCK) {
            if (exiting) {
                throw new ExitingException();
            }
            if (!hooked) {
                Runtime.getRuntime().addShutdownHook(new Thread(ExitCleanup::sweep, "hwtool-exit-cleanup"));
                hooked = true;
            }
            long id = next++;
            ACTIONS.put(id, undo);
            return new Registration(id);
        }
    }

    /**
     * Runs {@code action} under the sweep's lock: it happens wholly before the sweep (which then
     * undoes what it registered) or not at all.
     *
     * @throws ExitingException when the process is already ending
     */
    public static <T, E extends Exception> T guarded(Action<T, E> action) throws E {
        synchronized (LOCK) {
            if (exiting) {
                throw new ExitingException();
            }
            return action.run();
        }
    }

    private static void sweep() {
        List<Runnable> undo;
        synchronized (LOCK) {
            exiting = true;
            undo = new ArrayList<>(ACTIONS.values());
            ACTIONS.clear();
            // Newest first: a file inside a directory goes before the directory.
            java.util.Collections.reverse(undo);
            for (Runnable r : undo) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    // The process is ending; one failed undo must not stop the others.
                }
            }
        }
    }
}
