package dev.hwtool.exporter;

/**
 * A counter narrower than 64 bits made monotonic: each reading's increase is taken modulo
 * 2^{@code bits}, so a wrap-around (RAPL's 32-bit TOTAL_ENERGY_CONSUMED wraps after minutes to
 * hours, SDM Vol. 3B 14.9.3) adds what was really counted instead of looking like a reset to
 * Prometheus' {@code rate()}. Correct as long as the counter advances by less than 2^bits between
 * two readings. Starts at the first reading, so the total is the register's own count until it
 * first wraps. Not thread-safe: the collector reads serially.
 */
public final class WrapAccumulator {

    private final long mask;
    private long last;
    private long total;
    private boolean started;

    /** @param bits the counter's real width, 1..63 */
    public WrapAccumulator(int bits) {
        if (bits < 1 || bits > 63) {
            throw new IllegalArgumentException("counter width " + bits + " outside 1..63");
        }
        this.mask = (1L << bits) - 1;
    }

    /** Takes a raw reading (bits above the width ignored) and returns the running total. */
    public long add(long raw) {
        long v = raw & mask;
        if (!started) {
            started = true;
            total = v;
        } else {
            total += (v - last) & mask;
        }
        last = v;
        return total;
    }
}
