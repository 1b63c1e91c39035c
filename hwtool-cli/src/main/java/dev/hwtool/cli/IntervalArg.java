package dev.hwtool.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A sampling interval: a number with a unit ({@code 500ms}, {@code 1s}, {@code 1.5s}, {@code 2m},
 * {@code 250us}), or a bare number of seconds as turbostat's {@code -i} takes it. At least 1 ms
 * (below that, the time to read the registers is the interval), at most 24 h.
 */
final class IntervalArg implements ITypeConverter<Duration> {

    static final Duration MIN = Duration.ofMillis(1);
    static final Duration MAX = Duration.ofHours(24);

    private static final Pattern FORM = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|ms|s|m|h)?");
    private static final Map<String, Long> NANOS = Map.of("ns", 1L, "us", 1_000L, "ms", 1_000_000L,
            "s", 1_000_000_000L, "m", 60_000_000_000L, "h", 3_600_000_000_000L);

    @Override
    public Duration convert(String s) {
        return parse(s);
    }

    static Duration parse(String s) {
        Matcher m = FORM.matcher(s.trim());
        if (!m.matches()) {
            throw new TypeConversionException("'" + s + "' is not a duration (e.g. 1s, 500ms, 0.25s, 2m, or seconds: 0.5)");
        }
        String unit = m.group(2) == null ? "s" : m.group(2);
        BigDecimal nanos = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(NANOS.get(unit)));
        if (nanos.compareTo(BigDecimal.valueOf(MIN.toNanos())) < 0 || nanos.compareTo(BigDecimal.valueOf(MAX.toNanos())) > 0) {
            throw new TypeConversionException("'" + s + "' is out of range (1ms to 24h)");
        }
        return Duration.ofNanos(nanos.longValue());
    }
}
