package dev.hwtool.api;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

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
     */
    record Workload(String spec, Path baseDir) implements RecordTarget {
        public Workload {
            Objects.requireNonNull(spec, "spec");
            Objects.requireNonNull(baseDir, "baseDir");
        }

        @Override
        public String describe() {
            return spec;
        }
    }
}
