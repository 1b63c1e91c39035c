package dev.hwtool.arch.cpuid;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The AIDA64 / InstLatx64 layouts (as in libcpuid's test dumps), both of which are read:
 * <pre>
 * ------[ Logical CPU #0 ]------                      (or "------[ CPUID Registers / Logical CPU #1 Virtual ]------",
 * CPUID 00000004: FC004121-02C0003F-0000003F-00000000 [SL 00] [L1D: 48 KB]   or "CPU#001 AffMask: 0x0000000000000002")
 *
 * CPUID Registers (CPU #2 Virtual):                   (older layout; the qualifier word is optional)
 * CPUID 00000004  &lt;TAB&gt;1C004121-01C0003F-0000003F-00000000
 * </pre>
 * Every value has exactly 8 hex digits. {@code [SL nn]} gives the subleaf in hex; without it a
 * leaf repeated on consecutive lines is the next subleaf. Anything after the registers and the
 * optional {@code [SL nn]} is a comment and must start with {@code [}.
 */
final class AidaDumpLayout implements DumpLayout {

    private static final Pattern NEW_HEADER =
            Pattern.compile("-+\\[ (?:CPUID Registers / )?Logical CPU #(\\d{1,9})(?: [A-Za-z]+)? ]-+");
    /**
     * A section headed by the CPU's Windows affinity mask within its processor group of 64 (as in
     * libcpuid's tests/amd/zen2/amd-ryzen-7-3800xt-8-core-processor.test). Where the number and the
     * mask disagree, the mask is right: tests/intel/x86-64/sandy-bridge/intel-celeron-cpu-g1610.test
     * heads both CPUs {@code CPU#000}, with masks 0x1 and 0x2.
     */
    private static final Pattern AFFINITY_HEADER =
            Pattern.compile("CPU#(\\d{1,9}) AffMask: 0x([0-9A-Fa-f]{1,16})");
    private static final Pattern OLD_HEADER =
            Pattern.compile("CPUID Registers \\(CPU #(\\d{1,9})(?: [A-Za-z]+)?\\):");
    private static final Pattern SUBLEAF_TAG = Pattern.compile("\\[SL ([^]]*)]");
    private static final String[] REGS = {"eax", "ebx", "ecx", "edx"};

    @Override
    public String name() {
        return "AIDA64/InstLatx64";
    }

    @Override
    public Optional<Header> header(String line) {
        // Every header starts with one of these (the patterns match whole lines): most lines are
        // leaf lines, and three regex matches each are most of a profile's parse in a fresh JVM.
        if (!line.startsWith("-") && !line.startsWith("CPUID Registers (") && !line.startsWith("CPU#")) {
            return Optional.empty();
        }
        for (Pattern p : new Pattern[] {NEW_HEADER, OLD_HEADER}) {
            Matcher m = p.matcher(line);
            if (m.matches()) {
                return Optional.of(new Header(Integer.parseInt(m.group(1)), true));
            }
        }
        Matcher m = AFFINITY_HEADER.matcher(line);
        if (m.matches()) {
            int number = Integer.parseInt(m.group(1));
            long mask = Long.parseUnsignedLong(m.group(2), 16);
            int cpu = Long.bitCount(mask) == 1 ? number - number % 64 + Long.numberOfTrailingZeros(mask) : number;
            return Optional.of(new Header(cpu, true));
        }
        return Optional.empty();
    }

    @Override
    public boolean looksLikeLeaf(String line) {
        return line.startsWith("CPUID ");
    }

    @Override
    public LeafLine parseLeaf(String line) {
        String rest = line.substring("CPUID ".length());
        int leafEnd = 0;
        while (leafEnd < rest.length() && Character.digit(rest.charAt(leafEnd), 16) >= 0) {
            leafEnd++;
        }
        int leaf = DumpLayout.hex(rest.substring(0, leafEnd), 8, 8, "the leaf");
        rest = rest.substring(leafEnd);
        if (rest.startsWith(":")) {            // "CPUID 00000004: ..."
            rest = rest.substring(1);
        }
        if (rest.isEmpty()) {
            throw new BadLine("truncated leaf line: no registers after the leaf");
        }
        if (!Character.isWhitespace(rest.charAt(0))) {
            throw new BadLine("expected ':' or white space after the leaf, found " + DumpLayout.quote(String.valueOf(rest.charAt(0))));
        }
        rest = rest.strip();
        int regsEnd = 0;
        while (regsEnd < rest.length() && !Character.isWhitespace(rest.charAt(regsEnd))) {
            regsEnd++;
        }
        CpuidRegs regs = registers(rest.substring(0, regsEnd), regsEnd == rest.length());
        rest = rest.substring(regsEnd).strip();
        OptionalInt subleaf = OptionalInt.empty();
        Matcher sl = SUBLEAF_TAG.matcher(rest);
        if (sl.lookingAt()) {
            subleaf = OptionalInt.of(DumpLayout.hex(sl.group(1), 1, 8, "the subleaf"));
            rest = rest.substring(sl.end()).strip();
        } else if (rest.startsWith("[SL")) {
            throw new BadLine("garbled subleaf tag " + DumpLayout.quote(rest));
        }
        if (!rest.isEmpty() && !rest.startsWith("[")) {
            throw new BadLine("unexpected text after the registers: " + DumpLayout.quote(rest));
        }
        return new LeafLine(leaf, subleaf, regs);
    }

    private static CpuidRegs registers(String field, boolean lastOnLine) {
        String[] parts = field.split("-", -1);
        if (parts.length < 4) {
            if (lastOnLine) {
                throw new BadLine("truncated leaf line: " + parts.length + " of 4 registers");
            }
            throw new BadLine("expected 4 registers as eax-ebx-ecx-edx, found " + DumpLayout.quote(field));
        }
        if (parts.length > 4) {
            throw new BadLine("more than 4 registers in " + DumpLayout.quote(field));
        }
        int[] v = new int[4];
        for (int i = 0; i < 4; i++) {
            v[i] = DumpLayout.hex8(parts[i], REGS[i], lastOnLine && i == 3);
        }
        return new CpuidRegs(v[0], v[1], v[2], v[3]);
    }
}
