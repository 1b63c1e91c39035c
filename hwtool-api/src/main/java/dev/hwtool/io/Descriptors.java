package dev.hwtool.io;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which of this process's file descriptors its caller passed, and which the Java runtime opened
 * itself: a path such as {@code /dev/stdout} or {@code /proc/self/fd/N} reopens whatever the
 * descriptor is (a "magic link", proc(5)), and as root that may be a file nobody named. With
 * standard output closed at start, the JVM's first open(2) takes the lowest free descriptor
 * (POSIX open: "the lowest numbered unused file descriptor"), which is the runtime image
 * {@code lib/modules} (measured on Temurin 25: descriptor 1, O_RDONLY, not close-on-exec);
 * reopened for writing through {@code /proc/self/fd/1}, it is the JDK that gets written.
 *
 * <p>No sound test inside the JVM tells the two kinds apart once it runs: the runtime's own
 * descriptors are not close-on-exec (fdinfo shows lib/modules and the jar without O_CLOEXEC), and
 * /proc records no opening time. So the launchers ({@code ./hwtool}, {@code bin/hwtool} of the
 * tarball and the .deb) list the descriptors that survive their exec (those without O_CLOEXEC in
 * {@code /proc/$$/fdinfo/N}) just before it, as the system property {@value #PROPERTY}
 * ({@code -Dhwtool.fds=0,1,2}); they also open /dev/null on any of 0, 1 and 2 that is closed,
 * so that the runtime's files never land there. Without the property (java started by hand, a
 * library user), 0, 1 and 2 count as passed, as POSIX lets a program assume, unless one of them
 * is a file of the runtime itself (under java.home or on the class path): a guard for the common
 * case, not a proof; any other descriptor counts as the runtime's.
 */
public final class Descriptors {

    /** The system property the launchers set: the descriptors open at exec, comma-separated. */
    public static final String PROPERTY = "hwtool.fds";

    /**
     * /proc/PID/fd and /proc/PID/task/TID/fd after toRealPath (/proc/self and /proc/thread-self
     * resolved). In a holder: every command's first write to standard output asks {@link
     * #notPassed}, which needs no pattern, and compiling one spins classes at start-up.
     */
    private static final class FdDir {
        static final Pattern PATTERN = Pattern.compile("/proc/([0-9]+)(?:/task/([0-9]+))?/fd");
    }

    private Descriptors() {
    }

    /**
     * The descriptors the launcher listed, or null when it listed none (no property, or a
     * malformed one). Read at each use (a few per run): a library user may set the property to
     * name descriptors of its own that may be written through.
     */
    static Set<Integer> listed() {
        return parse(System.getProperty(PROPERTY));
    }

    static Set<Integer> parse(String list) {
        if (list == null) {
            return null;
        }
        Set<Integer> s = new HashSet<>();
        for (String n : list.split(",")) {
            if (n.isEmpty()) {
                continue;
            }
            try {
                s.add(Integer.parseInt(n));
            } catch (NumberFormatException e) {
                return null; // not the launcher's list: the rule without one applies
            }
        }
        return Set.copyOf(s);
    }

    /**
     * Why descriptor {@code fd} of this process must not be written through, or null when the
     * caller passed it (as far as can be known: see the class comment).
     */
    public static String notPassed(int fd) {
        Set<Integer> list = listed();
        if (list != null) {
            if (list.contains(fd)) {
                return null;
            }
            String now = target(fd);
            return now == null ? "descriptor " + fd + " was not open when hwtool started"
                    : "descriptor " + fd + " was not passed to hwtool by its caller: it is " + now
                    + ", which hwtool's Java runtime opened itself";
        }
        String now = target(fd);
        if (fd <= 2) {
            if (now != null && runtimeFile(now)) {
                return "descriptor " + fd + " was closed when hwtool started: it is now " + now
                        + ", which the Java runtime opened itself";
            }
            return null;
        }
        return "descriptor " + fd + (now == null ? "" : " (" + now + ")") + " is not known to be passed by hwtool's"
                + " caller (java was started without the launcher's -D" + PROPERTY + " list; only 0, 1 and 2 count)";
    }

    /**
     * The number of the descriptor of this process that {@code p} names, or -1: {@code p} is
     * NAME in a directory that is, after every link is followed, /proc/PID/fd or
     * /proc/PID/task/TID/fd with PID this process or one of its threads (/proc/TID works for a
     * thread though it is not listed, proc(5)). /dev/fd is a link to /proc/self/fd (udev's
     * static nodes, systemd's tmpfiles), /proc/self to /proc/PID, /proc/thread-self to
     * /proc/PID/task/TID: toRealPath follows them all, and any link of the user's on the way.
     */
    static int ownDescriptor(Path p) {
        Path parent = p.getParent();
        Path name = p.getFileName();
        if (parent == null || name == null || !name.toString().matches("[0-9]{1,9}")) {
            return -1;
        }
        Path real;
        try {
            real = parent.toRealPath();
        } catch (IOException | SecurityException e) {
            return -1; // no such directory: not a descriptor, and the policy reports the path as it is
        }
        Matcher m = FdDir.PATTERN.matcher(real.toString());
        if (!m.matches() || !ours(m.group(1))) {
            return -1;
        }
        return Integer.parseInt(name.toString());
    }

    private static boolean ours(String pid) {
        if (Long.parseLong(pid) == ProcessHandle.current().pid()) {
            return true;
        }
        // A thread of this process: its /proc/TID is this process's too (same file table).
        return Files.isDirectory(Path.of("/proc/self/task", pid));
    }

    /** What the descriptor is now (readlink of /proc/self/fd/N), or null when it is not open. */
    static String target(int fd) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/fd", Integer.toString(fd))).toString();
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    /** Whether {@code file} is under java.home or on the class or module path: a file the runtime opens itself. */
    private static boolean runtimeFile(String file) {
        Path f = Path.of(file);
        if (under(f, System.getProperty("java.home"))) {
            return true;
        }
        for (String prop : new String[]{"java.class.path", "jdk.module.path"}) {
            String v = System.getProperty(prop);
            if (v == null) {
                continue;
            }
            for (String e : v.split(File.pathSeparator)) {
                if (!e.isEmpty() && under(f, e)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean under(Path f, String root) {
        if (root == null || root.isEmpty()) {
            return false;
        }
        try {
            return f.startsWith(Path.of(root).toRealPath());
        } catch (IOException | RuntimeException e) {
            return f.startsWith(Path.of(root).toAbsolutePath().normalize());
        }
    }
}
