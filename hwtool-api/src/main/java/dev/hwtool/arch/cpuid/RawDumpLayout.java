package dev.hwtool.arch.cpuid;

import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The layout {@code cpuid -r} prints (Todd Allen's cpuid, {@code print_reg_raw()} in cpuid.c):
 * <pre>
 * CPU 0:                       (cpuid -r; "CPU:" for cpuid -1 -r)
 *    0x00000007 0x00: eax=0x00000001 ebx=0xf1bf07ab ecx=0x00405fc6 edx=0x00000110
 * </pre>
 * The leaf and the registers are always printed with 8 hex digits ({@code %08x}) and the
 * subleaf with at least 2 ({@code %02x}); anything shorter is read as a cut-off line. The
 * legacy form without a subleaf column ({@code    0x00000004: eax=...}), which
 * {@code cpuid -f} still reads, is accepted: a repeated leaf is its next subleaf, as in
 * cpuid.c's {@code do_file()}.
 */
final class RawDumpLayout implements DumpLayout {

    private static final Pattern HEADER = Pattern.compile("CPU(?: (\\d{1,9}))?:");
    private static final String[] REGS = {"eax", "ebx", "ecx", "edx"};

    @Override
    public String name() {
        return "cpuid -r";
    }

    @Override
    public Optional<Header> header(String line) {
        if (!line.startsWith("CPU")) { // as HEADER must; most lines are leaf lines
            return Optional.empty();
        }
        Matcher m = HEADER.matcher(line);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(m.group(1) == null
                ? new Header(0, false)
                : new Header(Integer.parseInt(m.group(1)), true));
    }

    @Override
    public boolean looksLikeLeaf(String line) {
        return line.startsWith("0x") || line.startsWith("0X");
    }

    @Override
    public LeafLine parseLeaf(String line) {
        String[] t = line.split("[ \\t]+");
        int leaf;
        OptionalInt subleaf;
        int next;
        if (t[0].endsWith(":")) {
            leaf = DumpLayout.hex(t[0].substring(2, t[0].length() - 1), 8, 8, "the leaf");
            subleaf = OptionalInt.empty();
            next = 1;
        } else {
            leaf = DumpLayout.hex(t[0].substring(2), 8, 8, "the leaf");
            if (t.length < 2) {
                throw new BadLine("truncated leaf line: nothing after the leaf");
            }
            if (!t[1].startsWith("0x") || !t[1].endsWith(":")) {
                throw new BadLine("expected the subleaf '0x..:' after the leaf, found " + DumpLayout.quote(t[1]));
            }
            subleaf = OptionalInt.of(DumpLayout.hex(t[1].substring(2, t[1].length() - 1), 2, 8, "the subleaf"));
            next = 2;
        }
        int[] v = new int[4];
        for (int i = 0; i < 4; i++, next++) {
            String prefix = REGS[i] + "=0x";
            if (next >= t.length) {
                throw new BadLine("truncated leaf line: " + String.join(", ", Arrays.copyOfRange(REGS, i, 4))
                        + " missing");
            }
            if (!t[next].startsWith(prefix)) {
                if (next == t.length - 1 && prefix.startsWith(t[next])) {
                    throw new BadLine("truncated leaf line: ends in " + DumpLayout.quote(t[next]));
                }
                throw new BadLine("expected " + prefix + "..., found " + DumpLayout.quote(t[next]));
            }
            v[i] = DumpLayout.hex8(t[next].substring(prefix.length()), REGS[i], next == t.length - 1);
        }
        if (next < t.length) {
            throw new BadLine("unexpected text after edx: " + DumpLayout.quote(t[next]));
        }
        return new LeafLine(leaf, subleaf, new CpuidRegs(v[0], v[1], v[2], v[3]));
    }
}
