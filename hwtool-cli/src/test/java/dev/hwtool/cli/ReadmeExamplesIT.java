package dev.hwtool.cli;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The README as a test: whatever README.md holds when the test runs, its command examples run
 * through the launcher {@code ./hwtool} of this checkout.
 *
 * <ul>
 *   <li>A fenced block marked {@code ```sh} holds commands that run as printed, one per line (a
 *   trailing {@code # comment} is not part of it), in order, in one fresh directory: each must
 *   exit 0 without a stack trace and say something; a recording must hold samples and a report
 *   must count more than zero of them.</li>
 *   <li>A block marked {@code ```sh synopsis} (a syntax summary with placeholders) or
 *   {@code ```sh hardware} (needs hardware this test cannot assume) is checked as a command
 *   line: its command exists ({@code hwtool CMD --help} exits 0) and every long option it names
 *   is in that help.</li>
 *   <li>A block marked {@code ```sh walkthrough} is a worked example that sets up files with other
 *   tools and placeholders (the exporter's TLS and basic-auth set-up, which ExporterTlsTest and
 *   ExporterWebConfigIT run for real with generated keys): its hwtool lines are checked as a
 *   synopsis is, and its other lines are not run.</li>
 *   <li>Inline code that starts with {@code hwtool} or {@code ./hwtool} is checked the same way.</li>
 * </ul>
 * The only other command an unmarked block may hold is {@code ./mvnw verify}: this test suite itself.
 */
class ReadmeExamplesIT {

    static final Path ROOT = Path.of(System.getProperty("hwtool.root.dir", "..")).toAbsolutePath().normalize();
    static final Path LAUNCHER = ROOT.resolve("hwtool");
    static final Set<String> NOT_RUN_HERE = Set.of("./mvnw verify");
    private static final Pattern FENCE = Pattern.compile("(?m)^```(sh[^\\n]*)\\n(.*?)^```$", Pattern.DOTALL);
    private static final Pattern INLINE = Pattern.compile("`((?:\\./)?hwtool (?:[^`\\\\]|\\\\.)*)`");

    @TempDir
    static Path work;

    record Example(String kind, String line, int readmeLine) {
        @Override
        public String toString() {
            return "README.md:" + readmeLine + " [" + kind + "] " + line;
        }
    }

    record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    static List<Example> examples() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        List<Example> all = new ArrayList<>();
        Matcher m = FENCE.matcher(readme);
        StringBuilder outsideFences = new StringBuilder();
        int last = 0;
        while (m.find()) {
            outsideFences.append(readme, last, m.start());
            last = m.end();
            String[] info = m.group(1).trim().split("\\s+");
            String kind = info.length > 1 ? info[1] : "run";
            if (!Set.of("run", "synopsis", "hardware", "walkthrough").contains(kind)) {
                fail("README.md:" + lineOf(readme, m.start()) + ": unknown sh block annotation '" + kind
                        + "' (sh, sh synopsis, sh hardware or sh walkthrough)");
            }
            int line = lineOf(readme, m.start(2));
            for (String raw : m.group(2).split("\n", -1)) {
                String cmd = raw.replaceFirst("\\s+#.*$", "").strip();
                if (!cmd.isEmpty()) {
                    all.add(new Example(kind, cmd, line));
                }
                line++;
            }
        }
        outsideFences.append(readme.substring(last));
        Matcher i = INLINE.matcher(readme);
        while (i.find()) {
            if (outsideFences.indexOf(i.group()) >= 0) {
                all.add(new Example("inline", i.group(1).replace("\\|", "|"), lineOf(readme, i.start())));
            }
        }
        return all;
    }

    private static int lineOf(String s, int offset) {
        return (int) s.substring(0, offset).chars().filter(c -> c == '\n').count() + 1;
    }

    @TestFactory
    List<DynamicTest> everyCommandExampleDoesWhatTheReadmeSays() throws IOException {
        List<Example> all = examples();
        assertTrue(all.stream().filter(e -> e.kind().equals("run")).count() >= 3, "runnable examples found: " + all);
        List<DynamicTest> tests = new ArrayList<>();
        for (Example e : all) {
            tests.add(DynamicTest.dynamicTest(e.toString(), () -> check(e)));
        }
        return tests;
    }

    static void check(Example e) throws Exception {
        if (e.kind().equals("run")) {
            run(e);
        } else if (!e.kind().equals("walkthrough") || e.line().startsWith("hwtool ") || e.line().startsWith("./hwtool ")) {
            syntax(e);
        }
    }

    /** Runs the line as printed (hwtool being this checkout's launcher) in the shared directory. */
    static void run(Example e) throws Exception {
        if (NOT_RUN_HERE.contains(e.line())) {
            return; // the test suite itself; CI runs exactly this
        }
        List<String> words = List.of(e.line().split("\\s+"));
        assertTrue(words.getFirst().equals("hwtool") || words.getFirst().equals("./hwtool"),
                e + ": a runnable example must be an hwtool command (or mark the block sh synopsis/hardware)");
        List<String> argv = new ArrayList<>(List.of(LAUNCHER.toString()));
        argv.addAll(words.subList(1, words.size()));
        Result r = exec(argv);
        assertEquals(0, r.exit(), e + "\n" + r);
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), e + ": no stack trace\n" + r);
        assertFalse(r.out().isBlank() && r.err().isBlank(), e + ": says something\n" + r);
        String sub = words.size() > 2 ? words.get(1) + " " + words.get(2) : "";
        switch (sub) {
            case "lbr record", "bts record" -> {
                Matcher n = Pattern.compile(": ([0-9]+) samples, ").matcher(r.err());
                assertTrue(n.find() && Long.parseLong(n.group(1)) > 0, e + ": the recording holds samples\n" + r);
            }
            case "lbr report" -> {
                Matcher n = Pattern.compile("(?m)^# ([0-9]+) samples, ").matcher(r.out());
                assertTrue(n.find() && Long.parseLong(n.group(1)) > 0, e + ": the report counts samples\n" + r);
            }
            case "bts report" -> {
                Matcher n = Pattern.compile("(?m)^# ([0-9]+) branches, ").matcher(r.out());
                assertTrue(n.find() && Long.parseLong(n.group(1)) > 0, e + ": the report counts branches\n" + r);
            }
            default -> {
            }
        }
    }

    /**
     * A command line with placeholders: its command path (the words before the first option,
     * placeholder or {@code --}) is a command ({@code --help} exits 0), for every alternative
     * {@code a|b} of a path word, and each long option it names is in that command's help.
     */
    static void syntax(Example e) throws Exception {
        List<String> words = List.of(e.line().split("\\s+"));
        assertTrue(words.getFirst().equals("hwtool") || words.getFirst().equals("./hwtool"), e.toString());
        List<List<String>> paths = new ArrayList<>(List.of(List.of()));
        int i = 1;
        for (; i < words.size(); i++) {
            String w = words.get(i);
            if (!w.matches("[a-z][a-z0-9-]*(\\|[a-z][a-z0-9-]*)*")) {
                break;
            }
            List<List<String>> next = new ArrayList<>();
            for (List<String> p : paths) {
                for (String alt : w.split("\\|")) {
                    List<String> q = new ArrayList<>(p);
                    q.add(alt);
                    next.add(q);
                }
            }
            paths = next;
        }
        Set<String> options = new LinkedHashSet<>();
        Matcher o = Pattern.compile("(?<![\\w-])--[a-z][a-z0-9-]*").matcher(String.join(" ", words.subList(i, words.size())));
        while (o.find()) {
            options.add(o.group());
        }
        for (List<String> p : paths) {
            List<String> argv = new ArrayList<>(List.of(LAUNCHER.toString()));
            argv.addAll(p);
            argv.add("--help");
            Result r = exec(argv);
            assertEquals(0, r.exit(), e + ": hwtool " + String.join(" ", p) + " --help\n" + r);
            String help = r.out() + r.err();
            for (String opt : options) {
                assertTrue(help.contains(opt), e + ": hwtool " + String.join(" ", p) + " has no " + opt + "\n" + help);
            }
        }
    }

    static Result exec(List<String> argv) throws IOException, InterruptedException {
        Path out = Files.createTempFile(work, "out", ".txt");
        Path err = Files.createTempFile(work, "err", ".txt");
        Process p = new ProcessBuilder(argv).directory(work.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            fail(argv + " did not finish in 300 s");
        }
        Result r = new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(out);
        Files.delete(err);
        return r;
    }
}
