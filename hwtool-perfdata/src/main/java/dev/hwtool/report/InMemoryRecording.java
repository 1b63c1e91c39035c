package dev.hwtool.report;

import dev.hwtool.api.BranchFilter;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HotBranch;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.api.Recording;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.api.RecordingSummary;
import dev.hwtool.io.OutputFile;
import dev.hwtool.record.PerfDataFile;
import dev.hwtool.record.PerfDataWriter;
import dev.hwtool.record.SinkRecorder;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A {@link Recording} held as its perf.data bytes ({@link PerfDataWriter#inMemory}) and read
 * back by the reader every report uses ({@link PerfDataFile#of}), so an analysis in memory is
 * exactly {@code hwtool lbr report}'s of the same recording written to a file. The recording is
 * read once, when first asked; the answers are kept. Not for use by several threads at once.
 */
public final class InMemoryRecording implements Recording {

    private final MemorySegment image;
    private final PerfDataFile data;
    private final RecordingSummary summary;
    private final Consumer<SymbolizerSymbols> images;
    /** The one reading of the recording, made when first asked: rows, and stacks of a call-stack recording. */
    private LbrAnalysis analysis;
    private boolean closed;

    private InMemoryRecording(MemorySegment image, PerfDataFile data, RecordingSummary summary,
                              Consumer<SymbolizerSymbols> images) {
        this.image = image;
        this.data = data;
        this.summary = summary;
        this.images = images;
    }

    /**
     * Runs {@code target} with {@code request} on {@code recorder}, into memory.
     *
     * @param images adds the program images that name the recording's addresses before its own
     *               mappings do (a simulated program's), or does nothing
     */
    public static Recording record(SinkRecorder recorder, RecordRequest request, RecordTarget target,
                                   Consumer<SymbolizerSymbols> images) {
        String name = "in-memory recording";
        try (PerfDataWriter out = PerfDataWriter.inMemory(name)) {
            RecordingSummary summary = recorder.record(request, target, out);
            out.commit();
            MemorySegment image = out.image();
            return new InMemoryRecording(image, PerfDataFile.of(name, image), summary, images);
        }
    }

    @Override
    public String backend() {
        return info().backend();
    }

    @Override
    public String target() {
        return info().target();
    }

    @Override
    public RecordingSummary summary() {
        requireOpen();
        return summary;
    }

    @Override
    public long size() {
        requireOpen();
        return image.byteSize();
    }

    @Override
    public List<HotBranch> hottestBranches(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be 0 (all) or more, got " + limit);
        }
        List<HotBranch> rows = analyse(false).rows();
        return limit == 0 ? rows : List.copyOf(rows.subList(0, Math.min(limit, rows.size())));
    }

    @Override
    public List<String> foldedStacks() {
        List<String> out = new ArrayList<>();
        for (FoldedStacks.Line l : analyse(true).stacks().lines()) {
            out.add(l.stack() + " " + l.count());
        }
        return List.copyOf(out);
    }

    @Override
    public void writeFlameGraph(Path html) {
        LbrAnalysis lbr = analyse(true);
        // lbr report --flamegraph's title for the same recording: a folded one is always call-stack
        String title = FlameGraphTitle.of(info(), "filter " + BranchFilter.CALL_STACK.cliName(), lbr.stacks(),
                "samples", lbr.samples(), "no sample in the recording (record with a smaller period or a longer workload)");
        String page;
        try {
            page = FlameGraphHtml.render(lbr.stacks(), title);
        } catch (NoClassDefFoundError e) {
            throw new HwException(Cause.UNSUPPORTED, "a flame graph needs async-profiler's converter, which is not here ("
                    + e.getMessage() + ")", "put one.convert:jfr-converter on the class or module path");
        }
        write(html, ByteBuffer.wrap(page.getBytes(StandardCharsets.UTF_8)));
    }

    @Override
    public void writePerfData(Path file) {
        requireOpen();
        // perf record's convention for perf.data: an existing file is kept as FILE.old
        write(file, image.asByteBuffer(), OutputFile.Option.KEEP_OLD);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            analysis = null;
            data.close();
        }
    }

    private RecordingInfo info() {
        requireOpen();
        return data.info();
    }

    /**
     * {@code bytes} to {@code file} under the output policy ({@link OutputFile}): a temporary file
     * renamed into place when whole, a device or descriptor written as it is.
     */
    private static void write(Path file, ByteBuffer bytes, OutputFile.Option... options) {
        try (OutputFile out = OutputFile.open(file, options)) {
            out.write(bytes);
            out.commit();
        }
    }

    private LbrAnalysis analyse(boolean fold) {
        RecordingInfo info = info();
        RecordingKind kind = RecordingKind.of(info);
        if (kind != RecordingKind.LBR) {
            throw new HwException(Cause.BAD_INPUT, "the recording holds " + RecordingKind.events(info)
                    + " samples without branch stacks, not an LBR recording",
                    "record with RecordRequest.Lbr");
        }
        boolean callStack = RecordingKind.callStack(info);
        if (fold && !callStack) {
            // other filters' entries are the last branches taken, not open calls
            throw new HwException(Cause.BAD_INPUT, "the recording's branch stacks are not call chains: it was not"
                    + " recorded with BranchFilter.CALL_STACK", "record with BranchFilter.CALL_STACK");
        }
        if (analysis == null) {
            try (SymbolizerSymbols symbols = new SymbolizerSymbols()) {
                images.accept(symbols);
                analysis = LbrAnalysis.read(data, symbols, HotBranches.Order.COUNT, callStack);
            }
        }
        return analysis;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the recording was closed");
        }
    }
}
