package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** hwtool caps --nfd: Node Feature Discovery feature-file lines. */
class CapsNfdTest {

    /** A DNS-subdomain prefix, '/', a name; '=' a value (Kubernetes label syntax). */
    private static final Pattern LINE = Pattern.compile("hwtool\\.dev/([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)"
            + "=(([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?)");

    @TempDir
    Path dir;

    private static List<String> labels(String out) {
        List<String> lines = out.lines().filter(l -> !l.startsWith("#")).toList();
        for (String l : lines) {
            assertTrue(LINE.matcher(l).matches(), "not a valid label line: '" + l + "'");
        }
        return lines;
    }

    @Test
    void everyLineIsAValidLabelAndTheCpuIsNamed() {
        Run r = Run.of("caps", "--nfd", "--backend", "sim", "--profile", "skylake");
        assertEquals(0, r.exit(), r::toString);
        List<String> lines = labels(r.out());
        assertTrue(r.out().startsWith("# hwtool caps --nfd: "), r.out());
        for (String expected : List.of("hwtool.dev/vendor=genuineintel", "hwtool.dev/family=6", "hwtool.dev/model=94",
                "hwtool.dev/microarchitecture=skylake", "hwtool.dev/perfmon-version=4", "hwtool.dev/lbr-depth=32",
                "hwtool.dev/simulated=true", "hwtool.dev/cpuid=true")) {
            assertTrue(lines.contains(expected), expected + " missing:\n" + r.out());
        }
        for (String f : List.of("msr-read", "msr-write", "lbr-perf", "bts-perf", "hw-counters", "rdpmc", "pebs-perf")) {
            String usable = lines.stream().filter(l -> l.startsWith("hwtool.dev/" + f + "=")).findFirst().orElseThrow();
            boolean hasCause = lines.stream().anyMatch(l -> l.startsWith("hwtool.dev/" + f + "-cause="));
            assertEquals(usable.endsWith("=false"), hasCause, "a cause exactly when unusable: " + f + "\n" + r.out());
        }
    }

    @Test
    void multiWordNamesBecomeLabelValues() {
        Run r = Run.of("caps", "--nfd", "--backend", "sim", "--profile", "alderlake");
        assertEquals(0, r.exit(), r::toString);
        List<String> lines = labels(r.out());
        assertTrue(lines.contains("hwtool.dev/hybrid=true"), r.out());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("hwtool.dev/microarchitecture=alder-lake")), r.out());
        assertEquals("kvmkvmkvm", NfdLabels.value("KVMKVMKVM\0\0\0".replace('\0', ' ')));
        assertEquals("a-b", NfdLabels.value("  (a / b)  "));
        assertEquals(63, NfdLabels.value("x".repeat(80)).length());
    }

    @Test
    void outputFileIsWrittenWholeAndNothingPrinted() throws Exception {
        Path file = dir.resolve("features.d/hwtool");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "old\n");
        Run r = Run.of("caps", "--nfd", "--backend", "sim", "--profile", "skylake", "-o", file.toString());
        assertEquals(0, r.exit(), r::toString);
        assertEquals("", r.out());
        assertEquals(Run.of("caps", "--nfd", "--backend", "sim", "--profile", "skylake").out(), Files.readString(file));
        try (var listing = Files.list(file.getParent())) {
            assertEquals(List.of(file), listing.toList(), "no temporary file left beside it");
        }
    }

    @Test
    void misuseIsAUsageError() {
        assertEquals(2, Run.of("caps", "--nfd", "--json", "--backend", "sim", "--profile", "skylake").exit());
        assertEquals(2, Run.of("caps", "-o", dir.resolve("x").toString(), "--backend", "sim", "--profile", "skylake").exit());
        Run r = Run.of("caps", "--nfd", "--backend", "sim", "--profile", "skylake", "-o", "/proc/version/x");
        assertEquals(13, r.exit(), r::toString);
        assertFalse(r.err().contains("Exception"), r.err());
    }
}
