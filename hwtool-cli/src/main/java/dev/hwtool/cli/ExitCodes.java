package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import picocli.CommandLine;

/**
 * Process exit codes: 0 success, 1 internal error (a bug), 2 usage error, and one stable code
 * per {@link Cause} (3 and up, see {@link Cause#exitCode()}); README.md documents them all.
 */
final class ExitCodes {
    static final int OK = 0;
    static final int INTERNAL = 1;
    static final int USAGE = 2;

    private ExitCodes() {
    }

    static int of(Throwable t) {
        if (t instanceof CommandLine.ParameterException || t instanceof UsageException) {
            return USAGE;
        }
        if (t instanceof StdStream.Failed f) {
            return f.stream().exitCode();
        }
        if (t instanceof HwException hw) {
            return hw.cause().exitCode();
        }
        return INTERNAL;
    }

    /** The exit-code list for --help, generated from the Cause enum so it cannot drift. */
    static String[] helpList() {
        Cause[] causes = Cause.values();
        String[] list = new String[5 + causes.length];
        list[0] = "0:success";
        list[1] = "1:internal error (a bug: please report it)";
        list[2] = "2:usage error";
        for (int i = 0; i < causes.length; i++) {
            list[3 + i] = causes[i].exitCode() + ":" + causes[i].label();
        }
        list[3 + causes.length] = StdStream.BROKEN_PIPE_EXIT + ":standard output is a pipe closed early (quiet; 128 + SIGPIPE)";
        list[4 + causes.length] = "129/130/143:ended by SIGHUP/SIGINT/SIGTERM (128 + the signal)";
        return list;
    }
}
