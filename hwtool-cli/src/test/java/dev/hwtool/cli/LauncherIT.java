package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ./hwtool launcher as a person runs it, against the jar and AOT cache this build made
 * (failsafe runs this after 'package').
 */
class LauncherIT {

    private static final Path ROOT = Path.of(System.getProperty("hwtool.root.dir", "..")).toAbsolutePath().normalize();
    private static final Path LAUNCHER = ROOT.resolve("hwtool");

    record Result(int exit, String out, String err) {
    }

    static Result run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "launcher finished");
        return new Result(p.exitValue(), out, err);
    }

    static Result hwtool(String... args) throws IOException, InterruptedException {
        String[] cmd = new String[args.length + 1];
        cmd[0] = LAUNCHER.toString();
        System.arraycopy(args, 0, cmd, 1, args.length);
        return run(Map.of(), cmd);
    }

    @Test
    void capsRunsWithNativeAccessAndNothingOnStderr() throws Exception {
        Result r = hwtool("caps");
        assertEquals(0, r.exit(), r.err());
        assertEquals("", r.err(), "no warnings (native access, AOT) on stderr");
        assertTrue(r.out().contains("Verdicts (this machine)"), r.out());
    }

    @Test
    void versionNamesTheBuild() throws Exception {
        Result r = hwtool("--version");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("hwtool 0."), r.out());
        assertEquals("", r.err());
    }

    @Test
    void badInputIsOneLineAndItsExitCode() throws Exception {
        Result r = hwtool("caps", "--cpuid-dump", "/nonexistent/dump.txt");
        assertEquals(3, r.exit());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("hwtool: cannot read /nonexistent/dump.txt"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void aLinkKeepsItsNameAndActsAsThatCommand(@TempDir Path dir) throws Exception {
        Path link = Files.createSymbolicLink(dir.resolve("cpuid"), LAUNCHER);
        Result viaLink = run(Map.of(), link.toString(), "-1", "-l", "0");
        Result direct = hwtool("cpuid", "-1", "-l", "0");
        assertEquals(0, viaLink.exit(), viaLink.err());
        assertEquals(direct.out(), viaLink.out());
        assertTrue(viaLink.out().startsWith("CPU:\n   0x00000000 0x00: eax="), viaLink.out());
    }

    @Test
    void findsAJdk22OrNewerWhenJavaHomeAndPathPointAtJava17() throws Exception {
        Path jdk17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
        Require.that(Files.isDirectory(jdk17), "no JDK 17 here to point JAVA_HOME at");
        Result r = run(Map.of("JAVA_HOME", jdk17.toString(), "PATH", jdk17.resolve("bin") + ":/usr/bin:/bin"),
                LAUNCHER.toString(), "--version");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("Java ") && !l.startsWith("Java 17")), r.out());
    }

    @Test
    void theBuildTrainedAnAotCacheNamedByThisJarsHash() throws Exception {
        String release = Files.readString(Path.of(System.getProperty("java.home"), "release"));
        Require.that(release.contains("JAVA_VERSION=\"25") || release.matches("(?s).*JAVA_VERSION=\"(2[6-9]|[3-9][0-9]).*"),
                "AOT caches need JDK 25+");
        byte[] jar = Files.readAllBytes(ROOT.resolve("hwtool-cli/target/hwtool.jar"));
        String key = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(jar)).substring(0, 32);
        Path aot = ROOT.resolve("hwtool-cli/target/aot/" + key + ".aot");
        assertTrue(Files.size(aot) > 1_000_000, "AOT cache " + aot);
        try (var files = Files.list(aot.getParent())) {
            assertEquals(1, files.count(), "no stale cache left beside it");
        }
    }
}
