package dev.hwtool.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The three forms of {@code hwtool msr watch} rows. Raw values are 64-bit hex (0x%016x), deltas
 * unsigned decimal. Text: aligned columns under a header (elapsed seconds, CPU, one column per
 * register). CSV: a header line, then {@code timestamp,elapsed_s,cpu,REG...}. JSON: one object
 * per line ({@code timestamp, elapsed_s, cpu, simulated, delta, values}).
 */
enum WatchOutput {
    TEXT, CSV, JSON;

    private static final com.fasterxml.jackson.jr.ob.JSON LINE =
            com.fasterxml.jackson.jr.ob.JSON.std.with(com.fasterxml.jackson.jr.ob.JSON.Feature.WRITE_NULL_PROPERTIES);

    /** One row: CPU {@code cpu} sampled at {@code time}, {@code elapsedNanos} after the watch began. */
    record Row(Instant time, long elapsedNanos, int cpu, long[] values) {
    }

    /** The header line(s), or "" for JSON lines. */
    String header(List<String> registers, boolean delta) {
        return switch (this) {
            case TEXT -> {
                StringBuilder b = new StringBuilder(String.format("%10s %4s", "TIME(s)", "CPU"));
                for (String r : registers) {
                    b.append("  ").append(String.format("%" + width(r) + "s", r));
                }
                yield b.append('\n').toString();
            }
            case CSV -> "timestamp,elapsed_s,cpu," + String.join(",", registers) + "\n";
            case JSON -> "";
        };
    }

    String row(List<String> registers, boolean delta, boolean simulated, Row row) {
        double elapsed = row.elapsedNanos() / 1e9;
        return switch (this) {
            case TEXT -> {
                StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%10.3f %4d", elapsed, row.cpu()));
                for (int i = 0; i < registers.size(); i++) {
                    b.append("  ").append(String.format("%" + width(registers.get(i)) + "s", value(row.values()[i], delta)));
                }
                yield b.append('\n').toString();
            }
            case CSV -> {
                StringBuilder b = new StringBuilder(row.time().toString()).append(',')
                        .append(String.format(Locale.ROOT, "%.6f", elapsed)).append(',').append(row.cpu());
                for (long v : row.values()) {
                    b.append(',').append(value(v, delta));
                }
                yield b.append('\n').toString();
            }
            case JSON -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("timestamp", row.time().toString());
                // microseconds, written as a plain decimal (a double would print 4.8E-5)
                m.put("elapsed_s", java.math.BigDecimal.valueOf(row.elapsedNanos() / 1000, 6));
                m.put("cpu", row.cpu());
                m.put("simulated", simulated);
                m.put("delta", delta);
                Map<String, Object> values = new LinkedHashMap<>();
                for (int i = 0; i < registers.size(); i++) {
                    long v = row.values()[i];
                    values.put(registers.get(i), delta ? MsrDecodeCommand.unsigned(v) : Numbers.hex64(v));
                }
                m.put("values", values);
                yield compact(m) + "\n";
            }
        };
    }

    /** One JSON object on one line (JSON lines); Json.write pretty-prints over several. */
    private static String compact(Map<String, Object> m) {
        try {
            return LINE.asString(m);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int width(String register) {
        return Math.max(register.length(), 18);
    }

    private static String value(long v, boolean delta) {
        return delta ? Long.toUnsignedString(v) : Numbers.hex64(v);
    }
}
