package dev.hwtool.dump;

import dev.hwtool.api.Cause;
import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidDump;
import dev.hwtool.arch.cpuid.CpuidDumpException;
import dev.hwtool.arch.cpuid.CpuidDumpParser;
import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.CpuidSnapshot;
import dev.hwtool.io.BoundedText;
import dev.hwtool.io.TerminalText;
import dev.hwtool.caps.CpuidReading;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPUID answers read from a dump file ({@code cpuid -r} output or an AIDA64/InstLatx64 dump,
 * see {@link CpuidDumpParser}). A leaf or subleaf the dump does not record answers all zeros,
 * which the decoders read as "not reported"; a CPU the dump does not hold is
 * {@link Cause#NO_SUCH_CPU}.
 */
public final class DumpCpuidSource implements CpuidReading {

    private final CpuidDump dump;
    private final Map<Integer, CpuidSnapshot> byCpu = new TreeMap<>();

    public DumpCpuidSource(CpuidDump dump) {
        this.dump = dump;
        for (CpuidSnapshot s : dump.cpus()) {
            byCpu.put(s.cpu(), s);
        }
    }

    /**
     * Reads and parses a dump file, at most {@link BoundedText#MAX_FILE_BYTES} of UTF-8 text
     * (everything the parser reads is ASCII).
     *
     * @throws HwException {@link Cause#BAD_INPUT} if the file cannot be read, is not text, is too large or is not
     *                     a valid dump
     */
    public static DumpCpuidSource load(Path file) {
        String text = BoundedText.read(file);
        try {
            return new DumpCpuidSource(CpuidDumpParser.parse(file.toString(), text));
        } catch (CpuidDumpException e) {
            throw new HwException(Cause.BAD_INPUT, TerminalText.quote(e.getMessage()), null, e);
        }
    }

    public CpuidDump dump() {
        return dump;
    }

    @Override
    public String name() {
        return "dump";
    }

    @Override
    public String description() {
        return "CPUID dump " + TerminalText.quote(dump.origin()) + " (CPUs " + cpuList() + ")";
    }

    @Override
    public List<Integer> cpus() {
        return List.copyOf(byCpu.keySet());
    }

    @Override
    public CpuidRegs regs(int cpu, int leaf, int subleaf) {
        return snapshot(cpu).cpuid(leaf, subleaf);
    }

    /** The CPU's snapshot itself; an absent CPU fails here, not at the first read. */
    @Override
    public CpuidReader reader(int cpu) {
        return snapshot(cpu);
    }

    private CpuidSnapshot snapshot(int cpu) {
        CpuidSnapshot s = byCpu.get(cpu);
        if (s == null) {
            throw new HwException(Cause.NO_SUCH_CPU,
                    "CPU " + cpu + " is not in dump " + TerminalText.quote(dump.origin()) + " (CPUs " + cpuList() + ")");
        }
        return s;
    }

    /** Ascending CPU numbers with runs collapsed, as Linux writes CPU lists: "0-3,8,10-11". */
    private String cpuList() {
        StringBuilder sb = new StringBuilder();
        List<Integer> cpus = cpus();
        for (int i = 0; i < cpus.size(); ) {
            int j = i;
            while (j + 1 < cpus.size() && cpus.get(j + 1) == cpus.get(j) + 1) {
                j++;
            }
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(cpus.get(i));
            if (j > i) {
                sb.append('-').append(cpus.get(j));
            }
            i = j + 1;
        }
        return sb.toString();
    }
}
