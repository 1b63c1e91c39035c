package dev.hwtool.api;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/** What runs while a {@link Recorder} records. */
public sealed interface RecordTarget {

    /** A human-readable name, written into recordings (perf's cmdline / COMM). */
    String describe();

    /** A program started for the recording (hardware backend): argv, argv[0] looked up in PATH. */
    record Command(List<String> argv) implements RecordTarget {
        public Command {
            argv = List.copyOf(argv);
            if (argv.isEmpty()) {
                throw new IllegalArgumentException("a command needs argv[0]");
            }
        }

        @Override
        public String describe() {
            return String.join(" ", argv);
        }
    }

    /**
     * A simulator workload (simulator backend): a workload spec in {@code Workloads} grammar
     * ({@code loop ...}, {@code calltree ...}, {@code trace FILE}), a scenario script
     * ({@code FILE.hwsim} or {@code builtin:NAME}) whose {@code workload} lines are run; relative
     * files are resolved against {@code baseDir}.
     *
     * @param stop polled while the workload runs; once it says true the workload ends at the next
     *             retirement boundary and the recording is finished as after a complete run, with
     *             exit status 130 (128 + SIGINT): what Ctrl-C does to a {@link Command}, which
     *             gets the signal itself
     * @param image where the workload's program image was written as an ELF file, if it was
     *              (hwtool record --image): a recording's PERF_RECORD_MMAP2 then names that file,
     *              so perf can read its symbols; else the mapping has a placeholder name
     */
    record Workload(String spec, Path baseDir, BooleanSupplier stop, Optional<Path> image) implements RecordTarget {
        public Workload {
            Objects.requireNonNull(spec, "spec");
            Objects.requireNonNull(baseDir, "baseDir");
            Objects.requireNonNull(stop, "stop");
            Objects.requireNonNull(image, "image");
        }

        /** A workload whose image is in no file. */
        public Workload(String spec, Path baseDir, BooleanSupplier stop) {
            this(spec, baseDir, stop, Optional.empty());
        }

        /** A workload that runs to its end. */
        public Workload(String spec, Path baseDir) {
            this(spec, baseDir, () -> false);
        }

        @Override
        public String describe() {
            return spec;
        }
    }
}
