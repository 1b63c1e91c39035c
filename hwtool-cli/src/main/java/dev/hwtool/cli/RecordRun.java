package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.api.RecordingSummary;
import dev.hwtool.io.OutputFile;
import dev.hwtool.io.TerminalText;
import dev.hwtool.record.PerfDataWriter;
import dev.hwtool.record.SinkRecorder;
import dev.hwtool.sim.record.SimulatedTargets;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What {@code hwtool lbr record} and {@code hwtool bts record} share: the target from the
 * positional words (a command on the hardware, a workload spec on the simulator), the recording
 * into a perf.data file under the output policy ({@link dev.hwtool.io.OutputFile}: checked before
 * anything runs, appears only when complete, an existing regular file becomes FILE.old as perf
 * record does with perf.data, a device or pipe is written through), the one-line summary on
 * stderr, and the command's exit status.
 *
 * <p>Signals, as perf record has them (tools/perf/builtin-record.c: sig_handler sets {@code done},
 * the file is finished, record__sig_exit re-raises the signal): Ctrl-C (SIGINT) ends the target
 * (on the hardware the command gets it, HeldChild; on the simulator the workload stops at the
 * next retirement), and the recording is finished, kept and summarized; the exit status is 130.
 * SIGTERM and SIGHUP abort: the JVM's shutdown removes the temporary file (ExitCleanup) and
 * exits 143 or 129, leaving the target as it was.
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
    /**
     * The simulator's workload spec for the words after {@code --}: one word is a whole spec as
     * written ({@code -- 'calltree seed=1 depth=4'}); several are argv, each kept whole, blanks
     * in a trace file's name included ({@code -- trace 'my trace.txt'}).
     */
    static String workloadSpec(List<String> words) {
        return words.size() == 1 ? words.getFirst() : dev.hwtool.sim.workload.Workloads.spec(words);
    }

    static int run(String what, BackendOptions backend, RecordRequest request, List<String> words, Path output,
                   PrintWriter err) {
        return run(what, backend, request, words, output, null, err);
    }

    /**
     * As {@link #run(String, BackendOptions, RecordRequest, List, Path, PrintWriter)}, and with
     * {@code image} non-null (--image FILE, simulator only) the workload's program image is
     * written to it as an ELF file under the same output policy, and the recording's MMAP2 names
     * it, so perf report can name the functions.
     */
    static int run(String what, BackendOptions backend, RecordRequest request, List<String> words, Path output,
                   Path image, PrintWriter err) {
        Path file = output != null ? output : Path.of(DEFAULT_FILE);
        RecordTarget target;
        byte[] elf = null;
        if (image != null && !backend.simulated()) {
            throw new UsageException("--image writes a simulated workload's program: it needs --backend sim"
                    + " (on the hardware the command's own file is what perf reads)");
        }
        if (backend.simulated()) {
            target = new RecordTarget.Workload(workloadSpec(words), Path.of("").toAbsolutePath());
            if (image != null) {
                RecordTarget t = target;
                elf = SimulatedTargets.image(target).orElseThrow(() -> new HwException(Cause.BAD_INPUT,
                        what + ": --image: '" + t.describe() + "' has no program image: a trace on standard input"
                                + " is read once, when it runs")).elf();
            }
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
        RecordingSummary summary;
        String backendName;
        long bytes;
        boolean interrupted;
        // The output is checked and prepared first: a file that cannot be written fails before anything runs.
        try (StopSignals sigint = StopSignals.only(Thread.currentThread(), dev.hwtool.linux.sys.ShutdownSignals.Sig.INT);
             PerfDataWriter writer = PerfDataWriter.create(file);
             OutputFile imageOut = image != null ? OutputFile.open(image) : null;
             Platform platform = backend.open()) {
            if (imageOut != null) {
                imageOut.write(ByteBuffer.wrap(elf));
            }
            // hwtool's recorders stream into the writer this command prepared (its file checked
            // first, its size reported after)
            SinkRecorder recorder = SinkRecorder.of(platform.recorder());
            backendName = recorder.backend();
            // Ctrl-C: a command gets the signal itself (HeldChild); a workload polls for it
            RecordTarget run = target instanceof RecordTarget.Workload w
                    ? new RecordTarget.Workload(w.spec(), w.baseDir(), sigint::requested,
                            Optional.ofNullable(image).map(Path::toAbsolutePath)) : target;
            summary = recorder.record(request, run, writer);
            writer.commit();
            if (imageOut != null) {
                imageOut.commit();
            }
            bytes = writer.size();
            interrupted = sigint.requested();
        }
        err.println("hwtool: " + what + ": " + summary(summary, file, bytes, backendName));
        if (summary.auxTruncated()) {
            err.println("hwtool: " + what + ": the AUX buffer filled: branches were lost between the records");
        }
        err.flush();
        return interrupted && summary.exitStatus() == 0 ? SIGINT_STATUS : summary.exitStatus();
    }

    /** The exit status after Ctrl-C, as a shell reports a death by SIGINT (128 + 2). */
    static final int SIGINT_STATUS = 130;

    /** "1234 samples, 0 lost, 56 KiB written to hwtool.data [hardware]". */
    static String summary(RecordingSummary s, Path file, long bytes, String backend) {
        StringBuilder b = new StringBuilder();
        b.append(s.samples()).append(" samples, ").append(s.lost() + s.lostSamples()).append(" lost");
        if (s.auxBytes() > 0) {
            b.append(", ").append(s.auxBytes()).append(" bytes of BTS records");
        }
        b.append(", ").append(size(bytes)).append(" written to ").append(TerminalText.quote(file.toString())).append(" [").append(backend).append(']');
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
