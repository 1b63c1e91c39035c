package dev.hwtool.arch.cpuid;

import dev.hwtool.arch.cpuid.DumpLayout.BadLine;
import dev.hwtool.arch.cpuid.DumpLayout.Header;
import dev.hwtool.arch.cpuid.DumpLayout.LeafLine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a CPUID dump from text. Pure: no I/O, the caller supplies the text and a name for it.
 *
 * <p>Two layouts are recognised, chosen by the first significant line:
 * <ul>
 *   <li>{@code cpuid -r} / {@code cpuid -1 -r} output (Todd Allen's cpuid): {@code CPU N:} or
 *       {@code CPU:} headers and lines {@code    0x00000007 0x00: eax=0x... ebx=0x... ecx=0x... edx=0x...};
 *       see {@link RawDumpLayout}. A {@code CPU:} header (from {@code -1}) is read as CPU 0 and
 *       must be the only header.</li>
 *   <li>AIDA64 / InstLatx64 dumps: {@code CPUID 00000004: eax-ebx-ecx-edx [SL 01] [comment]}
 *       under {@code ------[ Logical CPU #N ]------} or {@code ------[ CPUID Registers / Logical CPU #N ]------},
 *       and the older {@code CPUID 00000004  <TAB>eax-ebx-ecx-edx} under {@code CPUID Registers (CPU #N):};
 *       see {@link AidaDumpLayout}. CPU numbers are kept as the dump gives them.</li>
 * </ul>
 *
 * <p>Lines that are ignored: empty or white-space-only lines, and decorative rules made only
 * of {@code - = * _ # ~} and white space. Leading and trailing white space (including the
 * {@code \r} of CRLF files) is ignored on every line. Every other line must be a CPU header
 * or a well-formed leaf line of the chosen layout; anything else is an error, so that a
 * damaged dump is never half-read.
 *
 * <p>Real AIDA64 dumps have two quirks that are accepted: a CPU header followed directly by the
 * next header (an empty section: AIDA64 could not read that CPU, which the dump then does not
 * hold; the last sections of that dump are empty too), and a leaf line repeated with the same subleaf and the same registers (read once).
 * Both are in libcpuid's test corpus (tests/amd/zen3/amd-ryzen-7-5800x3d-8-core-processor.test,
 * tests/amd/bulldozer/amd-a10-pro-7350b-r6-10-compute-cores-4c+6g.test).
 *
 * <p>Errors ({@link CpuidDumpException}, message {@code origin:line: what}): a dump with no
 * leaves, an unrecognised first line, a leaf line before the first CPU header (both layouts
 * need one), a garbled or truncated leaf line, bad hex, a line of the other layout, a CPU
 * listed twice, a leaf/subleaf listed twice for one CPU with different registers.
 */
public final class CpuidDumpParser {

    private static final List<DumpLayout> LAYOUTS = List.of(new RawDumpLayout(), new AidaDumpLayout());

    private CpuidDumpParser() {
    }

    public static CpuidDump parse(String origin, String text) {
        return new Run(origin).parse(text);
    }

    static boolean ignorable(String stripped) {
        // A loop, not a stream: it runs on every line of every profile a command loads.
        for (int i = 0; i < stripped.length(); i++) {
            char c = stripped.charAt(i);
            if ("-=*_#~".indexOf(c) < 0 && !Character.isWhitespace(c)) {
                return false;
            }
        }
        return true;
    }

    /** One parse: the layout once chosen, the CPUs done, and the CPU being read. */
    private static final class Run {
        private final String origin;
        private final List<CpuidSnapshot> done = new ArrayList<>();
        private final Map<Integer, Integer> cpuHeaderLine = new HashMap<>();
        private DumpLayout layout;
        private boolean sawUnnumbered;
        private CpuInProgress current;

        Run(String origin) {
            this.origin = origin;
        }

        CpuidDump parse(String text) {
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i].strip();
                if (!ignorable(line)) {
                    line(i + 1, line);
                }
            }
            finishCpu();
            if (done.isEmpty()) {
                throw new CpuidDumpException(origin, 0, "empty dump: no CPUID leaves");
            }
            return new CpuidDump(origin, done);
        }

        private void line(int no, String line) {
            if (layout == null) {
                layout = LAYOUTS.stream()
                        .filter(l -> l.header(line).isPresent() || l.looksLikeLeaf(line))
                        .findFirst()
                        .orElseThrow(() -> fail(no, "unrecognised format: expected a cpuid -r or AIDA64/InstLatx64"
                                + " CPUID dump, found " + DumpLayout.quote(line)));
            }
            Optional<Header> header = layout.header(line);
            if (header.isPresent()) {
                startCpu(no, header.get());
            } else if (layout.looksLikeLeaf(line)) {
                leaf(no, line);
            } else {
                throw fail(no, "unexpected line in a " + layout.name() + " dump: " + DumpLayout.quote(line));
            }
        }

        private void startCpu(int no, Header h) {
            finishCpu();
            if (!h.numbered() || sawUnnumbered) {
                if (!cpuHeaderLine.isEmpty()) {
                    throw fail(no, "a 'CPU:' header (cpuid -1 -r) cannot be combined with other CPU headers");
                }
                sawUnnumbered = true;
            }
            Integer first = cpuHeaderLine.putIfAbsent(h.cpu(), no);
            if (first != null) {
                throw fail(no, "CPU " + h.cpu() + " appears twice (first at line " + first + ")");
            }
            current = new CpuInProgress(h.cpu(), no);
        }

        private void leaf(int no, String line) {
            LeafLine l;
            try {
                l = layout.parseLeaf(line);
            } catch (BadLine e) {
                throw fail(no, e.getMessage());
            }
            if (current == null) {
                throw fail(no, "leaf line before any CPU header");
            }
            current.add(no, l);
        }

        private void finishCpu() {
            if (current == null) {
                return;
            }
            if (current.leaves.isEmpty()) {
                current = null;            // an empty section: the dump does not hold this CPU
                return;
            }
            done.add(new CpuidSnapshot(current.cpu, current.leaves));
            current = null;
        }

        private CpuidDumpException fail(int line, String problem) {
            return new CpuidDumpException(origin, line, problem);
        }

        /** The leaves read so far for one CPU, and where each leaf/subleaf was first seen. */
        private final class CpuInProgress {
            final int cpu;
            final int headerLine;
            final List<CpuidLeaf> leaves = new ArrayList<>();
            final Map<Long, Integer> seenAt = new HashMap<>();

            CpuInProgress(int cpu, int headerLine) {
                this.cpu = cpu;
                this.headerLine = headerLine;
            }

            void add(int no, LeafLine l) {
                CpuidLeaf prev = leaves.isEmpty() ? null : leaves.getLast();
                int subleaf = l.subleaf().orElse(prev != null && prev.leaf() == l.leaf() ? prev.subleaf() + 1 : 0);
                long key = (Integer.toUnsignedLong(l.leaf()) << 32) | Integer.toUnsignedLong(subleaf);
                Integer first = seenAt.putIfAbsent(key, no);
                if (first != null && leaves.stream().anyMatch(c -> c.leaf() == l.leaf() && c.subleaf() == subleaf
                        && c.regs().equals(l.regs()))) {
                    return;                // the same line again: read once
                }
                if (first != null) {
                    throw fail(no, String.format("leaf 0x%08x subleaf 0x%02x appears twice for CPU %d (first at line %d)",
                            l.leaf(), subleaf, cpu, first));
                }
                leaves.add(new CpuidLeaf(l.leaf(), subleaf, l.regs()));
            }
        }
    }
}
