package dev.hwtool.linux.sys;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.bind.Errno;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.io.ExitCleanup;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * A command started but held before its exec, so that perf events can be opened on its pid with
 * enable_on_exec before it runs a single instruction of its own: Java's ProcessBuilder cannot
 * stop between fork and exec, so the child is {@code /bin/sh -c 'read _ < "$0"; exec "$@"' FIFO
 * CMD ARGS...}, blocked opening a named FIFO in a private directory until {@link #release()}
 * opens its other end. The shell's read and exec are builtins: nothing else runs in the process
 * before CMD's exec. stdin, stdout and stderr are this process's (inheritIO).
 *
 * <p>SIGINT: from the release to the command's end ({@link #run()}), this JVM does not die of SIGINT; it passes the signal
 * on to the command, unless this process runs in its terminal's foreground process group, where
 * the terminal's Ctrl-C has already reached the command (it shares that group), so that the
 * command does not get it twice. Then the caller reports (counts, a recording), as perf stat and
 * perf record do.
 *
 * <p>SIGTERM, SIGHUP (and SIGINT outside {@link #run()}): this JVM ends through its shutdown
 * hooks, and {@link ExitCleanup} sends the command SIGTERM, as perf stat does for its workload
 * when a signal ends it (tools/perf/builtin-stat.c, sig_atexit), or kills the shell still held
 * before its exec, and removes the FIFO and its directory: no command is left running orphaned,
 * no directory behind.
 *
 * <p>Used by {@code hwtool stat} and the hardware recorder
 * ({@link dev.hwtool.linux.perf.PerfRecorder}).
 */
public final class HeldChild implements AutoCloseable {

    /** The held script: $0 is the FIFO, "$@" the command. */
    public static final String SCRIPT = "read _ < \"$0\"; exec \"$@\"";

    /** x86-64 syscall numbers (asm/unistd_64.h). */
    private static final long SYS_KILL = 62;
    private static final long SYS_MKNODAT = 259;
    private static final long AT_FDCWD = -100;
    /** S_IFIFO | 0600 (include/uapi/linux/stat.h). */
    private static final long FIFO_MODE = 0010000 | 0600;
    private static final int O_NONBLOCK = 04000;
    private static final int SIGINT = 2;

    private final NativeBinding binding;
    private final Path dir;
    private final Path fifo;
    private final Process process;
    private volatile boolean released;
    private ExitCleanup.Registration registration;

    private HeldChild(NativeBinding binding, Path dir, Path fifo, Process process) {
        this.binding = binding;
        this.dir = dir;
        this.fifo = fifo;
        this.process = process;
    }

    /**
     * Starts {@code command} held before its exec.
     *
     * @throws HwException OS_ERROR when the FIFO or the shell cannot be made, or the process is ending
     */
    public static HeldChild start(NativeBinding binding, List<String> command) {
        try {
            // Made and registered under the exit sweep's lock: a signal's shutdown either finds
            // the child registered or comes before it was started.
            return ExitCleanup.guarded(() -> {
                HeldChild c = startHeld(binding, command);
                c.registration = ExitCleanup.register(c::onExit);
                return c;
            });
        } catch (ExitCleanup.ExitingException e) {
            throw new HwException(Cause.OS_ERROR, "the process is ending: " + command.getFirst() + " was not started");
        }
    }

    private static HeldChild startHeld(NativeBinding binding, List<String> command) {
        Path dir;
        try {
            dir = Files.createTempDirectory("hwtool-held-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new HwException(Cause.OS_ERROR, "cannot create a private directory for the start FIFO: " + e.getMessage(),
                    "set TMPDIR (java.io.tmpdir) to a writable directory");
        }
        Path fifo = dir.resolve("go");
        try {
            mkfifo(binding, fifo);
            // The first call of a downcall links it (milliseconds on FFM): do it for open and close
            // now, so that the release, which the elapsed time starts from, costs microseconds.
            binding.close(binding.open("/dev/null", NativeBinding.O_RDONLY | NativeBinding.O_CLOEXEC));
            List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", SCRIPT, fifo.toString()));
            argv.addAll(command);
            Process p = new ProcessBuilder(argv).inheritIO().start();
            return new HeldChild(binding, dir, fifo, p);
        } catch (IOException e) {
            deleteQuietly(fifo, dir);
            throw new HwException(Cause.OS_ERROR, "cannot start /bin/sh to run the command: " + e.getMessage());
        } catch (RuntimeException e) {
            deleteQuietly(fifo, dir);
            throw e;
        }
    }

    private static void mkfifo(NativeBinding binding, Path fifo) {
        try (Arena arena = Arena.ofConfined()) {
            var path = arena.allocateFrom(fifo.toString(), StandardCharsets.UTF_8);
            binding.syscall(SYS_MKNODAT, AT_FDCWD, path.address(), FIFO_MODE, 0);
        } catch (ErrnoException e) {
            throw new HwException(Cause.OS_ERROR, "mknodat " + fifo + " (FIFO): " + Errno.describe(e.errno()));
        }
    }

    public long pid() {
        return process.pid();
    }

    /** How the command ended: its status (128 + N for signal N) and the wall time from its release. */
    public record Ended(int status, long elapsedNs) {
    }

    /**
     * Lets the command exec and waits for it to end. The SIGINT handler goes in first, so that a
     * Ctrl-C at any point after the release reaches the command and not this JVM's shutdown.
     */
    public Ended run() {
        return run(null);
    }

    /**
     * As {@link #run()}, calling {@code whileRunning} again and again until the command has
     * ended (a recorder drains its ring buffers there). It should block briefly (poll(2) with a
     * timeout), not return at once: this loop does not sleep on its own.
     *
     * @param whileRunning called while the command runs, or null to just wait
     */
    public Ended run(Runnable whileRunning) {
        boolean forward = !inForegroundGroup();
        ShutdownSignals.Registration previous = ShutdownSignals.handle(sig -> {
            if (forward) {
                kill(SIGINT);
            }
        }, ShutdownSignals.Sig.INT);
        try {
            long t0 = release();
            if (whileRunning != null) {
                while (process.isAlive()) {
                    whileRunning.run();
                }
            }
            int status = waitFor();
            return new Ended(status, System.nanoTime() - t0);
        } finally {
            previous.close();
        }
    }

    /**
     * Opens the FIFO's write end (without blocking, retrying until the shell has opened the read
     * end) and closes it, which ends the shell's read: the shell execs the command. Returns
     * System.nanoTime() just before that close, the earliest the command can exec.
     *
     * @throws HwException OS_ERROR when the shell died before it could be released
     */
    private long release() {
        released = true;
        for (; ; ) {
            try {
                int fd = binding.open(fifo.toString(), NativeBinding.O_WRONLY | O_NONBLOCK | NativeBinding.O_CLOEXEC);
                long t0 = System.nanoTime();
                binding.close(fd);
                return t0;
            } catch (ErrnoException e) {
                if (e.errno() != Errno.ENXIO) { // ENXIO: no reader yet (fifo(7))
                    throw new HwException(Cause.OS_ERROR, "open " + fifo + " to release the command: "
                            + Errno.describe(e.errno()));
                }
            }
            if (!process.isAlive()) {
                throw new HwException(Cause.OS_ERROR, "/bin/sh ended (status " + process.exitValue()
                        + ") before the command was released");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(100_000); // the shell is a few hundred µs from its read
        }
    }

    /**
     * Waits for the command to end; its status, 128 + N when signal N ended it (Java's
     * Process.exitValue reports it so on Linux, as shells do).
     */
    private int waitFor() {
        for (; ; ) {
            try {
                return process.waitFor();
            } catch (InterruptedException e) {
                kill(SIGINT);
                Thread.interrupted();
            }
        }
    }

    private void kill(int signal) {
        if (!process.isAlive()) {
            return;
        }
        try {
            binding.syscall(SYS_KILL, process.pid(), signal);
        } catch (ErrnoException e) {
            // ESRCH: it ended meanwhile; nothing to pass on.
        }
    }

    /**
     * Whether this process's group is its terminal's foreground group: /proc/self/stat field 5
     * (pgrp) equals field 8 (tpgid; -1 without a terminal), proc(5).
     */
    public static boolean inForegroundGroup() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // f[0] is field 3 (state): pgrp is f[2], tpgid f[5].
            return Long.parseLong(f[5]) == Long.parseLong(f[2]);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** At a signal's shutdown: the command gets SIGTERM (Process.destroy), a held shell SIGKILL; the FIFO goes. */
    private void onExit() {
        if (process.isAlive()) {
            if (released) {
                process.destroy();
            } else {
                process.destroyForcibly();
            }
        }
        deleteQuietly(fifo, dir);
    }

    /** Ends a command never released (the shell still blocked on the FIFO), and removes the FIFO. */
    @Override
    public void close() {
        if (registration != null) {
            registration.close();
        }
        if (!released && process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        deleteQuietly(fifo, dir);
    }

    private static void deleteQuietly(Path fifo, Path dir) {
        try {
            Files.deleteIfExists(fifo);
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // A leftover empty private directory in TMPDIR: not worth failing the measurement for.
        }
    }
}
