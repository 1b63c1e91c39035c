package dev.hwtool.arch.perf.abi;

import java.util.Locale;
import java.util.Map;

/**
 * A sysfs PMU event turned into attr config words. An event file
 * (/sys/bus/event_source/devices/PMU/events/NAME) holds terms such as {@code event=0x3c,umask=0x01};
 * each term's format file (PMU/format/TERM) says where its bits go, e.g. {@code config:0-7} or
 * {@code config1:0-3,8-11} (Documentation/ABI/testing/sysfs-bus-event_source-devices-format and
 * -events). A term without a value means 1.
 *
 * @param config the config, config1, config2, config3 words
 */
public record PmuEventSpec(String pmu, String event, int type, long config, long config1, long config2, long config3) {

    /**
     * @param formats term name → format file text
     * @throws IllegalArgumentException for a term without a format, or a malformed term/format
     */
    public static PmuEventSpec parse(String pmu, String event, int type, String eventText, Map<String, String> formats) {
        long[] words = new long[4];
        String text = eventText.strip();
        if (text.isEmpty()) {
            throw new IllegalArgumentException(pmu + "/" + event + ": empty event definition");
        }
        for (String term : text.split(",")) {
            String t = term.strip();
            int eq = t.indexOf('=');
            String name = (eq < 0 ? t : t.substring(0, eq)).strip();
            long value = eq < 0 ? 1 : number(pmu, event, t.substring(eq + 1).strip());
            String format = formats.get(name);
            if (format == null) {
                if (name.matches("config[123]?")) { // a raw config word
                    format = name + ":0-63";
                } else {
                    throw new IllegalArgumentException(pmu + "/" + event + ": term '" + name + "' has no format file");
                }
            }
            place(pmu, event, format.strip(), value, words);
        }
        return new PmuEventSpec(pmu, event, type, words[0], words[1], words[2], words[3]);
    }

    private static long number(String pmu, String event, String s) {
        try {
            String l = s.toLowerCase(Locale.ROOT);
            return l.startsWith("0x") ? Long.parseUnsignedLong(l.substring(2), 16) : Long.parseUnsignedLong(l);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(pmu + "/" + event + ": value '" + s + "' is not a number");
        }
    }

    /** "config1:0-7,32-35": the value's low bits fill the listed ranges in order. */
    private static void place(String pmu, String event, String format, long value, long[] words) {
        int colon = format.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException(pmu + "/" + event + ": format '" + format + "' lacks ':'");
        }
        String word = format.substring(0, colon);
        int w = switch (word) {
            case "config" -> 0;
            case "config1" -> 1;
            case "config2" -> 2;
            case "config3" -> 3;
            default -> throw new IllegalArgumentException(pmu + "/" + event + ": unknown config word '" + word + "'");
        };
        long v = value;
        for (String range : format.substring(colon + 1).split(",")) {
            String[] lh = range.strip().split("-");
            int lo;
            int hi;
            try {
                lo = Integer.parseInt(lh[0]);
                hi = lh.length > 1 ? Integer.parseInt(lh[1]) : lo;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(pmu + "/" + event + ": bad bit range '" + range + "'");
            }
            if (lo < 0 || hi > 63 || hi < lo) {
                throw new IllegalArgumentException(pmu + "/" + event + ": bad bit range '" + range + "'");
            }
            int width = hi - lo + 1;
            long mask = width == 64 ? -1L : (1L << width) - 1;
            words[w] |= (v & mask) << lo;
            v = width == 64 ? 0 : v >>> width;
        }
        if (v != 0) {
            throw new IllegalArgumentException(pmu + "/" + event + ": value 0x" + Long.toHexString(value)
                    + " does not fit format '" + format + "'");
        }
    }

    /** A builder with type and config words set; add flags and sampling settings. */
    public PerfEventAttr.Builder attr() {
        return PerfEventAttr.builder().type(type).config(config).config1(config1).config2(config2).config3(config3);
    }
}
