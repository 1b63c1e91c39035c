package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launchers ({@code ./hwtool}, and {@code bin/hwtool} of the tarball and the .deb) before they
 * exec java: descriptors 0, 1 and 2 closed in any combination are open on /dev/null (0 for
 * reading, 1 and 2 for writing), a descriptor the caller gave (here 5) is left alone, and
 * {@code -Dhwtool.fds} lists exactly the descriptors java inherits. "java" is a stand-in that
 * writes its arguments and execs sleep(1), so that the process the launcher became holds exactly
 * what it inherited (the stand-in's own script descriptor is close-on-exec) and the test reads
 * its /proc/PID/fd; no JVM and no jar are needed, so the launchers are tested on every build.
 */
class LauncherDescriptorsTest {

    private static final Path ROOT = Path.of(System.getProperty("hwtool.root.dir", "..")).toAbsolutePath().normalize();

    @TempDir
    Path dir;

    /** Both launchers, in a tree where each finds its stand-in java and a jar that needs no build. */
    private List<Path> launchers() throws IOException {
        String fakeJava = "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$FAKE_ARGS\"\nexec sleep 600\n";
        // ./hwtool: the source tree, its jar newer than every input (as LauncherIT's copy), JAVA_HOME a "JDK 25".
        Path tree = Files.createDirectories(dir.resolve("tree"));
        Files.copy(ROOT.resolve("hwtool"), tree.resolve("hwtool"));
        List<Path> inputs = new ArrayList<>(List.of(Files.writeString(tree.resolve("pom.xml"), "<project/>\n")));
        for (String m : List.of("hwtool-api", "hwtool-perfdata", "native-access", "simulator-fallback", "hwtool-cli")) {
            Path main = Files.createDirectories(tree.resolve(m + "/src/main/java"));
            inputs.addAll(List.of(Files.writeString(main.resolve("A.java"), "class A {}\n"),
                    Files.writeString(tree.resolve(m + "/pom.xml"), "<project/>\n"), main, main.getParent()));
        }
        Path jar = Files.writeString(Files.createDirectories(tree.resolve("hwtool-cli/target")).resolve("hwtool.jar"), "jar");
        FileTime older = FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 3_600_000);
        for (Path p : inputs) {
            Files.setLastModifiedTime(p, older);
        }
        Path jdk = Files.createDirectories(dir.resolve("jdk/bin"));
        Files.writeString(dir.resolve("jdk/release"), "JAVA_VERSION=\"25.0.3\"\n");
        executable(Files.writeString(jdk.resolve("java"), fakeJava));
        executable(tree.resolve("hwtool"));
        // bin/hwtool of the tarball and the .deb: runtime/ and lib/ beside bin/.
        Path dist = Files.createDirectories(dir.resolve("dist"));
        Files.createDirectories(dist.resolve("bin"));
        Files.copy(ROOT.resolve("hwtool-cli/src/dist/bin/hwtool"), dist.resolve("bin/hwtool"));
        executable(dist.resolve("bin/hwtool"));
        executable(Files.writeString(Files.createDirectories(dist.resolve("runtime/bin")).resolve("java"), fakeJava));
        Files.writeString(Files.createDirectories(dist.resolve("lib")).resolve("hwtool.jar"), "jar");
        return List.of(tree.resolve("hwtool"), dist.resolve("bin/hwtool"));
    }

    private static void executable(Path p) {
        assertTrue(p.toFile().setExecutable(true));
    }

    /** What the process that the launcher became holds: descriptor → (target, fdinfo flags). */
    record Held(Map<Integer, String> targets, Map<Integer, Integer> flags, List<String> args) {
        Set<Integer> listed() {
            String p = args.stream().filter(a -> a.startsWith("-Dhwtool.fds=")).findFirst().orElseThrow(
                    () -> new AssertionError("no -Dhwtool.fds among " + args));
            return Stream.of(p.substring("-Dhwtool.fds=".length()).split(",")).filter(s -> !s.isEmpty())
                    .map(Integer::parseInt).collect(Collectors.toCollection(TreeSet::new));
        }

        /** O_ACCMODE of the descriptor's flags: 0 read, 1 write, 2 both (asm-generic/fcntl.h). */
        int access(int fd) {
            return flags.get(fd) & 3;
        }
    }

    /**
     * Runs {@code launcher caps} from sh with {@code redirections} (e.g. {@code >&-}) and stdin a
     * pipe, stdout and stderr files of the test; returns what the stand-in java held.
     */
    private Held run(Path launcher, String redirections) throws Exception {
        Path args = dir.resolve("args");
        Files.deleteIfExists(args);
        Path out = dir.resolve("out");
        ProcessBuilder pb = HwtoolProcess.builder(List.of("sh", "-c", "exec \"$0\" caps " + redirections,
                launcher.toString()));
        pb.environment().put("JAVA_HOME", dir.resolve("jdk").toString());
        pb.environment().put("FAKE_ARGS", args.toString());
        pb.redirectOutput(out.toFile()).redirectError(dir.resolve("err").toFile());
        Process p = pb.start();
        try {
            // The stand-in wrote its arguments, then exec'd sleep: wait for both (no time limit
            // but the test's; a launcher that never gets there fails below with what it printed).
            long pid = p.pid();
            // sleep(1) asleep, not still in its dynamic loader (which holds libc open for a moment):
            // in clock_nanosleep (230) or nanosleep (35), /proc/PID/syscall's first field.
            for (int i = 0; i < 6000 && !(Files.exists(args) && cmdline(pid).startsWith("sleep") && asleep(pid)); i++) {
                assertTrue(p.isAlive(), () -> "the launcher ended before java: " + read(dir.resolve("err")));
                Thread.sleep(20);
            }
            assertTrue(cmdline(pid).startsWith("sleep"), "java was reached");
            Map<Integer, String> targets = new TreeMap<>();
            Map<Integer, Integer> flags = new TreeMap<>();
            try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
                for (Path f : fds.toList()) {
                    int n = Integer.parseInt(f.getFileName().toString());
                    targets.put(n, Files.readSymbolicLink(f).toString());
                    String info = Files.readString(Path.of("/proc", Long.toString(pid), "fdinfo", Integer.toString(n)));
                    String octal = info.lines().filter(l -> l.startsWith("flags:")).findFirst().orElseThrow()
                            .substring("flags:".length()).strip();
                    flags.put(n, Integer.parseInt(octal, 8));
                }
            }
            return new Held(targets, flags, Files.readAllLines(args));
        } finally {
            // SIGKILL: the stand-in (no JVM to take them) keeps the mask the launcher's env set, in
            // which SIGTERM is blocked.
            p.destroyForcibly();
            p.waitFor(60, TimeUnit.SECONDS);
        }
    }

    private static boolean asleep(long pid) {
        try {
            String call = Files.readString(Path.of("/proc", Long.toString(pid), "syscall"));
            return call.startsWith("230 ") || call.startsWith("35 ");
        } catch (IOException e) {
            return false;
        }
    }

    private static String cmdline(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ');
        } catch (IOException e) {
            return "";
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Test
    void closedStandardDescriptorsAreOpenOnDevNullAndTheListIsWhatJavaInherits() throws Exception {
        Path five = dir.resolve("five");
        for (Path launcher : launchers()) {
            for (int closed = 0; closed < 8; closed++) {
                StringBuilder r = new StringBuilder("5>>" + HwtoolProcess.shellQuote(five.toString()));
                for (int fd = 0; fd < 3; fd++) {
                    if ((closed & (1 << fd)) != 0) {
                        r.append(' ').append(fd).append(fd == 0 ? "<&-" : ">&-");
                    }
                }
                String what = launcher + " " + r;
                Held h = run(launcher, r.toString());
                for (int fd = 0; fd < 3; fd++) {
                    assertTrue(h.targets().containsKey(fd), what + ": " + fd + " is open: " + h);
                    if ((closed & (1 << fd)) != 0) {
                        assertEquals("/dev/null", h.targets().get(fd), what + ": " + h);
                        assertEquals(fd == 0 ? 0 : 1, h.access(fd), what + ": " + fd + " opened for "
                                + (fd == 0 ? "reading" : "writing") + ": " + h);
                    } else {
                        assertEquals(fd == 0 ? "pipe:" : dir.resolve(fd == 1 ? "out" : "err").toString(),
                                fd == 0 ? h.targets().get(fd).substring(0, 5) : h.targets().get(fd), what + ": as given: " + h);
                    }
                }
                assertEquals(five.toString(), h.targets().get(5), what + ": the caller's descriptor 5: " + h);
                assertEquals(h.targets().keySet(), h.listed(), what + ": -Dhwtool.fds is what java holds: " + h);
            }
        }
    }

    /** bash started with 2 closed leaves its script open on 2, read-only (bash 5.2): that is no stderr either. */
    @Test
    void theScriptThatBashLeavesOnAClosedStderrIsReplaced() throws Exception {
        Path launcher = launchers().getFirst();
        Held h = run(launcher, "2>&-");
        assertEquals("/dev/null", h.targets().get(2), h.toString());
        assertEquals(1, h.access(2), h.toString());
    }
}
