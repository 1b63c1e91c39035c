package dev.hwtool.perfdata;

import dev.hwtool.api.BranchStacks;
import dev.hwtool.api.HotBranch;
import dev.hwtool.api.HwException;
import dev.hwtool.record.PerfDataFile;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.report.LbrQueries;
import dev.hwtool.report.ProgramImages;
import dev.hwtool.report.RecordingKind;

import java.nio.file.Path;
import java.util.List;

/**
 * A perf.data file, read as {@code perf report} reads it: perf's own files (file or pipe mode,
 * zstd-compressed records, any kernel's attr size) and hwtool's, with the answers
 * {@code hwtool lbr report} gives for the same file, from the same code.
 *
 * <p>Addresses are named from the ELF files the recording's MMAP records name, as perf report
 * names them on the host that reads the file; a simulated recording's program is rebuilt from the
 * workload it keeps when the simulator (simulator-fallback) is on the class or module path, and
 * stays hex otherwise. The file is mapped read-only and read once, when first asked; the answers
 * are kept. Not for use by several threads at once.
 *
 * <pre>{@code
 * try (PerfData data = PerfData.open(Path.of("perf.data"))) {      // perf record -b, or hwtool lbr record
 *     data.hottestBranches(10).forEach(b -> System.out.println(b.fromName() + " -> " + b.toName() + " " + b.count()));
 * }
 * }</pre>
 */
public final class PerfData implements BranchStacks, AutoCloseable {

    private final PerfDataFile data;
    private final LbrQueries queries;
    private boolean closed;

    private PerfData(PerfDataFile data) {
        this.data = data;
        this.queries = new LbrQueries(data, () -> ProgramImages.symbolsFor(data.info()));
    }

    /**
     * Maps {@code file} and reads its header, its events' attrs and its features.
     *
     * @throws HwException BAD_INPUT, in one line naming the file, when it is missing, not a regular
     *                     file (a FIFO or a device is refused before it is opened), unreadable, or not
     *                     a well-formed perf.data
     */
    public static PerfData open(Path file) {
        return new PerfData(PerfDataFile.open(file));
    }

    /** The file read. */
    public Path path() {
        return data.path();
    }

    /**
     * Who recorded it: hwtool's backend ({@code "linux perf_event"}, or {@code "simulated (profile
     * NAME)"}, not this machine), or {@code "perf record"} for a file another tool wrote.
     */
    public String backend() {
        return info().backend();
    }

    /** Whether the simulator recorded it: its addresses are a simulated program's, not this machine's. */
    public boolean simulated() {
        return info().simulated();
    }

    /** What ran: the command line (perf's HEADER_CMDLINE), or the simulated workload's spec. */
    public String target() {
        return info().target();
    }

    /** The events recorded, by the names perf gives them ({@code "cycles:u"}), in the file's order. */
    public List<String> events() {
        return info().events().stream().map(RecordingInfo.Event::name).toList();
    }

    /** Whether its samples carry LBR branch stacks ({@code perf record -b} or {@code -j}), so the analyses answer. */
    public boolean hasBranchStacks() {
        return RecordingKind.of(info()) == RecordingKind.LBR;
    }

    /** Whether those branch stacks are call chains ({@code -j call_stack}), so {@link #foldedStacks()} answers. */
    public boolean hasCallStacks() {
        return hasBranchStacks() && RecordingKind.callStack(info());
    }

    @Override
    public List<HotBranch> hottestBranches(int limit) {
        requireOpen();
        return queries.hottestBranches(limit);
    }

    @Override
    public List<String> foldedStacks() {
        requireOpen();
        return queries.foldedStacks();
    }

    @Override
    public void writeFlameGraph(Path html) {
        requireOpen();
        queries.writeFlameGraph(html);
    }

    /** Unmaps the file; every method but this one refuses afterwards. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            data.close();
        }
    }

    private RecordingInfo info() {
        requireOpen();
        return data.info();
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the perf.data file was closed");
        }
    }
}
