package dev.hwtool.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code cp -a} copy of the Java runtime the tests run on, hashed file by file when made, for
 * hwtool processes that could write where they must not: with a descriptor closed at start, the
 * JVM's own lib/modules takes its number, and before the output policy knew it, {@code msr save
 * -o /dev/stdout >&-} rewrote the runtime it ran on. Such runs happen on the copy only, never on
 * the JDK the build uses; {@link #changed()} names every file of the copy changed, added or
 * removed since.
 */
final class RuntimeCopy {

    private final Path home;
    private final Map<String, String> before;

    private RuntimeCopy(Path home, Map<String, String> before) {
        this.home = home;
        this.before = before;
    }

    /** Copies java.home to {@code dir}/runtime and hashes it. */
    static RuntimeCopy in(Path dir) throws Exception {
        Path home = dir.resolve("runtime");
        Process cp = new ProcessBuilder("cp", "-a", System.getProperty("java.home"), home.toString())
                .redirectErrorStream(true).start();
        String log = new String(cp.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(cp.waitFor(600, TimeUnit.SECONDS), "cp -a of the runtime ended");
        assertEquals(0, cp.exitValue(), "cp -a of the runtime: " + log);
        Map<String, String> hashes = hashes(home);
        assertTrue(hashes.containsKey("lib/modules"), "the copy holds the runtime image");
        return new RuntimeCopy(home, hashes);
    }

    Path home() {
        return home;
    }

    /** {@code java [jvmOptions] -cp ... Main args} on this copy. */
    List<String> hwtool(List<String> jvmOptions, List<String> args) {
        List<String> cmd = new ArrayList<>(HwtoolProcess.command(jvmOptions, args));
        cmd.set(0, home.resolve("bin/java").toString());
        return cmd;
    }

    /** Files of the copy changed, added or removed since it was made: "lib/modules (changed)". */
    List<String> changed() throws Exception {
        Map<String, String> after = hashes(home);
        TreeSet<String> all = new TreeSet<>(before.keySet());
        all.addAll(after.keySet());
        List<String> changed = new ArrayList<>();
        for (String f : all) {
            if (!Objects.equals(before.get(f), after.get(f))) {
                changed.add(f + (before.containsKey(f) ? after.containsKey(f) ? " (changed)" : " (removed)" : " (added)"));
            }
        }
        return changed;
    }

    private static Map<String, String> hashes(Path root) throws Exception {
        Map<String, String> h = new TreeMap<>();
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                sha.reset();
                try (var in = Files.newInputStream(f)) {
                    byte[] buf = new byte[1 << 16];
                    for (int n; (n = in.read(buf)) > 0; ) {
                        sha.update(buf, 0, n);
                    }
                }
                h.put(root.relativize(f).toString(), HexFormat.of().formatHex(sha.digest()));
            }
        }
        return h;
    }
}
