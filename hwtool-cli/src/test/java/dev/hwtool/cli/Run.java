package dev.hwtool.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the CLI in-process, as the launcher would, and captures what it prints. */
record Run(int exit, String out, String err) {

    static Run of(String... args) {
        return as("hwtool", args);
    }

    static Run as(String argv0, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(argv0, args, new PrintWriter(out), new PrintWriter(err));
        return new Run(code, out.toString(), err.toString());
    }

    @Override
    public String toString() {
        return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
