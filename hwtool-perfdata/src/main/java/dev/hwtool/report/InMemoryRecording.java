package dev.hwtool.report;

import dev.hwtool.api.HotBranch;
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
import java.nio.file.Path;
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
    /** The one reading of the recording, made when first asked: rows, and stacks of a call-stack recording. */
    private final LbrQueries queries;
    private boolean closed;

    private InMemoryRecording(MemorySegment image, PerfDataFile data, RecordingSummary summary,
                              Consumer<SymbolizerSymbols> images) {
        this.image = image;
        this.data = data;
        this.summary = summary;
        this.queries = new LbrQueries(data, () -> {
            SymbolizerSymbols symbols = new SymbolizerSymbols();
            images.accept(symbols);
            return symbols;
        });
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

    @Override
    public void writePerfData(Path file) {
        requireOpen();
        // perf record's convention for perf.data: an existing file is kept as FILE.old
        OutputFile.write(file, image.asByteBuffer(), OutputFile.Option.KEEP_OLD);
    }

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
            throw new IllegalStateException("the recording was closed");
        }
    }
}
