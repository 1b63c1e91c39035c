package dev.hwtool.record;

/**
 * An address resolved to a function.
 *
 * @param function the ELF symbol's name
 * @param offset   bytes from the symbol's start
 * @param dso      the mapped file's path
 */
public record Symbolized(String function, long offset, String dso) {

    /** "func+0x1a" (or "func" at offset 0). */
    public String describe() {
        return offset == 0 ? function : function + "+0x" + Long.toHexString(offset);
    }
}
