package dev.hwtool.report;

import dev.hwtool.arch.perf.abi.PerfRecordCursor;
import dev.hwtool.arch.perf.abi.PerfRecordType;
import dev.hwtool.record.PerfDataFile;
import dev.hwtool.record.RecordVisitor;

/** A recording read for a report: its samples to a handler, its mappings to the symbols that name them. */
public final class Samples {

    private Samples() {
    }

    /** What a report does with one sample of a wanted event, at its cursor. */
    public interface Handler {
        void sample(PerfRecordCursor c, int event);
    }

    /**
     * Reads {@code data} in perf's order: each sample of an event {@code wanted} marks goes to
     * {@code samples}, and the mappings and forks (MMAP, MMAP2, FORK) go to {@code symbols}.
     */
    public static void forEach(PerfDataFile data, boolean[] wanted, SymbolizerSymbols symbols, Handler samples) {
        data.forEach(new RecordVisitor() {
            @Override
            public void record(PerfRecordCursor c) {
                record(c, 0);
            }

            @Override
            public void record(PerfRecordCursor c, int e) {
                if (c.type() == PerfRecordType.SAMPLE) {
                    if (wanted[e]) {
                        samples.sample(c, e);
                    }
                } else if (c.type() == PerfRecordType.MMAP || c.type() == PerfRecordType.MMAP2
                        || c.type() == PerfRecordType.FORK) {
                    symbols.add(c.toRecord());
                }
            }
        });
    }

    /** Which events carry branch stacks: whichever they are (perf inject --itrace puts them on its third event). */
    public static boolean[] branchStackEvents(dev.hwtool.record.RecordingInfo info) {
        boolean[] branches = new boolean[info.events().size()];
        for (int i = 0; i < branches.length; i++) {
            branches[i] = RecordingKind.branchStack(info.events().get(i).attr());
        }
        return branches;
    }
}
