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

    /** hwtool batch on standard input, through the launcher, as a script would pipe into it. */
    @Test
    void aBatchOnAPipePrintsWhatTheCommandsPrintOneByOne() throws Exception {
        List<String[]> lines = List.of(
                new String[]{"cpuid", "-1", "-l", "0"},
                new String[]{"rdmsr", "--backend", "sim", "--profile", "skylake", "0x12345678"},
                new String[]{"msr", "decode", "IA32_DEBUGCTL", "0x1"},
                new String[]{"frobnicate"},
                new String[]{"rdmsr", "--backend", "sim", "--profile", "skylake", "-r", "0x345"});
        StringBuilder input = new StringBuilder();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        StringBuilder err = new StringBuilder();
        int first = 0;
        for (String[] line : lines) {
            input.append(String.join(" ", line)).append('\n');
            List<String> cmd = new ArrayList<>(List.of(LAUNCHER.toString()));
            cmd.addAll(List.of(line));
            Process alone = new ProcessBuilder(cmd).start();
            alone.getOutputStream().close();
            out.writeBytes(alone.getInputStream().readAllBytes());
            err.append(new String(alone.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            assertTrue(alone.waitFor(120, TimeUnit.SECONDS), "command finished");
            first = first == 0 ? alone.exitValue() : first;
        }
        Process p = new ProcessBuilder(LAUNCHER.toString(), "batch").start();
        try (var stdin = p.getOutputStream()) {
            stdin.write(input.toString().getBytes(StandardCharsets.UTF_8));
        }
        byte[] bOut = p.getInputStream().readAllBytes();
        String bErr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "batch finished");
        assertEquals(4, first, "the failing read's msr-tools exit code comes first");
        assertEquals(first, p.exitValue(), bErr);
        assertEquals(err.toString(), bErr);
        org.junit.jupiter.api.Assertions.assertArrayEquals(out.toByteArray(), bOut, "stdout byte for byte (rdmsr -r: 8 raw bytes)");
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
        java.util.Set<String> expected = new java.util.TreeSet<>();
        expected.add(key + ".aot");
        AotTrainCommand.FAMILIES.forEach(f -> expected.add(key + "-" + f + ".aot"));
        try (var files = Files.list(aot.getParent())) {
            assertEquals(expected, files.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".aot"))
                    .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new)),
                    "the whole cache and one per family, named by this jar; no stale cache left beside them");
        }
        String recorded = Files.readString(aot.resolveSibling("key")).trim();
        assertTrue(recorded.endsWith(" " + key + ".aot"), "the key file names this cache: " + recorded);
    }

    /**
     * The launcher picks the cache by the jar's identity (inode, size, mtime, ctime) that the
     * build recorded: the cache is used with that very file, and not once the jar is written to
     * or is another file (a copy), where hwtool still runs, without it. Run on a copy of the
     * launcher and its build output, whose key is rewritten to name the copy.
     */
    @Test
    void theAotCacheIsUsedOnlyWithTheJarItWasTrainedOn(@TempDir Path dir) throws Exception {
        Path key = ROOT.resolve("hwtool-cli/target/aot/key");
        Require.that(Files.exists(key), "no AOT cache here (JDK 25+ builds one)");
        Path target = Files.createDirectories(dir.resolve("hwtool-cli/target/aot"));
        Path jar = copyOfTheLauncher(dir);
        String cache = Files.readString(key).trim().split(" ")[1];
        Files.copy(key.resolveSibling(cache), target.resolve(cache));

        Result copied = run(logTo(dir, "copied"), dir.resolve("hwtool").toString(), "--version");
        assertEquals(0, copied.exit(), copied.err());
        assertTrue(copied.out().startsWith("hwtool "), copied.out());
        assertEquals("not shared", mainSource(dir, "copied"), "a key naming another file: the copy runs without the cache");

        Files.writeString(target.resolve("key"), identity(jar) + " " + cache + "\n");
        assertEquals(0, run(logTo(dir, "keyed"), dir.resolve("hwtool").toString(), "--version").exit());
        assertEquals("shared", mainSource(dir, "keyed"), "the key names this jar: its cache is used");

        Files.write(jar, Files.readAllBytes(jar)); // the same bytes, written again: a new ctime
        Result rewritten = run(logTo(dir, "rewritten"), dir.resolve("hwtool").toString(), "--version");
        assertEquals(0, rewritten.exit(), rewritten.err());
        assertEquals(copied.out(), rewritten.out());
        assertEquals("not shared", mainSource(dir, "rewritten"), "a jar written after training: no cache");
    }

    /**
     * A copy of the launcher and the jar in {@code dir}, with the inputs the launcher's staleness
     * check looks at (the poms, each module's src/main with a file) an hour older than the jar.
     * Its Maven is {@code dir/mvnw}, which only records that it was called and fails: a copy
     * must never build. Returns the jar.
     */
    private static Path copyOfTheLauncher(Path dir) throws IOException {
        Files.copy(LAUNCHER, dir.resolve("hwtool"));
        dir.resolve("hwtool").toFile().setExecutable(true);
        Path jar = Files.createDirectories(dir.resolve("hwtool-cli/target")).resolve("hwtool.jar");
        Files.copy(ROOT.resolve("hwtool-cli/target/hwtool.jar"), jar);
        Files.writeString(dir.resolve("mvnw"), "#!/bin/sh\necho called >\"$(dirname \"$0\")/mvnw.called\"\nexit 1\n");
        dir.resolve("mvnw").toFile().setExecutable(true);
        var older = java.nio.file.attribute.FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 3_600_000);
        List<Path> inputs = new ArrayList<>(List.of(dir.resolve("pom.xml")));
        for (String m : List.of("hwtool-api", "hwtool-perfdata", "native-access", "simulator-fallback", "hwtool-cli")) {
            Path main = Files.createDirectories(dir.resolve(m + "/src/main/java"));
            Files.writeString(main.resolve("A.java"), "class A {}\n");
            inputs.addAll(List.of(dir.resolve(m + "/pom.xml"), main.resolve("A.java"), main, main.getParent()));
        }
        for (Path p : inputs) {
            if (!Files.exists(p)) {
                Files.writeString(p, "<project/>\n");
            }
            Files.setLastModifiedTime(p, older);
        }
        return jar;
    }

    /**
     * The launcher builds when the jar is missing or an input is newer than it, and only then:
     * an edited source, an added file (its directory's mtime), an edited pom, a removed src/main.
     * Each case on a fresh copy, whose Maven records the call and fails (exit 1, "build failed").
     */
    @Test
    void itBuildsExactlyWhenAnInputIsNewerThanTheJar(@TempDir Path dir) throws Exception {
        interface Change {
            void apply(Path copy) throws IOException;
        }
        record Case(String name, boolean builds, Change change) {
        }
        List<Case> cases = List.of(
                new Case("nothing changed", false, d -> { }),
                new Case("a source edited", true, d -> touch(d.resolve("hwtool-cli/src/main/java/A.java"))),
                new Case("a contract source edited", true, d -> touch(d.resolve("hwtool-api/src/main/java/A.java"))),
                new Case("a file added", true, d -> {
                    Path added = Files.writeString(d.resolve("native-access/src/main/java/B.java"), "class B {}\n");
                    touch(added.getParent()); // its directory's mtime is now (set explicitly: coarse clocks)
                }),
                new Case("a pom edited", true, d -> touch(d.resolve("simulator-fallback/pom.xml"))),
                new Case("the root pom edited", true, d -> touch(d.resolve("pom.xml"))),
                new Case("a src/main removed", true, d -> delete(d.resolve("native-access/src/main"))),
                new Case("the jar removed", true, d -> delete(d.resolve("hwtool-cli/target/hwtool.jar"))));
        for (Case c : cases) {
            Path copy = Files.createDirectories(dir.resolve(c.name().replace(' ', '-')));
            copyOfTheLauncher(copy);
            c.change().apply(copy);
            Result r = run(Map.of(), copy.resolve("hwtool").toString(), "--version");
            boolean built = Files.exists(copy.resolve("mvnw.called"));
            assertEquals(c.builds(), built, c.name() + ": the launcher builds: " + c.builds());
            if (c.builds()) {
                assertEquals(1, r.exit(), c.name() + ": " + r.err());
                assertTrue(r.err().endsWith("hwtool: build failed (output above)\n"), r.err());
            } else {
                assertEquals(0, r.exit(), r.err());
            }
        }
    }

    private static void touch(Path p) throws IOException {
        Files.setLastModifiedTime(p, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 2000));
    }

    private static void delete(Path p) throws IOException {
        try (var walk = Files.walk(p)) {
            for (Path q : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        }
    }

    /**
     * A command of a family (AotTrainCommand.FAMILIES) starts with its family's cache: a JDK 25
     * cache loads all its classes at start-up, so with the whole cache a class of another command
     * (DoctorCommand) is loaded too, and with the family's it is not.
     */
    @Test
    void aCommandOfAFamilyStartsWithItsFamilysCache(@TempDir Path dir) throws Exception {
        Require.that(Files.exists(ROOT.resolve("hwtool-cli/target/aot/key")), "no AOT cache here (JDK 25+ builds one)");
        assertEquals(0, run(logTo(dir, "version"), LAUNCHER.toString(), "--version").exit());
        assertEquals("shared", mainSource(dir, "version"));
        assertEquals(0, run(logTo(dir, "sim"), LAUNCHER.toString(), "sim", "list").exit());
        assertEquals("shared", mainSource(dir, "sim"));
        assertTrue(loaded(dir, "sim", "dev.hwtool.cli.DoctorCommand"), "the whole cache loads every command's classes");
        assertTrue(!loaded(dir, "version", "dev.hwtool.cli.DoctorCommand"), "--version starts with the version family's cache");
    }

    /**
     * The build trains its caches through the launcher (HWTOOL_AOT_OUTPUT), so a cache holds what
     * a real start loads: --version finds the signal thread and standard output's descriptor
     * policy in its cache (a training run in-process with java's own flags had neither), and a
     * one-shot command that needs no native call (--version, profiles) has no FFM linker in its
     * cache at all: the signal thread waits (ShutdownSignals.DEFER_MS) and the command ends
     * first, in training as in use. (A JDK 25 cache loads all it holds at start-up, so the log
     * shows what the cache holds.) Nothing any of them loads comes from the jar.
     */
    @Test
    void oneShotCommandsStartFromTheirCacheAloneAndLinkNoDowncall(@TempDir Path dir) throws Exception {
        Require.that(Files.exists(ROOT.resolve("hwtool-cli/target/aot/key")), "no AOT cache here (JDK 25+ builds one)");
        for (String[] cmd : List.of(new String[]{"--version"}, new String[]{"profiles"},
                new String[]{"rdmsr", "--backend", "sim", "--profile", "skylake", "0x1d9"})) {
            String name = cmd[0].replace("-", "");
            List<String> line = new ArrayList<>(List.of(LAUNCHER.toString()));
            line.addAll(List.of(cmd));
            Result r = run(logTo(dir, name), line.toArray(String[]::new));
            assertEquals(0, r.exit(), r.err());
            List<String> log = Files.readAllLines(dir.resolve(name + ".log"));
            for (String c : List.of("dev.hwtool.linux.sys.ShutdownSignals", "dev.hwtool.cli.StdStream", "dev.hwtool.io.Descriptors")) {
                assertTrue(log.stream().anyMatch(l -> l.contains(" " + c + " source: shared objects file")),
                        name + ": " + c + " from the cache");
            }
            assertEquals(List.of(), log.stream().filter(l -> l.contains(" source: file:")).toList(), name + ": nothing from the jar");
            if (!name.equals("rdmsr")) { // rdmsr's family trains 'rdmsr 0x10' too, which reads /dev/cpu/0/msr
                assertEquals(List.of(), log.stream().filter(l -> l.contains("jdk.internal.foreign.abi.DowncallLinker")).toList(),
                        name + ": no downcall linker");
            }
        }
    }

    /**
     * HWTOOL_AOT_OUTPUT, the build's way to train through the launcher, names a *.aot.new file of
     * the build's own target directory and nothing else, and never makes the launcher build:
     * anything else is one line, exit 1, and no file. Run on a copy, whose Maven records a call.
     */
    @Test
    void theTrainingVariableWritesOnlyTheBuildsOwnCache(@TempDir Path dir) throws Exception {
        Path copy = Files.createDirectories(dir.resolve("copy"));
        copyOfTheLauncher(copy);
        Path outside = dir.resolve("elsewhere.aot.new");
        for (String bad : List.of(outside.toString(), copy.resolve("hwtool-cli/target/x.aot").toString(),
                copy.resolve("hwtool-cli/target/../../elsewhere.aot.new").toString(),
                copy.resolve("hwtool-cli/target/aot/x.aot.new").toString(), "relative.aot.new")) {
            Result r = run(Map.of("HWTOOL_AOT_OUTPUT", bad), copy.resolve("hwtool").toString(), "aot-train", "version");
            assertEquals(1, r.exit(), bad + ": " + r.err());
            assertEquals(1, r.err().lines().count(), r.err());
            assertTrue(r.err().startsWith("hwtool: HWTOOL_AOT_OUTPUT must name a .aot.new file in "), r.err());
        }
        assertTrue(!Files.exists(outside) && !Files.exists(dir.resolve("copy/elsewhere.aot.new")), "no file written");
        touch(copy.resolve("hwtool-cli/src/main/java/A.java"));
        Path good = copy.resolve("hwtool-cli/target/hwtool-version.aot.new");
        Result stale = run(Map.of("HWTOOL_AOT_OUTPUT", good.toString()), copy.resolve("hwtool").toString(), "aot-train", "version");
        assertEquals(1, stale.exit(), stale.err());
        assertTrue(stale.err().startsWith("hwtool: HWTOOL_AOT_OUTPUT: the jar is missing or older than its sources"), stale.err());
        assertTrue(!Files.exists(copy.resolve("mvnw.called")), "no build started");
        assertTrue(!Files.exists(good), "no cache written");
    }

    private static boolean loaded(Path dir, String name, String className) throws IOException {
        return Files.readAllLines(dir.resolve(name + ".log")).stream().anyMatch(l -> l.contains(" " + className + " "));
    }

    /** find(1)'s identity of a file, as src/build/aot-key.sh records it and the launcher compares it. */
    private static String identity(Path f) throws IOException, InterruptedException {
        Result r = run(Map.of(), "find", f.toString(), "-printf", "%D:%i:%s:%T@:%C@");
        assertEquals(0, r.exit(), r.err());
        return r.out().trim();
    }

    private static Map<String, String> logTo(Path dir, String name) {
        return Map.of("JAVA_TOOL_OPTIONS", "-Xlog:class+load=info:file=" + dir.resolve(name + ".log"));
    }

    /** Whether the run that logged to {@code name} loaded dev.hwtool.cli.Main from the AOT cache. */
    private static String mainSource(Path dir, String name) throws IOException {
        String line = Files.readAllLines(dir.resolve(name + ".log")).stream().filter(l -> l.contains(" dev.hwtool.cli.Main ")).findFirst()
                .orElseThrow(() -> new AssertionError("Main not in the class-load log"));
        return line.contains("shared objects file") ? "shared" : "not shared";
    }
}
