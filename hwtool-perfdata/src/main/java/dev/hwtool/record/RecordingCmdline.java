package dev.hwtool.record;

import java.util.List;
import java.util.Optional;

/**
 * How hwtool keeps {@code RecordingInfo.backend()} and {@code target()} in a perf.data file: as the
 * HEADER_CMDLINE feature, {@code hwtool record --backend=BACKEND -- TARGET}. perf treats the
 * cmdline as text it only prints ("# cmdline : hwtool record --backend=simulated ... -- loop 100"),
 * so the backend stays visible to perf users, and each argument is length-prefixed in the file,
 * so both strings come back exactly.
 */
final class RecordingCmdline {

    static final String PROGRAM = "hwtool";
    static final String COMMAND = "record";
    static final String BACKEND = "--backend=";
    static final String END_OF_OPTIONS = "--";

    /** What files written by other tools report as their backend. */
    static final String FOREIGN_BACKEND = "perf record";

    private RecordingCmdline() {
    }

    static List<String> encode(String backend, String target) {
        return List.of(PROGRAM, COMMAND, BACKEND + backend, END_OF_OPTIONS, target);
    }

    /** backend and target of a cmdline hwtool wrote; empty for any other cmdline. */
    static Optional<List<String>> decode(List<String> argv) {
        if (argv.size() == 5 && argv.get(0).equals(PROGRAM) && argv.get(1).equals(COMMAND)
                && argv.get(2).startsWith(BACKEND) && argv.get(3).equals(END_OF_OPTIONS)) {
            return Optional.of(List.of(argv.get(2).substring(BACKEND.length()), argv.get(4)));
        }
        return Optional.empty();
    }
}
