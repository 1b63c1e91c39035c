package dev.hwtool.examples;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consumer outside the build, compiled against the published jars (what {@code mvn package}
 * put in each module's target/) and run as a user would: once as a named module on the module
 * path (requires dev.hwtool.simulator and dev.hwtool.nativeaccess, whose /dev/cpu tree it mounts;
 * --enable-native-access for the two modules that call
 * native code, FFM and JNA), once on the class path, and once as a JUnit 5 test of the user's
 * own with {@code @SimulatedCpu}, compiled with javac and run by the JUnit Platform's console
 * launcher (no Maven, no surefire). Nothing may appear on stderr: no native-access warning, no
 * logging noise. The published artifacts are checked whole: each library jar has its -sources
 * and -javadoc jar beside it.
 */
class ModulePathConsumerIT {

    static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    static List<Path> jars;

    static Path jar(String module) throws IOException {
        return jar(module, "");
    }

    /** The module's artifact with {@code classifier} ("" for the jar, "-sources", "-javadoc"). */
    static Path jar(String module, String classifier) throws IOException {
        try (Stream<Path> s = Files.list(ROOT.resolve(module).resolve("target"))) {
            return s.filter(p -> p.getFileName().toString()
                            .matches(module + "-[0-9][^-]*(-SNAPSHOT)?" + classifier + "\\.jar"))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no " + module + classifier
                            + " jar: run mvn package"));
        }
    }

    /** The names in a jar. */
    static List<String> entries(Path jar) throws IOException {
        try (java.util.zip.ZipFile z = new java.util.zip.ZipFile(jar.toFile())) {
            return z.stream().map(java.util.zip.ZipEntry::getName).toList();
        }
    }

    @BeforeAll
    static void findJars() throws IOException {
        jars = new ArrayList<>(List.of(jar("hwtool-api"), jar("hwtool-perfdata"), jar("native-access"), jar("simulator-fallback")));
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator)).map(Path::of)
                .filter(p -> p.getFileName().toString().matches("(jna|jackson-jr-objects|jackson-core|aircompressor-v3)-[0-9.]+\\.jar"))
                .forEach(jars::add);
        assertEquals(8, jars.size(), "hwtool-api, hwtool-perfdata, native-access, simulator-fallback, JNA, jackson-jr (the MSR journal) and"
                + " aircompressor (perf.data's zstd records): " + jars);
    }

    @Test
    void eachLibraryShipsItsSourcesAndJavadoc() throws IOException {
        Map<String, String> typeOf = Map.of("hwtool-api", "dev/hwtool/api/Platform",
                "hwtool-perfdata", "dev/hwtool/perfdata/PerfData", "native-access", "dev/hwtool/devcpu/DevCpuTree",
                "simulator-fallback", "dev/hwtool/sim/SimulatedPlatform", "hwtool-junit", "dev/hwtool/junit/SimulatedCpu");
        // the javadoc is the module's: javadoc puts each module's pages under its name
        Map<String, String> moduleOf = Map.of("hwtool-api", "dev.hwtool.api", "hwtool-perfdata", "dev.hwtool.perfdata",
                "native-access", "dev.hwtool.nativeaccess", "simulator-fallback", "dev.hwtool.simulator",
                "hwtool-junit", "dev.hwtool.junit");
        // hwtool-perfdata's javadoc is its own API alone: the packages it exports to hwtool's modules are left out
        List<String> perfdataDoc = entries(jar("hwtool-perfdata", "-javadoc"));
        assertFalse(perfdataDoc.stream().anyMatch(n -> n.contains("/dev/hwtool/report/")), "hwtool-perfdata-javadoc: " + perfdataDoc);
        for (var e : typeOf.entrySet()) {
            assertTrue(entries(jar(e.getKey())).contains(e.getValue() + ".class"), e.getKey());
            assertTrue(entries(jar(e.getKey())).contains("module-info.class"), e.getKey() + " is a named module");
            assertTrue(entries(jar(e.getKey(), "-sources")).contains(e.getValue() + ".java"), e.getKey() + "-sources");
            List<String> javadoc = entries(jar(e.getKey(), "-javadoc"));
            String module = moduleOf.get(e.getKey());
            assertTrue(javadoc.contains(module + "/" + e.getValue() + ".html"), e.getKey() + "-javadoc");
            assertTrue(javadoc.contains(module + "/module-summary.html"), e.getKey() + "-javadoc documents the module");
        }
    }

    static final String MAIN = """
            package consumer;

            import dev.hwtool.api.BranchFilter;
            import dev.hwtool.api.Counters;
            import dev.hwtool.api.Facility;
            import dev.hwtool.api.HotBranch;
            import dev.hwtool.api.HwException;
            import dev.hwtool.api.MsrAccess;
            import dev.hwtool.api.Platform;
            import dev.hwtool.api.RecordRequest;
            import dev.hwtool.api.Recording;
            import dev.hwtool.api.WriteRequest;
            import dev.hwtool.api.WriteResult;
            import dev.hwtool.sim.SimulatedPlatform;

            public class Main {
                /** The user's own MsrAccess around the platform's: it logs, and names its delegate's origin. */
                record Logged(MsrAccess inner, java.util.List<String> log) implements MsrAccess {
                    public java.util.List<Integer> cpus() {
                        return inner.cpus();
                    }

                    public long read(int cpu, int msr) {
                        log.add("rdmsr 0x" + Integer.toHexString(msr));
                        return inner.read(cpu, msr);
                    }

                    public void write(int cpu, int msr, long value) {
                        log.add("wrmsr 0x" + Integer.toHexString(msr));
                        inner.write(cpu, msr, value);
                    }

                    public Origin origin() {
                        return inner.origin();
                    }

                    public void close() {
                    }
                }

                public static void main(String[] args) throws java.io.IOException {
                    try (Platform p = Platform.open()) {
                        System.out.println("hardware " + p.kind() + " cpuid " + p.capabilities().usable(Facility.CPUID));
                    }
                    try (Platform p = Platform.open(Platform.Options.defaults().binding("jna"))) {
                        System.out.println("jna " + p.description());
                        System.out.println("vendor " + p.capabilities().cpu().vendor().isBlank());
                    } catch (HwException e) {
                        System.out.println("jna refused " + e.cause());
                    }
                    MsrAccess taken;
                    Counters keep;
                    try (SimulatedPlatform p = SimulatedPlatform.of("skylake"); Counters c = p.counters("instructions")) {
                        c.start();
                        long retired = p.run("loop iterations=10").instructions();
                        System.out.println("simulated " + (c.stop().value("instructions") == retired && retired > 0));
                        c.start();
                        long x = 0;
                        for (int i = 0; i < 1000; i++) {
                            x += i;
                        }
                        try {
                            System.out.println("own code " + c.stop().value("instructions") + x);
                        } catch (HwException e) {
                            System.out.println("own code " + e.getMessage());
                        }
                        WriteResult r = p.msr().write(WriteRequest.field(2, "IA32_DEBUGCTL", "LBR", 1));
                        System.out.println("careful " + r.allWritten() + " " + p.msr().readField(2, "IA32_DEBUGCTL", "LBR"));
                        System.out.println("own journal " + r.journal().orElseThrow().startsWith(p.journalDirectory()));
                        p.msr().write(WriteRequest.undo(r));
                        System.out.println("undone " + p.msr().read(2, "IA32_DEBUGCTL"));
                        // checked against the simulated skylake's CPUID (it has MSR_LBR_SELECT; this
                        // host need not), journaled in the simulator's journal
                        Logged mine = new Logged(p.msr(), new java.util.ArrayList<>());
                        WriteResult d = mine.write(WriteRequest.value(0, "MSR_LBR_SELECT", 1));
                        System.out.println("decorated " + d.allWritten() + " " + mine.log().contains("wrmsr 0x1c8") + " "
                                + d.journal().orElseThrow().startsWith(p.journalDirectory()));
                        mine.write(WriteRequest.undo(d));
                        // LBR analysis with no file: record, then ask the recording
                        try (Recording rec = p.recorder().record(new RecordRequest.Lbr(RecordRequest.Privilege.USER,
                                BranchFilter.CALL_STACK, 50), p.workload("calltree seed=5 depth=4 calls=400"))) {
                            HotBranch top = rec.hottestBranches(1).getFirst();
                            System.out.println("hottest " + (top.count() > 0) + " " + !top.fromName().startsWith("0x"));
                            System.out.println("folded " + rec.foldedStacks().getFirst().matches("[^ ]+ [0-9]+"));
                            // too large for memory? the same run streamed into a perf.data file
                            java.nio.file.Path data = java.nio.file.Files.createTempFile("calls", ".data");
                            dev.hwtool.api.RecordingSummary onDisk = p.recorder().record(new RecordRequest.Lbr(
                                    RecordRequest.Privilege.USER, BranchFilter.CALL_STACK, 50),
                                    p.workload("calltree seed=5 depth=4 calls=400"), data);
                            byte[] magic = java.util.Arrays.copyOf(java.nio.file.Files.readAllBytes(data), 8);
                            System.out.println("file " + new String(magic, java.nio.charset.StandardCharsets.US_ASCII) + " "
                                    + (onDisk.samples() == rec.summary().samples()));
                            // the file read back (hwtool-perfdata's own API): the same rows, named from
                            // the simulated program, which the simulator rebuilds as a service
                            try (dev.hwtool.perfdata.PerfData read = dev.hwtool.perfdata.PerfData.open(data)) {
                                System.out.println("perfdata " + read.simulated() + " " + read.hasCallStacks() + " "
                                        + read.hottestBranches(0).equals(rec.hottestBranches(0)) + " "
                                        + read.foldedStacks().equals(rec.foldedStacks()));
                            }
                            java.nio.file.Files.delete(data);
                            java.nio.file.Files.deleteIfExists(java.nio.file.Path.of(data + ".old"));
                            try {
                                rec.writeFlameGraph(java.nio.file.Path.of("calls.html"));
                                System.out.println("flame graph written");
                            } catch (HwException e) {
                                System.out.println("flame graph " + e.cause() + " " + e.remedy().orElse(""));
                            }
                        }
                        // the simulated CPUs as a /dev/cpu tree, read as rdmsr would (pread of 8 bytes
                        // at the register's offset)
                        java.nio.file.Path tree = java.nio.file.Files.createTempDirectory("devcpu");
                        try (dev.hwtool.devcpu.DevCpuTree t = dev.hwtool.devcpu.DevCpuTree.mount(p, tree);
                             java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(tree.resolve("1/msr"))) {
                            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                            ch.read(b, 0x345);
                            System.out.println("devcpu " + (b.getLong(0) == p.msr().read(1, 0x345)));
                        } catch (java.io.IOException e) {
                            System.out.println("devcpu " + e);
                        } finally {
                            java.nio.file.Files.deleteIfExists(tree);
                        }
                        taken = p.msr();
                        keep = p.counters("instructions");
                    }
                    try {
                        taken.read(0, 0x1d9);
                    } catch (HwException e) {
                        System.out.println("closed " + e.cause() + " " + e.getMessage());
                    }
                    try {
                        keep.start();
                    } catch (HwException e) {
                        System.out.println("closed counters " + e.cause());
                    }
                }
            }
            """;

    static final String BENCHMARK = """
            package consumer;

            import org.openjdk.jmh.annotations.Benchmark;
            import org.openjdk.jmh.annotations.Scope;
            import org.openjdk.jmh.annotations.State;

            @State(Scope.Thread)
            public class Spin {
                long seed = 17;

                @Benchmark
                public long spin() {
                    long x = seed;
                    for (int i = 0; i < 10_000; i++) {
                        x = x * 6364136223846793005L + 1442695040888963407L;
                    }
                    return x;
                }
            }
            """;

    /** A jar of this test's class path by its artifact's name. */
    static Path onClassPath(String artifact) {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator)).map(Path::of)
                .filter(p -> p.getFileName().toString().matches(Pattern.quote(artifact) + "-[0-9.]+\\.jar")).findFirst()
                .orElseThrow(() -> new AssertionError(artifact + " is not on the test class path"));
    }

    /**
     * Task 6, JMH: the user's own benchmark, compiled with JMH's annotation processor against the
     * published jars, run by JMH's own command line ({@code org.openjdk.jmh.Main}, the class path,
     * as JMH starts its forks) with the profiler named as the README names it, and no
     * --enable-native-access given: the profiler hands its forks the flag itself. task-clock comes
     * back in ns/op.
     */
    @Test
    void aBenchmarkOfTheUsersOwnRunsWithTheProfilerFromJmhsCommandLine(@TempDir Path dir) throws Exception {
        dev.hwtool.testing.Preconditions.perfCountsOwnProcesses();
        List<Path> cp = new ArrayList<>(jars);
        cp.add(jar("hwtool-jmh"));
        cp.addAll(List.of(onClassPath("jmh-core"), onClassPath("jopt-simple"), onClassPath("commons-math3")));
        Path src = dir.resolve("src/consumer");
        Files.createDirectories(src);
        Files.writeString(src.resolve("Spin.java"), BENCHMARK);
        Result javac = run(dir, List.of(bin("javac"), "-d", "out", "-cp", path(cp),
                "-processorpath", path(List.of(onClassPath("jmh-generator-annprocess"), onClassPath("jmh-core"))),
                "-processor", "org.openjdk.jmh.generators.BenchmarkProcessor", "src/consumer/Spin.java"));
        assertEquals(0, javac.exit(), javac.toString());
        assertTrue(Files.isRegularFile(dir.resolve("out/META-INF/BenchmarkList")), "JMH's generator ran");
        cp.addFirst(dir.resolve("out"));
        Result r = run(dir, List.of(bin("java"), "-Xmx256m", "-Djava.io.tmpdir=" + dir, "-cp", path(cp),
                "org.openjdk.jmh.Main", "consumer.Spin.spin", "-f", "1", "-wi", "1", "-w", "200ms", "-i", "1",
                "-r", "300ms", "-bm", "avgt", "-tu", "ns", "-prof", "dev.hwtool.jmh.HwtoolProfiler:events=task-clock",
                "-rf", "json", "-rff", "result.json"));
        assertEquals(0, r.exit(), r.toString());
        assertFalse(r.out().contains("WARNING: A restricted method") || r.err().contains("WARNING: A restricted method"),
                "the fork had native access: " + r);
        Map<?, ?> result = (Map<?, ?>) com.fasterxml.jackson.jr.ob.JSON.std.listFrom(
                Files.readString(dir.resolve("result.json"))).getFirst();
        Map<?, ?> clock = (Map<?, ?>) ((Map<?, ?>) result.get("secondaryMetrics")).get("hwtool.task-clock");
        assertTrue(clock != null, "a task-clock row: " + result);
        assertEquals("ns/op", clock.get("scoreUnit"), clock.toString());
        double ns = ((Number) clock.get("score")).doubleValue();
        assertTrue(ns > 0 && Double.isFinite(ns), "task-clock per op: " + ns);
    }

    record Result(int exit, String out, String err) {
    }

    static Result run(Path dir, List<String> cmd) throws Exception {
        // a home of its own, so that a write to the user's journal would show (and harm nothing)
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().put("HOME", dir.resolve("home").toString());
        pb.environment().remove("XDG_STATE_HOME");
        Process p = pb.start();
        p.getOutputStream().close();
        var out = p.getInputStream();
        var err = p.getErrorStream();
        byte[][] buf = new byte[2][];
        Thread t = new Thread(() -> {
            try {
                buf[1] = err.readAllBytes();
            } catch (IOException e) {
                buf[1] = e.toString().getBytes(StandardCharsets.UTF_8);
            }
        });
        t.start();
        buf[0] = out.readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "did not finish: " + cmd);
        t.join();
        return new Result(p.exitValue(), new String(buf[0], StandardCharsets.UTF_8), new String(buf[1], StandardCharsets.UTF_8));
    }

    static String bin(String tool) {
        return Path.of(System.getProperty("java.home"), "bin", tool).toString();
    }

    static String path(List<Path> ps) {
        return String.join(File.pathSeparator, ps.stream().map(Path::toString).toList());
    }

    static void expectOutput(Result r) {
        expectOutput(r, true);
    }

    static void expectOutput(Result r, boolean jna) {
        assertEquals(0, r.exit(), r.toString());
        assertEquals("", r.err(), "nothing on stderr");
        assertTrue(r.out().contains("hardware HARDWARE cpuid true"), r.out());
        if (jna) {
            assertTrue(r.out().contains("jna Linux hardware backend (jna binding)"), r.out());
            assertTrue(r.out().contains("vendor false"), r.out());
        } else {
            assertTrue(r.out().contains("jna refused UNSUPPORTED"), r.out());
        }
        assertTrue(r.out().contains("decorated true true true\n"), r.out());
        assertTrue(r.out().contains("simulated true"), r.out());
        assertTrue(r.out().contains("own code instructions: not counted: the simulator counts only simulated work"), r.out());
        assertTrue(r.out().contains("careful true 1\n"), r.out());
        assertTrue(r.out().contains("own journal true\n"), r.out());
        assertTrue(r.out().contains("undone 0\n"), r.out());
        assertTrue(r.out().contains("closed UNSUPPORTED this MsrAccess belongs to a closed platform (simulator, profile skylake"),
                r.out());
        assertTrue(r.out().contains("closed counters UNSUPPORTED"), r.out());
        assertTrue(r.out().contains("hottest true true\n"), r.out());
        assertTrue(r.out().contains("devcpu true\n"), r.out());
        assertTrue(r.out().contains("file PERFILE2 true\n"), r.out());
        assertTrue(r.out().contains("perfdata true true true true\n"), r.out());
        assertTrue(r.out().contains("folded true\n"), r.out());
        // the renderer (jfr-converter) is an optional dependency the consumer did not bring
        assertTrue(r.out().contains("flame graph UNSUPPORTED put one.convert:jfr-converter on the class or module path\n"),
                r.out());
    }

    /** The user's state directory, which a simulated platform's writes must leave alone. */
    static void noUserJournal(Path home) throws IOException {
        assertFalse(Files.exists(home.resolve(".local/state/hwtool/msr-journal.jsonl")), "the user's journal was written");
    }

    /**
     * {@code main} compiled as the module {@code consumer} ({@code directives} its module-info's
     * body) against {@code libs} on the module path, then run as {@code consumer/consumer.Main}
     * with {@code javaOptions}.
     */
    static Result runModule(Path dir, List<Path> libs, String directives, String main, List<String> javaOptions)
            throws Exception {
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("consumer"));
        Files.writeString(src.resolve("module-info.java"), "module consumer { " + directives + " }\n");
        Files.writeString(src.resolve("consumer/Main.java"), main);
        Result javac = run(dir, List.of(bin("javac"), "-d", "out", "--module-path", path(libs),
                "src/module-info.java", "src/consumer/Main.java"));
        assertEquals(0, javac.exit(), javac.toString());
        List<Path> mp = new ArrayList<>(libs);
        mp.add(dir.resolve("out"));
        List<String> java = new ArrayList<>(List.of(bin("java")));
        java.addAll(javaOptions);
        java.addAll(List.of("--module-path", path(mp), "--module", "consumer/consumer.Main"));
        return run(dir, java);
    }

    @Test
    void aNamedModuleOnTheModulePath(@TempDir Path dir) throws Exception {
        // JNA is an optional dependency (requires static): resolved only when asked for
        Result r = runModule(dir, jars, "requires dev.hwtool.simulator; requires dev.hwtool.nativeaccess; requires dev.hwtool.perfdata;", MAIN,
                List.of("--enable-native-access=dev.hwtool.nativeaccess,com.sun.jna", "--add-modules", "com.sun.jna"));
        expectOutput(r);
        noUserJournal(dir.resolve("home"));
    }

    /** JNA is optional: without it only the jna binding is refused, in one line. */
    @Test
    void aNamedModuleOnTheModulePathWithoutJna(@TempDir Path dir) throws Exception {
        List<Path> libs = jars.stream().filter(p -> !p.getFileName().toString().startsWith("jna-")).toList();
        assertEquals(jars.size() - 1, libs.size(), "JNA left out: " + libs);
        Result r = runModule(dir, libs, "requires dev.hwtool.simulator; requires dev.hwtool.nativeaccess; requires dev.hwtool.perfdata;", MAIN,
                List.of("--enable-native-access=dev.hwtool.nativeaccess"));
        expectOutput(r, false);
        noUserJournal(dir.resolve("home"));
    }

    static final String CONTRACT_ONLY = """
            package consumer;

            import dev.hwtool.api.Facility;
            import dev.hwtool.api.MsrAccess;
            import dev.hwtool.api.Platform;

            public class Main {
                public static void main(String[] args) {
                    try (Platform p = Platform.open()) {
                        System.out.println(p.kind() + " " + p.description() + " cpuid " + p.capabilities().usable(Facility.CPUID));
                        System.out.println("api " + MsrAccess.class.getModule().getName() + " backend "
                                + p.getClass().getModule().getName());
                    }
                }
            }
            """;

    /**
     * The contract alone: a module that requires dev.hwtool.api and names no backend gets the
     * Linux one from Platform.open(), resolved by service binding (the api module uses
     * PlatformProvider; native-access provides it), with native access granted to that module only.
     */
    @Test
    void aModuleThatRequiresTheContractAloneGetsTheBackendAsAService(@TempDir Path dir) throws Exception {
        List<Path> libs = jars.stream().filter(p -> !p.getFileName().toString().startsWith("jna-")
                && !p.getFileName().toString().startsWith("simulator-fallback")).toList();
        Result r = runModule(dir, libs, "requires dev.hwtool.api;", CONTRACT_ONLY,
                List.of("--enable-native-access=dev.hwtool.nativeaccess"));
        assertEquals(0, r.exit(), r.toString());
        assertEquals("", r.err(), "nothing on stderr: no native-access warning for the api module");
        assertTrue(r.out().contains("HARDWARE Linux hardware backend"), r.out());
        assertTrue(r.out().contains("cpuid true\n"), r.out());
        assertTrue(r.out().contains("api dev.hwtool.api backend dev.hwtool.nativeaccess\n"), r.out());
    }

    @Test
    void theClassPathAsBefore(@TempDir Path dir) throws Exception {
        Path src = dir.resolve("src/consumer");
        Files.createDirectories(src);
        Files.writeString(src.resolve("Main.java"), MAIN);
        Result javac = run(dir, List.of(bin("javac"), "-d", "out", "-cp", path(jars), "src/consumer/Main.java"));
        assertEquals(0, javac.exit(), javac.toString());
        List<Path> cp = new ArrayList<>(jars);
        cp.add(dir.resolve("out"));
        Result r = run(dir, List.of(bin("java"), "--enable-native-access=ALL-UNNAMED", "-cp", path(cp),
                "consumer.Main"));
        expectOutput(r);
        noUserJournal(dir.resolve("home"));
    }

    static final String JUNIT_TEST = """
            package consumer;

            import dev.hwtool.api.Counters;
            import dev.hwtool.api.Platform;
            import dev.hwtool.api.WriteRequest;
            import dev.hwtool.api.WriteResult;
            import dev.hwtool.junit.SimulatedCpu;
            import dev.hwtool.sim.SimulatedPlatform;
            import org.junit.jupiter.api.Test;

            import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
            import static org.junit.jupiter.api.Assertions.assertTrue;

            @SimulatedCpu("skylake")
            class DebugctlTest {
                static final int IA32_DEBUGCTL = 0x1D9;

                @Test
                void lbrBitSticksOnTheSimulatedCpu(Platform p) {
                    assertEquals(Platform.Kind.SIMULATED, p.kind());
                    p.msr().write(0, IA32_DEBUGCTL, 1);
                    assertEquals(1, p.msr().read(0, IA32_DEBUGCTL));
                }

                @Test
                @SimulatedCpu(value = "alderlake", cpus = 2)
                void theMethodsProfileWins(Platform p) {
                    assertEquals(2, p.cpuid().cpus().size());
                    assertTrue(p.description().contains("alderlake"), p.description());
                    try (Counters c = p.counters("instructions")) {
                        c.start();
                        assertTrue(c.stop().simulated());
                    }
                }

                @Test
                void aSimulatedPlatformParameterCountsAWorkloadAndWritesCarefully(SimulatedPlatform p) {
                    try (Counters c = p.counters("instructions")) {
                        c.start();
                        long retired = p.run("calltree depth=3 calls=20").instructions();
                        assertEquals(retired, c.stop().value("instructions"));
                    }
                    WriteResult r = p.msr().write(WriteRequest.field(1, "IA32_DEBUGCTL", "LBR", 1));
                    assertEquals(1, p.msr().readField(1, "IA32_DEBUGCTL", "LBR"));
                    p.msr().write(WriteRequest.undo(r));
                    assertEquals(0, p.msr().readField(1, "IA32_DEBUGCTL", "LBR"));
                }
            }
            """;

    /** A jar the build copies beside the published ones for the consumers (maven-dependency-plugin, stripped of its version). */
    static Path consumerLib(String name) {
        Path p = Path.of(System.getProperty("hwtool.consumer.libs", "target/consumer-libs")).resolve(name);
        assertTrue(Files.isRegularFile(p), p + ": the build copies it (maven-dependency-plugin)");
        return p;
    }

    /**
     * JUnit 5 test classes of the user's own ({@code sources}: class name to source, in package
     * consumer), compiled with javac on the class path against the published jars and hwtool-junit,
     * then run by the JUnit Platform's console launcher, each class selected.
     */
    static Result runJUnit(Path dir, Map<String, String> sources) throws Exception {
        Path console = consumerLib("junit-platform-console-standalone.jar");
        Path src = dir.resolve("src/consumer");
        Files.createDirectories(src);
        List<Path> cp = new ArrayList<>(jars);
        cp.add(jar("hwtool-junit"));
        List<Path> compile = new ArrayList<>(cp);
        compile.add(console);
        List<String> javac = new ArrayList<>(List.of(bin("javac"), "-d", "out", "-cp", path(compile)));
        List<String> java = new ArrayList<>(List.of(bin("java"), "--enable-native-access=ALL-UNNAMED", "-jar",
                console.toString(), "execute", "--disable-banner", "--details=summary", "--fail-if-no-tests"));
        for (Map.Entry<String, String> e : sources.entrySet()) {
            Files.writeString(src.resolve(e.getKey() + ".java"), e.getValue());
            javac.add("src/consumer/" + e.getKey() + ".java");
            java.addAll(List.of("--select-class", "consumer." + e.getKey()));
        }
        Result compiled = run(dir, javac);
        assertEquals(0, compiled.exit(), compiled.toString());
        cp.add(dir.resolve("out"));
        java.addAll(List.of("--class-path", path(cp)));
        return run(dir, java);
    }

    @Test
    void aJUnit5TestOfTheUsersOwnWithSimulatedCpu(@TempDir Path dir) throws Exception {
        Result r = runJUnit(dir, Map.of("DebugctlTest", JUNIT_TEST));
        assertEquals(0, r.exit(), r.toString());
        assertEquals("", r.err(), "nothing on stderr");
        assertTrue(r.out().contains("3 tests successful"), r.out());
        assertTrue(r.out().contains("0 tests failed"), r.out());
        noUserJournal(dir.resolve("home"));
    }
}
