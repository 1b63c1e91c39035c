package dev.hwtool.linux.perf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.perf.abi.PmuEventSpec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The dynamic PMUs under /sys/bus/event_source/devices: a PMU's type number and its named events
 * ("msr/tsc/", "intel_bts//"), as perf's tools resolve them (tools/perf/util/pmu.c).
 */
public final class PerfPmus {

    private final Path devices;
    private final PerfErrors errors;

    /** @param sysRoot where sysfs is mounted ("/sys" normally) */
    public PerfPmus(Path sysRoot, PerfErrors errors) {
        this.devices = sysRoot.resolve("bus/event_source/devices");
        this.errors = errors;
    }

    /** The PMU's perf_event_attr.type. */
    public int type(String pmu) {
        Path dir = devices.resolve(pmu);
        if (!Files.isDirectory(dir)) {
            throw errors.missingPmu(pmu);
        }
        String t = read(dir.resolve("type"));
        try {
            return Integer.parseInt(t.strip());
        } catch (NumberFormatException e) {
            throw new HwException(Cause.OS_ERROR, dir.resolve("type") + " holds '" + t.strip() + "', not a number");
        }
    }

    /** {@code pmu}'s event {@code name}, from events/NAME and the format/ files; "" for the PMU's bare type (intel_bts//). */
    public PmuEventSpec event(String pmu, String name) {
        int type = type(pmu);
        if (name.isEmpty()) {
            return new PmuEventSpec(pmu, "", type, 0, 0, 0, 0);
        }
        Path file = devices.resolve(pmu).resolve("events").resolve(name);
        if (!Files.isRegularFile(file)) {
            throw new HwException(Cause.UNSUPPORTED, "PMU " + pmu + " has no event " + name + " (no " + file + ")",
                    "ls " + devices.resolve(pmu).resolve("events"));
        }
        Map<String, String> formats = new HashMap<>();
        Path fdir = devices.resolve(pmu).resolve("format");
        if (Files.isDirectory(fdir)) {
            try (Stream<Path> s = Files.list(fdir)) {
                s.forEach(p -> formats.put(p.getFileName().toString(), read(p)));
            } catch (IOException e) {
                throw new HwException(Cause.OS_ERROR, "cannot list " + fdir + ": " + e.getMessage());
            }
        }
        try {
            return PmuEventSpec.parse(pmu, name, type, read(file), formats);
        } catch (IllegalArgumentException e) {
            throw new HwException(Cause.OS_ERROR, "cannot use " + file + ": " + e.getMessage(), null, e);
        }
    }

    /** "msr/tsc/" or "intel_bts//" (perf's PMU/event/ syntax). */
    public PmuEventSpec parse(String spec) {
        String[] parts = spec.split("/", -1);
        if (parts.length != 3 || parts[0].isEmpty() || !parts[2].isEmpty()) {
            throw new HwException(Cause.BAD_INPUT, "'" + spec + "' is not PMU/EVENT/ (e.g. msr/tsc/)");
        }
        return event(parts[0], parts[1]);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new HwException(Cause.OS_ERROR, "cannot read " + p + ": " + e.getMessage());
        }
    }
}
