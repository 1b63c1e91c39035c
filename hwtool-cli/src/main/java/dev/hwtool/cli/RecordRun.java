package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.api.Recorder;
import dev.hwtool.api.RecordingSummary;
import dev.hwtool.io.TerminalText;
import dev.hwtool.record.PerfDataWriter;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What {@code hwtool lbr record} and {@code hwtool bts record} share: the target from the
 * positional words (a command on the hardware, a workload spec on the simulator), the recording
 * into a perf.data file that appears only when complete (an existing one becomes FILE.old, as
 * perf record does with perf.data), the one-line summary on stderr, and the command's exit status.
 */
final class RecordRun {

    /** perf record's default file is perf.data; hwtool's is this, in the current directory. */
    static final String DEFAULT_FILE = "hwtool.data";

    private RecordRun() {
    }

    /**
     * Records {@code request} over one run of {@code words}.
     *
     * @param what "lbr record" or "bts record", for messages
     * @return the command's exit status (127/126 when it cannot run; a workload's is 0)
     */
    static int run(String what, BackendOptions backend, RecordRequest request, List<String> words, Path output,
                   PrintWriter err) {
        Path file = output != null ? output : Path.of(DEFAULT_FILE);
        RecordTarget target;
        if (backend.simulated()) {
            target = new RecordTarget.Workload(String.join(" ", words), Path.of("").toAbsolutePath());
        } else {
            try {
                CommandPath.resolve(words.getFirst(), System.getenv("PATH"));
            } catch (CommandPath.NotRunnable e) {
                err.println("hwtool: " + what + ": " + TerminalText.quote(e.getMessage()));
                err.flush();
                return e.status;
            }
            target = new RecordTarget.Command(words);
        }
        if (Files.isDirectory(file)) {
            throw new HwException(Cause.BAD_INPUT, "cannot write " + file + ": is a directory", "give a file: -o FILE");
        }
        RecordingSummary summary;
        String backendName;
        try (Platform platform = backend.open()) {
            Recorder recorder = Recorders.of(platform);
            backendName = recorder.backend();
            try (PerfDataWriter writer = PerfDataWriter.create(file)) {
                summary = recorder.record(request, target, writer);
                writer.commit();
            }
        }
        err.println("hwtool: " + what + ": " + summary(summary, file, backendName));
        if (summary.auxTruncated()) {
            err.println("hwtool: " + what + ": the AUX buffer filled: branches were lost between the records");
        }
        err.flush();
        return summary.exitStatus();
    }

    /** "1234 samples, 0 lost, 56 KiB written to hwtool.data [hardware]". */
    static String summary(RecordingSummary s, Path file, String backend) {
        long bytes;
        try {
            bytes = Files.size(file);
        } catch (IOException e) {
            throw new HwException(Cause.OS_ERROR, "cannot read the size of " + file + ": " + e.getMessage());
        }
        StringBuilder b = new StringBuilder();
        b.append(s.samples()).append(" samples, ").append(s.lost() + s.lostSamples()).append(" lost");
        if (s.auxBytes() > 0) {
            b.append(", ").append(s.auxBytes()).append(" bytes of BTS records");
        }
        b.append(", ").append(size(bytes)).append(" written to ").append(file).append(" [").append(backend).append(']');
        return b.toString();
    }

    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " bytes";
        }
        if (bytes < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
        }
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
    }
}
