package dev.hwtool.examples;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.hwtool.examples.ModulePathConsumerIT.Result;
import static dev.hwtool.examples.ModulePathConsumerIT.consumerLib;
import static dev.hwtool.examples.ModulePathConsumerIT.jars;
import static dev.hwtool.examples.ModulePathConsumerIT.runJUnit;
import static dev.hwtool.examples.ModulePathConsumerIT.runModule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's Java as a test: whatever README.md holds when the test runs, every {@code ```java}
 * block is compiled as printed against the published jars and run, so an example cannot rot.
 * Blocks of statements become one method each of a named module on the module path (with
 * {@code --enable-native-access} for native-access alone, and the optional flame-graph renderer
 * brought as the README says), run in order in one directory, where {@code perf.data} is a file
 * perf wrote on another host (the perf corpus's LBR recording). A block that declares a class is a
 * JUnit 5 test of the user's own, compiled and run by the JUnit Platform's console launcher.
 * The only text added is the imports a user would write and a {@code work()} for "my own code".
 */
class ReadmeJavaIT {

    /** A fenced Java block, its fence indented or not. */
    private static final Pattern BLOCK = Pattern.compile("(?m)^( *)```java\\n(.*?)^\\1```$", Pattern.DOTALL);

    private static final String IMPORTS = """
            import dev.hwtool.api.*;
            import dev.hwtool.api.RecordRequest.*;
            import dev.hwtool.perfdata.*;
            import dev.hwtool.sim.*;
            import dev.hwtool.sim.cpu.*;
            import dev.hwtool.sim.workload.*;
            import java.nio.file.*;
            import java.util.*;
            """;

    record Block(int line, String code) {
        boolean declaresClass() {
            return code.lines().anyMatch(l -> l.matches("(@\\w.*|(public |final )*class \\w+.*)"));
        }
    }

    @BeforeAll
    static void findJars() throws IOException {
        ModulePathConsumerIT.findJars();
    }

    static List<Block> blocks() throws IOException {
        String readme = Files.readString(ModulePathConsumerIT.ROOT.resolve("README.md"));
        List<Block> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(readme);
        while (m.find()) {
            int indent = m.group(1).length();
            String code = m.group(2).lines().map(l -> l.length() >= indent ? l.substring(indent) : l.strip())
                    .reduce("", (a, b) -> a + b + "\n");
            out.add(new Block(readme.substring(0, m.start()).split("\n", -1).length, code));
        }
        return out;
    }

    @Test
    void theReadmeHasJavaToRun() throws IOException {
        List<Block> all = blocks();
        assertTrue(all.size() >= 6, "README's java blocks: " + all.size());
        assertTrue(all.stream().anyMatch(Block::declaresClass), "a JUnit test among them");
    }

    /** Every statement block, compiled into a named module on the module path, runs to its end. */
    @Test
    void everyBlockOfStatementsRunsOnTheModulePath(@TempDir Path dir) throws Exception {
        List<Block> statements = blocks().stream().filter(b -> !b.declaresClass()).toList();
        StringBuilder main = new StringBuilder("package consumer;\n\n" + IMPORTS + """

                public class Main {
                    /** "my own code", which the README's counting example measures */
                    static long sink;
                    static void work() {
                        for (int i = 0; i < 1_000_000; i++) {
                            sink += i ^ (sink >>> 3);
                        }
                    }

                    public static void main(String[] args) throws Exception {
                """);
        for (Block b : statements) {
            main.append("        System.out.println(\"== README.md:").append(b.line()).append("\");\n");
            main.append("        block").append(b.line()).append("();\n");
        }
        main.append("        System.out.println(\"== end\");\n    }\n");
        for (Block b : statements) {
            main.append("\n    // README.md:").append(b.line()).append("\n    static void block").append(b.line())
                    .append("() throws Exception {\n").append(b.code().indent(8)).append("    }\n");
        }
        main.append("}\n");
        // a recording perf made elsewhere, with branch stacks, for the README's PerfData example
        Files.copy(ModulePathConsumerIT.ROOT.resolve("hwtool-cli/src/test/resources/perf-corpus/quipper/perf.data.branch-4.14"),
                dir.resolve("perf.data"));
        List<Path> libs = new ArrayList<>(jars);
        libs.add(consumerLib("jfr-converter.jar"));
        Result r = runModule(dir, libs, "requires dev.hwtool.simulator; requires dev.hwtool.perfdata;", main.toString(),
                List.of("--enable-native-access=dev.hwtool.nativeaccess", "--add-modules", "jfr.converter"));
        assertEquals(0, r.exit(), r + "\n" + main);
        assertEquals("", r.err(), "nothing on stderr");
        assertTrue(r.out().endsWith("== end\n"), r.out());
        for (Block b : statements) {
            assertTrue(r.out().contains("== README.md:" + b.line() + "\n"), r.out());
        }
        // what the examples say they leave
        assertTrue(Files.size(dir.resolve("calls.html")) > 0, "the flame graph page");
        assertTrue(Files.size(dir.resolve("sim.data")) > 0, "the recording's perf.data");
    }

    /** Every block that declares a class is a JUnit 5 test of the user's own, and passes. */
    @Test
    void everyTestClassPasses(@TempDir Path dir) throws Exception {
        Map<String, String> sources = new LinkedHashMap<>();
        for (Block b : blocks()) {
            if (b.declaresClass()) {
                Matcher name = Pattern.compile("(?m)^(?:public |final )*class (\\w+)").matcher(b.code());
                assertTrue(name.find(), "README.md:" + b.line() + " names its class");
                sources.put(name.group(1), "package consumer;\n\n" + IMPORTS + """
                        import dev.hwtool.junit.*;
                        import org.junit.jupiter.api.*;
                        import static org.junit.jupiter.api.Assertions.*;

                        """ + b.code());
            }
        }
        assertFalse(sources.isEmpty());
        Result r = runJUnit(dir, sources);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("0 tests failed"), r.out());
        assertFalse(r.out().contains(" 0 tests successful"), r.out());
    }
}
