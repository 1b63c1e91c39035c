package dev.hwtool.sim;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidDump;
import dev.hwtool.arch.cpuid.CpuidDumpException;
import dev.hwtool.arch.cpuid.CpuidDumpParser;
import dev.hwtool.io.TerminalText;

import java.util.Objects;

/**
 * A simulated processor: the CPUID answers of a real one, recorded in a dump. A value: two
 * profiles with the same fields and the same recorded answers are equal.
 *
 * <p>Not a record: its dump is the api module's {@code CpuidDump}, a type it exports to hwtool's
 * modules only, so the dump stays inside this package; a user reads the profile's CPUID as a
 * simulated platform answers it ({@link SimulatedPlatform#cpuid()}, the contract's
 * {@link dev.hwtool.api.CpuidSource}).
 */
public final class Profile {

    private final String name;
    private final String processor;
    private final boolean builtIn;
    private final CpuidDump dump;
    private final String id;

    /**
     * @param name      the built-in name ("skylake") or the file it was loaded from, as given (quoted
     *                  for a terminal): the label of everything simulated on it
     * @param processor what the dump was taken from, e.g. "Core i7-6700K"
     * @param builtIn   shipped with hwtool (see profiles/ATTRIBUTION.md) rather than a user's file
     * @param dump      the recorded CPUID answers
     * @param id        what identifies the profile across processes and working directories: the
     *                  built-in name, or a dump file's absolute, normalized path; see {@link #backend()}
     */
    Profile(String name, String processor, boolean builtIn, CpuidDump dump, String id) {
        this.name = Objects.requireNonNull(name, "name");
        this.processor = processor;
        this.builtIn = builtIn;
        this.dump = Objects.requireNonNull(dump, "dump");
        this.id = Objects.requireNonNull(id, "id");
    }

    /** A profile identified by its name (built-in profiles, and those made in code). */
    Profile(String name, String processor, boolean builtIn, CpuidDump dump) {
        this(name, processor, builtIn, dump, name);
    }

    /**
     * A profile identified by its name, from the text of a CPUID dump in any format a dump file
     * may have ({@link Profiles#resolve}: {@code cpuid -r}'s, libcpuid's): e.g. a dump a test holds
     * as a resource.
     *
     * @param builtIn whether hwtool ships the dump (as it does the scenarios' own) rather than a user
     * @throws HwException BAD_INPUT for text that is not a dump, naming the line
     */
    public static Profile parse(String name, String processor, boolean builtIn, String dumpText) {
        try {
            return new Profile(name, processor, builtIn, CpuidDumpParser.parse(name, dumpText));
        } catch (CpuidDumpException e) {
            throw new HwException(Cause.BAD_INPUT, TerminalText.quote(e.getMessage()), null, e);
        }
    }

    /** The built-in name, or the file it was loaded from, as given (quoted for a terminal). */
    public String name() {
        return name;
    }

    /** What the dump was taken from, e.g. "Core i7-6700K". */
    public String processor() {
        return processor;
    }

    /** Shipped with hwtool (see profiles/ATTRIBUTION.md) rather than a user's file. */
    public boolean builtIn() {
        return builtIn;
    }

    /**
     * What identifies the profile across processes and working directories: the built-in name,
     * or a dump file's absolute, normalized path; see {@link #backend()}.
     */
    public String id() {
        return id;
    }

    /** The recorded CPUID answers, for this package's CPUID source and tests. */
    CpuidDump dump() {
        return dump;
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

    @Override
    public boolean equals(Object o) {
        return o instanceof Profile p && name.equals(p.name) && Objects.equals(processor, p.processor)
                && builtIn == p.builtIn && dump.equals(p.dump) && id.equals(p.id);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, processor, builtIn, dump, id);
    }

    /** Its fields, the dump's recorded answers left out (there are hundreds). */
    @Override
    public String toString() {
        return "Profile[name=" + name + ", processor=" + processor + ", builtIn=" + builtIn + ", id=" + id + "]";
    }
}
