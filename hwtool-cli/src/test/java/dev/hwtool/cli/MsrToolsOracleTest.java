package dev.hwtool.cli;

import dev.hwtool.cli.MsrToolsFormat.Base;
import dev.hwtool.cli.MsrToolsFormat.Style;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * The formatter against msr-tools' own rdmsr, byte for byte: rdmsr reads a fake /dev/cpu (sparse
 * files whose bytes at offset = MSR index are the value, as the msr driver serves them) bind-mounted
 * in a private mount namespace, for every output option, -f field and a spread of values.
 * Needs /usr/sbin/rdmsr (Debian msr-tools) and unshare(1) with CAP_SYS_ADMIN.
 */
class MsrToolsOracleTest {

    private static final long[] VALUES = {0, 0x4801, 0xF, 0x80, -1L, Long.MIN_VALUE, Long.MAX_VALUE,
            0x0102030405060708L, 0xDEADBEEFCAFEF00DL, 0x0000_0001_8000_0000L};
    private static final String[] STYLES = {"", "-x", "-X", "-c", "-0", "-c0", "-Xc0", "-o", "-oc", "-o0", "-oc0",
            "-u", "-uc", "-u0", "-u0c", "-d", "-d0", "-dc", "-dc0", "-r", "-rc", "-r0", "-xo", "-ox", "-dX"};
    private static final String[] FIELDS = {null, "7:0", "15:4", "63:63", "3:0", "62:1", "40:33"};

    @Test
    void everyOutputOptionMatchesRdmsrByteForByte(@TempDir Path dir) throws Exception {
        Require.tool("/usr/sbin/rdmsr");
        Require.tool("/usr/bin/unshare");
        dev.hwtool.testing.Preconditions.privileged(canUnshare(), "unshare -m needs CAP_SYS_ADMIN (run as root, not in an unprivileged container)");
        Path cpu = dir.resolve("cpu/0");
        Files.createDirectories(cpu);
        try (RandomAccessFile f = new RandomAccessFile(cpu.resolve("msr").toFile(), "rw")) {
            for (int i = 0; i < VALUES.length; i++) {
                f.seek(register(i));
                f.write(littleEndian(VALUES[i]));
            }
        }
        Path outDir = Files.createDirectories(dir.resolve("out"));
        StringBuilder script = new StringBuilder("set -e\nmount --bind '" + dir.resolve("cpu") + "' /dev/cpu\n");
        List<Case> cases = new ArrayList<>();
        for (int i = 0; i < VALUES.length; i++) {
            for (String s : STYLES) {
                for (String field : FIELDS) {
                    Case c = new Case(cases.size(), VALUES[i], register(i), s, field);
                    cases.add(c);
                    script.append("/usr/sbin/rdmsr ").append(s.isEmpty() ? "" : s + " ")
                            .append(field == null ? "" : "-f " + field + " ")
                            .append(String.format("0x%x", c.register)).append(" > '").append(outDir.resolve(String.valueOf(c.id))).append("'\n");
                }
            }
        }
        Path sh = dir.resolve("run.sh");
        Files.writeString(sh, script);
        Process p = new ProcessBuilder("unshare", "-m", "sh", sh.toString()).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), log);

        int compared = 0;
        for (Case c : cases) {
            byte[] theirs = Files.readAllBytes(outDir.resolve(String.valueOf(c.id)));
            byte[] ours = MsrToolsFormat.format(c.value, c.style(), null);
            String what = "rdmsr " + c.options + (c.field == null ? "" : " -f " + c.field) + " of 0x" + Long.toHexString(c.value);
            Style st = c.style();
            boolean negative = st.base() == Base.SIGNED_DECIMAL && ((c.value >>> st.highBit()) & 1) == 1;
            if (negative) {
                // The one deliberate difference: msr-tools clears the sign bit and negates the rest.
                long field = MsrToolsFormat.field(c.value, st.highBit(), st.lowBit());
                long buggy = -(field & ~(1L << (st.bits() - 1)));
                assertEquals(buggy, Long.parseLong(new String(theirs).trim()), what + " (msr-tools' sign handling)");
                assertNotEquals(new String(theirs), new String(ours), what);
                continue;
            }
            assertArrayEquals(theirs, ours, what + ": msr-tools '" + new String(theirs).trim() + "', hwtool '" + new String(ours).trim() + "'");
            compared++;
        }
        assertEquals(true, compared > cases.size() / 2, compared + " of " + cases.size());
    }

    private record Case(int id, long value, long register, String options, String field) {
        Style style() {
            Style s = Style.DEFAULT;
            for (char ch : options.toCharArray()) {
                s = switch (ch) {
                    case 'x' -> s.withBase(Base.HEX);
                    case 'X' -> s.withBase(Base.CAPITAL_HEX);
                    case 'o' -> s.withBase(Base.OCTAL);
                    case 'u' -> s.withBase(Base.UNSIGNED_DECIMAL);
                    case 'd' -> s.withBase(Base.SIGNED_DECIMAL);
                    case 'r' -> s.withBase(Base.RAW);
                    case 'c' -> s.withC();
                    case '0' -> s.withFill();
                    default -> s;
                };
            }
            if (field != null) {
                String[] hl = field.split(":");
                s = s.withBits(Integer.parseInt(hl[0]), Integer.parseInt(hl[1]));
            }
            return s;
        }
    }

    private static long register(int i) {
        return 0x1000 + 16L * i;
    }

    private static byte[] littleEndian(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }

    private static boolean canUnshare() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("unshare", "-m", "true").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor() == 0;
    }
}
