package dev.hwtool.sim;

import dev.hwtool.api.Cause;
import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidDump;
import dev.hwtool.arch.cpuid.CpuidDumpException;
import dev.hwtool.arch.cpuid.CpuidDumpParser;
import dev.hwtool.dump.DumpCpuidSource;
import dev.hwtool.io.Resources;
import dev.hwtool.io.TerminalText;
import dev.hwtool.sim.cpu.MachineBlueprint;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The built-in simulator profiles (the real CPUID dumps under resources
 * {@code dev/hwtool/sim/profiles}, listed in {@code profiles.tsv}) and loading of a user's
 * dump file as a profile.
 */
public final class Profiles {

    private static final String DIR = "/dev/hwtool/sim/profiles/";

    /** One row of profiles.tsv. */
    public record Entry(String name, String file, String processor, String microarchitecture) {
    }

    private Profiles() {
    }

    /** The built-in profiles, in the order of profiles.tsv (oldest processor first). */
    public static List<Entry> builtIn() {
        return List.copyOf(index().values());
    }

    /**
     * A built-in profile by name, or else a dump file by path.
     *
     * @throws HwException BAD_INPUT for an unknown name that is not a readable file, or a malformed dump
     */
    public static Profile resolve(String nameOrFile) {
        Entry e = index().get(nameOrFile);
        if (e != null) {
            return load(e);
        }
        Path p = Path.of(nameOrFile);
        if (nameOrFile.contains("/") || Files.exists(p)) {
            DumpCpuidSource src = DumpCpuidSource.load(p);
            // The name labels everything simulated on this profile (text, recordings' CMDLINE): a
            // path is a user's text, so it is quoted for the terminal once, here.
            String name = TerminalText.quote(p.toString());
            // The id is the file, whatever the working directory and however its path was spelled.
            return new Profile(name, "CPUID dump " + name, false, src.dump(), p.toAbsolutePath().normalize().toString());
        }
        throw new HwException(Cause.BAD_INPUT,
                "no simulator profile '" + TerminalText.quote(nameOrFile) + "' (built in: " + String.join(", ", index().keySet())
                        + "; or give a dump file path)");
    }

    /**
     * Built-in profiles parsed so far: a Profile is immutable (its dump's lists and maps are
     * unmodifiable copies, its registers records), so a process parses each one once, however many
     * simulated machines it builds from it ({@code hwtool batch}: one per line). Dump files are
     * read again each time: they may change between two commands.
     */
    private static final Map<String, Profile> LOADED = new java.util.concurrent.ConcurrentHashMap<>();

    private static Profile load(Entry e) {
        return LOADED.computeIfAbsent(e.name(), n -> parse(e));
    }

    /**
     * The machine blueprints of built-in profiles, by name and CPUs: derived from the parsed
     * profile (and as immutable), so a process derives each once, however many machines it
     * builds on it ({@code hwtool batch}: one per line, each starting at the boot values).
     */
    private static final Map<String, MachineBlueprint> BLUEPRINTS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The blueprint of machines on {@code profile}'s {@code cpus} answering {@code cpuid}:
     * shared when {@code profile} is the very built-in profile {@link #resolve} gives,
     * derived afresh for any other (a dump file, a profile made in code).
     */
    static MachineBlueprint blueprint(Profile profile, CpuidSource cpuid, List<Integer> cpus) {
        if (LOADED.get(profile.name()) != profile) {
            return MachineBlueprint.of(cpuid, cpus);
        }
        return BLUEPRINTS.computeIfAbsent(profile.name() + " " + cpus, k -> MachineBlueprint.of(cpuid, cpus));
    }

    private static Profile parse(Entry e) {
        String text = resource(e.file());
        try {
            CpuidDump dump = CpuidDumpParser.parse("profile " + e.name(), text);
            return new Profile(e.name(), e.processor(), true, dump);
        } catch (CpuidDumpException ex) {
            // A shipped profile that does not parse is a bug in hwtool, not the user's input.
            throw new IllegalStateException("built-in profile " + e.name() + " is corrupt: " + ex.getMessage(), ex);
        }
    }

    private static Map<String, Entry> index() {
        return Index.ENTRIES;
    }

    private static final class Index {
        static final Map<String, Entry> ENTRIES = parse(resource("profiles.tsv"));

        private static Map<String, Entry> parse(String tsv) {
            Map<String, Entry> m = new LinkedHashMap<>();
            for (String line : tsv.split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t");
                m.put(f[0], new Entry(f[0], f[1], f[2], f[3]));
            }
            return m;
        }
    }

    private static String resource(String file) {
        // Resources.read rather than getResourceAsStream: no jar: URL, several ms of a one-shot start.
        byte[] b = Resources.read(Profiles.class, DIR.substring(1) + file);
        if (b == null) {
            throw new IllegalStateException("missing built-in resource " + DIR + file);
        }
        return new String(b, StandardCharsets.UTF_8);
    }

    /** The attribution of the shipped dumps (libcpuid's test suite, BSD-2-Clause). */
    public static String attribution() {
        return resource("ATTRIBUTION.md");
    }

    static List<String> names() {
        return new ArrayList<>(index().keySet());
    }
}
