package dev.hwtool.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's performance section states only figures of the run that benchmarks/results.md
 * holds: its table is that file's targets table, verbatim, its machine line is the run's, and
 * every measured figure in it (a decimal, or a number with a unit) occurs in that file.
 */
class ReadmeFiguresTest {

    static final Path ROOT = Path.of(System.getProperty("hwtool.root.dir", "..")).toAbsolutePath().normalize();
    private static final Pattern FIGURE = Pattern.compile(
            "(?<![\\w.])(\\d[\\d ]*\\d|\\d)(\\.\\d+)?(?= ?(ns|µs|ms|M/s|M records/s|M branches/s|×|B\\b))|(?<![\\w.-])\\d+\\.\\d+");

    static String bench() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        int a = readme.indexOf("<!-- BENCH:START -->");
        int b = readme.indexOf("<!-- BENCH:END -->");
        assertTrue(a >= 0 && b > a, "README.md has its BENCH:START/END markers");
        return readme.substring(a, b);
    }

    static String results() throws IOException {
        return Files.readString(ROOT.resolve("benchmarks/results.md"));
    }

    static List<String> tableAfter(String text, String heading) {
        int i = heading == null ? 0 : text.indexOf(heading);
        assertTrue(i >= 0, heading);
        List<String> rows = new ArrayList<>();
        for (String line : text.substring(i).split("\n")) {
            if (line.startsWith("|")) {
                rows.add(line);
            } else if (!rows.isEmpty()) {
                break;
            }
        }
        return rows;
    }

    @Test
    void theTableIsResultsMdsTargetsTableVerbatim() throws IOException {
        List<String> ours = tableAfter(bench(), null);
        List<String> theirs = tableAfter(results(), "## Targets");
        assertTrue(theirs.size() > 2, "results.md has a targets table");
        assertEquals(theirs, ours);
    }

    @Test
    void theMachineIsTheRunsMachine() throws IOException {
        String machine = results().lines().filter(l -> l.startsWith("Machine: ")).findFirst().orElseThrow();
        assertTrue(bench().contains(machine), "the README quotes " + machine);
    }

    @Test
    void everyFigureIsInResultsMd() throws IOException {
        String results = results();
        Matcher m = FIGURE.matcher(bench());
        List<String> missing = new ArrayList<>();
        int found = 0;
        while (m.find()) {
            found++;
            String figure = m.group().strip();
            if (!results.contains(figure)) {
                missing.add(figure);
            }
        }
        assertTrue(found > 20, "figures found: " + found);
        assertEquals(List.of(), missing, "figures in README's performance section that benchmarks/results.md does not hold");
    }
}
