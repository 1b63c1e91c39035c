package dev.hwtool.qemu;

import java.util.List;
import java.util.stream.Collectors;

/** Quoting for the sh command lines the guest runs. */
final class Shell {

    private Shell() {
    }

    /** {@code s} as one sh word: single-quoted, with embedded single quotes closed and escaped. */
    static String quote(String s) {
        return s.matches("[A-Za-z0-9_./:=+,@%-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
    }

    static String join(List<String> words) {
        return words.stream().map(Shell::quote).collect(Collectors.joining(" "));
    }
}
