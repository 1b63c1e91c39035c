package dev.hwtool.sim.script;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.io.Resources;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The scenarios shipped with hwtool: one {@code .hwsim} script per SDM rule under resources
 * {@code dev/hwtool/sim/scenarios}, listed in {@code index.txt} (a jar's resources cannot be
 * listed). Each script's first line is {@code # description}, naming the SDM section or seed.
 * Dumps a scenario needs beyond the built-in profiles (an edited CPUID, e.g. without DS-CPL)
 * ship beside them, and {@code profile FILE} finds them there.
 */
public final class Scenarios {

    private static final String DIR = "/dev/hwtool/sim/scenarios/";
    public static final String EXTENSION = ".hwsim";
    /** How the CPUID dumps shipped beside the scenarios end. */
    public static final String DUMP_EXTENSION = ".cpuid.txt";
    /** How a shipped scenario is named on the command line: {@code builtin:NAME}. */
    public static final String PREFIX = "builtin:";

    /** One shipped scenario. */
    public record Entry(String name, String description) {
    }

    private Scenarios() {
    }

    /** Every shipped scenario, in index order. */
    public static List<Entry> list() {
        List<Entry> out = new ArrayList<>();
        for (String name : Index.NAMES) {
            out.add(new Entry(name, description(text(name).orElseThrow())));
        }
        return out;
    }

    /** The script text of a shipped scenario. */
    public static Optional<String> text(String name) {
        if (!Index.NAMES.contains(name)) {
            return Optional.empty();
        }
        return Optional.of(resource(name + EXTENSION).orElseThrow(
                () -> new IllegalStateException("index.txt lists " + name + " but " + name + EXTENSION + " is missing")));
    }

    /**
     * A shipped scenario, parsed; its origin is {@code builtin:NAME}.
     *
     * @throws HwException BAD_INPUT for a name not in the index
     */
    public static Script script(String name) {
        String text = text(name).orElseThrow(() -> new HwException(Cause.BAD_INPUT, "no shipped scenario '" + name
                + "' (see 'hwtool sim list')"));
        return ScriptParser.parse(PREFIX + name, text);
    }

    /** The description line of a script: its first line without "# ". */
    static String description(String text) {
        String first = text.lines().findFirst().orElse("").strip();
        return first.startsWith("#") ? first.substring(1).strip() : "";
    }

    /**
     * The text of a CPUID dump shipped beside the scenarios ({@code NAME.cpuid.txt}), if there is
     * one by that name; {@code ProfileLoader.shipped()} makes it a profile (the scripts' package
     * names no profile: the recorder, below the platform, reads scripts too).
     */
    public static Optional<String> dump(String name) {
        return name.contains("/") || !name.endsWith(DUMP_EXTENSION) ? Optional.empty() : resource(name);
    }

    private static final class Index {
        static final List<String> NAMES = load();

        private static List<String> load() {
            String text = resource("index.txt").orElseThrow(() -> new IllegalStateException("missing " + DIR + "index.txt"));
            List<String> names = new ArrayList<>();
            for (String line : text.split("\n")) {
                String s = line.strip();
                if (!s.isEmpty() && !s.startsWith("#")) {
                    names.add(s);
                }
            }
            return List.copyOf(names);
        }
    }

    private static Optional<String> resource(String file) {
        // Resources.read rather than getResourceAsStream: no jar: URL, several ms of a one-shot start.
        byte[] b = Resources.read(Scenarios.class, DIR.substring(1) + file);
        return b == null ? Optional.empty() : Optional.of(new String(b, StandardCharsets.UTF_8));
    }
}
