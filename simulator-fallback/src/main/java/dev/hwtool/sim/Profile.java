package dev.hwtool.sim;

import dev.hwtool.arch.cpuid.CpuidDump;

import java.util.Objects;

/**
 * A simulated processor: the CPUID answers of a real one, recorded in a dump.
 *
 * @param name      the built-in name ("skylake") or the file it was loaded from, as given (quoted
 *                  for a terminal): the label of everything simulated on it
 * @param processor what the dump was taken from, e.g. "Core i7-6700K"
 * @param builtIn   shipped with hwtool (see profiles/ATTRIBUTION.md) rather than a user's file
 * @param id        what identifies the profile across processes and working directories: the
 *                  built-in name, or a dump file's absolute, normalized path; see {@link #backend()}
 */
public record Profile(String name, String processor, boolean builtIn, CpuidDump cpuid, String id) {

    public Profile {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(id, "id");
    }

    /** A profile identified by its name (built-in profiles, and those made in code). */
    public Profile(String name, String processor, boolean builtIn, CpuidDump cpuid) {
        this(name, processor, builtIn, cpuid, name);
    }

    /**
     * "sim:" + {@link #id()}: the backend the careful write path records in its journal and in
     * {@code msr save} files, and that an undo or a restore must be on. The library
     * ({@code SimulatedMsrAccess}) and the CLI ({@code --profile}) both take it from here, so a
     * dump given as {@code ./dump.txt} to one and as {@code /abs/dump.txt} to the other is one backend.
     */
    public String backend() {
        return "sim:" + id;
    }
}
