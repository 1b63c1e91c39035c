package dev.hwtool.arch.cpuid;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * One textual layout of a CPUID dump: how its CPU headers and its leaf lines look. The
 * parser ({@link CpuidDumpParser}) picks the layout from the first significant line and
 * then holds every further line to it. Lines given to these methods are already stripped
 * of leading and trailing white space.
 */
sealed interface DumpLayout permits RawDumpLayout, AidaDumpLayout {

    /** Human name of the layout, for messages. */
    String name();

    /** The CPU this line opens, if it is a CPU header of this layout. */
    Optional<Header> header(String line);

    /** Whether the line claims to be a leaf line; if so it must parse, or the dump is bad. */
    boolean looksLikeLeaf(String line);

    /** Parses a line for which {@link #looksLikeLeaf} holds. @throws BadLine saying what is wrong */
    LeafLine parseLeaf(String line);

    /**
     * A CPU header. {@code numbered} is false for the {@code CPU:} header of {@code cpuid -1 -r},
     * which does not say which CPU it ran on (read as CPU 0).
     */
    record Header(int cpu, boolean numbered) {
    }

    /** A parsed leaf line; an empty subleaf means "the next subleaf of a repeated leaf, else 0". */
    record LeafLine(int leaf, OptionalInt subleaf, CpuidRegs regs) {
    }

    /** A line that claims to be a leaf line and is not a well-formed one. */
    final class BadLine extends RuntimeException {
        BadLine(String problem) {
            super(problem, null, false, false);
        }
    }

    /** Exactly {@code min..max} hex digits (either case) as an unsigned 32-bit value. */
    static int hex(String digits, int min, int max, String what) {
        boolean ok = digits.length() >= min && digits.length() <= max;
        for (int i = 0; ok && i < digits.length(); i++) {
            ok = Character.digit(digits.charAt(i), 16) >= 0;
        }
        if (!ok) {
            String want = min == max ? min + " hex digits" : min + " to " + max + " hex digits";
            throw new BadLine("bad hex " + DumpLayout.quote(digits) + " for " + what + " (expected " + want + ")");
        }
        return Integer.parseUnsignedInt(digits, 16);
    }

    /**
     * A value of exactly 8 hex digits. If it is the last thing on its line and merely short,
     * the line was cut off, and the message says so.
     */
    static int hex8(String digits, String what, boolean lastOnLine) {
        boolean allHex = !digits.isEmpty();
        for (int i = 0; allHex && i < digits.length(); i++) { // a loop, not a stream: four per leaf line
            allHex = Character.digit(digits.charAt(i), 16) >= 0;
        }
        if (lastOnLine && allHex && digits.length() < 8) {
            throw new BadLine("truncated leaf line: " + what + " has " + digits.length() + " of 8 hex digits");
        }
        return hex(digits, 8, 8, what);
    }

    /** The line for a message: quoted, and cut short if long. */
    static String quote(String line) {
        return "'" + (line.length() > 72 ? line.substring(0, 69) + "..." : line) + "'";
    }
}
