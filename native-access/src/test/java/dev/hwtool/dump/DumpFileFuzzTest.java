package dev.hwtool.dump;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidDump;
import dev.hwtool.arch.cpuid.CpuidLeaf;
import dev.hwtool.arch.cpuid.CpuidRawFormat;
import dev.hwtool.arch.cpuid.CpuidDumpParser;
import dev.hwtool.arch.cpuid.CpuidSnapshot;
import dev.hwtool.io.TerminalText;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Damaged CPUID dump files, read as {@code caps --cpuid-dump} reads them ({@link DumpCpuidSource#load}):
 * every prefix and every single-byte change of a real dump is refused with one line of BAD_INPUT,
 * or read correctly.
 */
class DumpFileFuzzTest {

    /** A real AIDA64 dump (libcpuid's test corpus, see the resources' README) and a cpuid -r one. */
    private static final byte[] AIDA = resource("/dev/hwtool/arch/cpuid/libcpuid/intel-celeron-cpu-g1610.txt");

    @TempDir
    Path dir;

    private static byte[] resource(String name) {
        try (InputStream in = DumpFileFuzzTest.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final CpuidDump ORIGINAL = CpuidDumpParser.parse("original", new String(AIDA, StandardCharsets.US_ASCII));

    private static Map<Long, CpuidLeaf> leaves(CpuidSnapshot s) {
        Map<Long, CpuidLeaf> m = new HashMap<>();
        for (CpuidLeaf l : s.leaves()) {
            m.put((Integer.toUnsignedLong(l.leaf()) << 32) | l.subleaf(), l);
        }
        return m;
    }

    /** Loads {@code bytes} as a dump file: null when refused (checked to be one clean line), else the dump. */
    private static CpuidDump loadOrRefused(Path f, byte[] bytes) throws IOException {
        Files.write(f, bytes);
        try {
            return DumpCpuidSource.load(f).dump();
        } catch (HwException e) {
            assertEquals(Cause.BAD_INPUT, e.cause(), e.getMessage());
            assertEquals(1, e.getMessage().lines().count(), e.getMessage());
            assertFalse(TerminalText.needsQuoting(e.getMessage()), e.getMessage());
            assertTrue(e.getMessage().startsWith(f.toString()) || e.getMessage().startsWith("cannot read " + f), e.getMessage());
            return null;
        }
    }

    /** A prefix that reads is the original's first CPUs, each with some of its leaves, none of them changed. */
    @Test
    void everyPrefixIsRefusedOrReadsAsPartOfTheOriginal() throws IOException {
        Path f = dir.resolve("prefix.txt");
        int firstLeafEnd = new String(AIDA, StandardCharsets.US_ASCII).indexOf('\n',
                new String(AIDA, StandardCharsets.US_ASCII).indexOf("CPUID ")) + 1;
        int read = 0;
        for (int n = 0; n <= AIDA.length; n++) {
            CpuidDump d = loadOrRefused(f, Arrays.copyOf(AIDA, n));
            if (n >= firstLeafEnd && AIDA[n - 1] == '\n') {
                assertTrue(d != null, "a prefix of whole lines with a leaf reads: cut at " + n);
            }
            if (d == null) {
                continue;
            }
            read++;
            assertTrue(d.cpus().size() <= ORIGINAL.cpus().size());
            for (int i = 0; i < d.cpus().size(); i++) {
                CpuidSnapshot got = d.cpus().get(i);
                CpuidSnapshot want = ORIGINAL.cpus().get(i);
                assertEquals(want.cpu(), got.cpu(), "cut at " + n);
                Map<Long, CpuidLeaf> all = leaves(want);
                for (CpuidLeaf l : got.leaves()) {
                    assertEquals(all.get((Integer.toUnsignedLong(l.leaf()) << 32) | l.subleaf()), l, "cut at " + n);
                }
            }
        }
        assertTrue(read >= AIDA.length - new String(AIDA, StandardCharsets.US_ASCII).replace("\n", "").length() - 1,
                "at least every whole-line prefix reads: " + read);
        assertEquals(ORIGINAL.cpus(), loadOrRefused(f, AIDA).cpus());
    }

    /** The most subleaves any leaf of any CPU has in {@code d}. */
    private static int maxSubleaves(CpuidDump d) {
        int max = 1;
        for (CpuidSnapshot c : d.cpus()) {
            Map<Integer, Integer> n = new java.util.HashMap<>();
            for (CpuidLeaf l : c.leaves()) {
                max = Math.max(max, n.merge(l.leaf(), 1, Integer::sum));
            }
        }
        return max;
    }

    /** A changed byte is refused, or the dump reads and writes back as cpuid -r text that reads the same. */
    @Property(tries = 2000)
    void everySingleByteChangeIsRefusedOrReadConsistently(@ForAll @IntRange(min = 0, max = 100_000) int at,
                                                          @ForAll byte value) throws IOException {
        byte[] b = AIDA.clone();
        b[at % b.length] = value;
        Path tmp = Files.createTempDirectory("dump-fuzz");
        Path f = tmp.resolve("d.txt");
        try {
            CpuidDump d = loadOrRefused(f, b);
            if (d != null) {
                assertEquals(d.cpus(), CpuidDumpParser.parse("again", CpuidRawFormat.format(d.cpus())).cpus());
                int changed = 0;
                for (int i = 0; i < Math.min(d.cpus().size(), ORIGINAL.cpus().size()); i++) {
                    Map<Long, CpuidLeaf> want = leaves(ORIGINAL.cpus().get(i));
                    for (CpuidLeaf l : d.cpus().get(i).leaves()) {
                        if (!l.equals(want.get((Integer.toUnsignedLong(l.leaf()) << 32) | l.subleaf()))) {
                            changed++;
                        }
                    }
                }
                // AIDA64 numbers the subleaves of a leaf by their order (CPUID 00000004 four times is
                // subleaves 0..3), so a byte that moves one line to another leaf renumbers the rest
                // of its leaf: at most one leaf's subleaves, plus the line that moved.
                int bound = maxSubleaves(ORIGINAL) + 1;
                assertTrue(changed <= bound, "one byte changes at most one leaf's subleaves (" + bound + "): " + changed);
            }
        } finally {
            Files.deleteIfExists(f);
            Files.delete(tmp);
        }
    }
}
