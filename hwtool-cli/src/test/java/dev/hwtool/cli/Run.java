package dev.hwtool.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

/**
 * Runs the CLI in-process, as the launcher would, and captures what it prints; {@code bytes}
 * is standard output as bytes (for rdmsr -r), {@code out} the same decoded as UTF-8.
 */
record Run(int exit, String out, String err, byte[] bytes) {

    static Run of(String... args) {
        return as("hwtool", args);
    }

    static Run as(String argv0, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        ByteOut o = new ByteOut(out);
        int code = Main.run(argv0, args, o, new PrintWriter(err));
        o.flush();
        byte[] b = out.toByteArray();
        return new Run(code, new String(b, StandardCharsets.UTF_8), err.toString(), b);
    }

    @Override
    public String toString() {
        return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
