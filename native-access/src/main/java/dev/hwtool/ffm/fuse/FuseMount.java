package dev.hwtool.ffm.fuse;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link FuseFilesystem} mounted at a directory through libfuse3's high-level API
 * ({@link Libfuse}): {@code fuse_new}, {@code fuse_mount}, then {@code fuse_loop} on a thread of
 * its own until {@link #close()} or an outside {@code fusermount3 -u}.
 *
 * <p>Every file is opened with {@code direct_io}, so the kernel neither caches nor merges reads:
 * each pread(2)/pwrite(2) reaches the handler with its exact size and offset, as a character
 * device's read/write would.
 *
 * <p>{@link #close()} detaches the mount at once (umount2 MNT_DETACH, fusermount3 -u -z for
 * others than root): no stale mount is left. A process that still holds one of its files open
 * keeps the superblock alive; close() returns after two seconds, the holder's next request is
 * still served, then the loop ends and closes the connection: its further accesses fail with
 * ENOTCONN (ECONNABORTED for one in flight), like those to a device that is gone.
 */
public final class FuseMount implements AutoCloseable {

    /** The FUSE device libfuse opens; {@code hwtool.fuse.device} points the pre-check elsewhere (tests). */
    static final String DEVICE_PROPERTY = "hwtool.fuse.device";

    private final Path dir;
    private final Libfuse.Session session;
    private final Thread loop;
    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile int loopResult;
    private boolean closed;
    /** close() stopped waiting: the loop thread releases libfuse's state when it ends. */
    private volatile boolean abandoned;
    private final AtomicBoolean destroyed = new AtomicBoolean();

    private FuseMount(Path dir, Libfuse.Session session) {
        this.dir = dir;
        this.session = session;
        this.loop = Thread.ofPlatform().daemon().name("fuse-loop " + dir).unstarted(this::runLoop);
    }

    /**
     * Mounts {@code fs} at {@code dir} (an existing, empty directory that is not a mount point)
     * and starts serving it.
     *
     * @param fsname the name mount(8) and /proc/self/mountinfo show as the source
     * @throws HwException DRIVER_NOT_LOADED without /dev/fuse, UNSUPPORTED without libfuse3,
     *                     BAD_INPUT for a directory that is missing or already a mount point,
     *                     PERMISSION_DENIED when the kernel refuses the mount, OS_ERROR otherwise
     */
    public static FuseMount mount(Path dir, FuseFilesystem fs, String fsname) {
        return mount(dir, fs, fsname, false);
    }

    /**
     * As {@link #mount(Path, FuseFilesystem, String)}; with {@code unmountIfKilled} the mount also
     * goes away when this process dies without closing it (SIGKILL, a crash): libfuse's
     * auto_unmount, through a fusermount3 helper process that lives until this process exits —
     * meant for a command-line process, not for a long-lived JVM that mounts many times.
     * Without fusermount3 on the system the option is left out.
     */
    public static FuseMount mount(Path dir, FuseFilesystem fs, String fsname, boolean unmountIfKilled) {
        Path abs = dir.toAbsolutePath().normalize();
        Path device = Path.of(System.getProperty(DEVICE_PROPERTY, "/dev/fuse"));
        if (!Files.exists(device)) {
            throw new HwException(Cause.DRIVER_NOT_LOADED, device + " does not exist, so FUSE is not available here",
                    "load the module (modprobe fuse) or give the container the device (docker run --device /dev/fuse)");
        }
        if (!Files.isReadable(device) || !Files.isWritable(device)) {
            throw new HwException(Cause.PERMISSION_DENIED, "cannot open " + device + " for reading and writing",
                    "run as root or make the device accessible (it is crw-rw-rw- on Debian)");
        }
        if (!Files.isDirectory(abs)) {
            throw new HwException(Cause.BAD_INPUT, abs + " is not a directory", "create it first (mkdir -p " + abs + ")");
        }
        String existing = MountTable.fsTypeAt(abs);
        if (existing != null) {
            throw new HwException(Cause.BAD_INPUT, abs + " is already a mount point (" + existing + ")",
                    "unmount it first (fusermount3 -u " + abs + ") or choose another directory");
        }
        Libfuse.Session s = Libfuse.open(abs, fs, fsname, unmountIfKilled && fusermount3Present());
        FuseMount m = new FuseMount(abs, s);
        m.loop.start();
        return m;
    }

    /** libfuse runs fusermount3 from its install directory or PATH (lib/mount.c, fuse_mount_fusermount). */
    private static boolean fusermount3Present() {
        if (Files.isExecutable(Path.of("/usr/bin/fusermount3"))) {
            return true;
        }
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, "fusermount3"))) {
                return true;
            }
        }
        return false;
    }

    /** The directory the tree is mounted at. */
    public Path directory() {
        return dir;
    }

    /** Whether the loop is still serving (false once unmounted, from here or from outside). */
    public boolean serving() {
        return ended.getCount() > 0;
    }

    /** Blocks until the file system is unmounted (close(), fusermount3 -u, umount). */
    public void awaitUnmounted() throws InterruptedException {
        ended.await();
    }

    private void runLoop() {
        try {
            loopResult = session.loop();
        } finally {
            ended.countDown();
            if (abandoned) {
                destroyOnce();
            }
        }
    }

    /**
     * Unmounts (lazily: the path is free at once) and waits up to two seconds for the loop to
     * end; then releases libfuse's state. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // Detach while the loop still serves: a user other than root detaches through
        // fusermount3, and the child the JVM forks for it closes every descriptor it inherited
        // (jspawnhelper), a file held open on this mount among them. That close is a FLUSH
        // request (fs/fuse/file.c, fuse_flush), which a loop told to exit first may never
        // answer: the fork then waits in request_wait_answer for ever.
        if (serving()) {
            session.detach();
        }
        session.exit();
        try {
            if (!ended.await(2, TimeUnit.SECONDS)) {
                // A process holds a file open: the loop serves its next request, ends, and then
                // releases the session itself (closing /dev/fuse aborts the connection).
                abandoned = true;
                if (serving()) {
                    return;
                }
            }
            destroyOnce();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void destroyOnce() {
        if (destroyed.compareAndSet(false, true)) {
            session.destroy();
        }
    }

    /** fuse_loop's return value: 0 after an unmount, else a negated errno (for diagnostics). */
    public int loopResult() {
        return loopResult;
    }

    /** Mount points from /proc/self/mountinfo (proc(5): field 5 is the mount point, after " - " the fs type). */
    static final class MountTable {
        private MountTable() {
        }

        static String fsTypeAt(Path dir) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                    String[] f = line.split(" ");
                    if (f.length > 4 && unescape(f[4]).equals(dir.toString())) {
                        int dash = line.indexOf(" - ");
                        return dash < 0 ? "unknown" : line.substring(dash + 3).split(" ")[0];
                    }
                }
                return null;
            } catch (IOException e) {
                return null;
            }
        }

        /** mountinfo escapes space, tab, newline and backslash as octal (\040). */
        private static String unescape(String s) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '\\' && i + 3 < s.length()) {
                    b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                    i += 3;
                } else {
                    b.append(c);
                }
            }
            return b.toString();
        }
    }
}
