package dev.hwtool.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * The line format of the command model (META-INF/hwtool/commands.model, {@link CommandModel}):
 * one record per line, its fields separated by tabs; in a field, backslash, tab, CR and newline
 * are escaped ({@code \\ \t \r \n}) and a field that is {@code \0} is null. A list is its length, then its
 * elements, each a field of its own. The file: a header line with the format's version, an
 * {@code index} record (class name, offset of its block after the index line, ...), then one
 * block per class: a {@code command} record, its members' records, and a line {@code end}.
 */
final class ModelText {

    private ModelText() {
    }

    static final String NULL = "\\0";

    /** Writes one record's fields. */
    static final class Out {
        private final StringBuilder line = new StringBuilder();

        Out(String kind) {
            line.append(kind);
        }

        Out put(String s) {
            line.append('\t');
            if (s == null) {
                line.append(NULL);
                return this;
            }
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '\\' -> line.append("\\\\");
                    case '\t' -> line.append("\\t");
                    case '\n' -> line.append("\\n");
                    case '\r' -> line.append("\\r");
                    default -> line.append(c);
                }
            }
            return this;
        }

        Out put(boolean b) {
            return put(b ? "1" : "0");
        }

        Out put(int i) {
            return put(Integer.toString(i));
        }

        Out put(String[] list) {
            put(list.length);
            for (String s : list) {
                put(s);
            }
            return this;
        }

        String line() {
            return line.toString();
        }
    }

    /** Reads one record's fields in the order they were written. */
    static final class In {
        private final String[] fields;
        private int next;

        private In(String[] fields) {
            this.fields = fields;
        }

        /** The same record, read from its first field again. */
        In reader() {
            return new In(fields);
        }

        In(String line) {
            // indexOf and substring, and unescaping only a field with a backslash: this runs in the
            // interpreter at start-up, where a loop over every character costs milliseconds.
            List<String> f = new ArrayList<>();
            int start = 0;
            while (true) {
                int tab = line.indexOf('\t', start);
                String field = tab < 0 ? line.substring(start) : line.substring(start, tab);
                f.add(field.indexOf('\\') < 0 ? field : unescape(field));
                if (tab < 0) {
                    break;
                }
                start = tab + 1;
            }
            fields = f.toArray(String[]::new);
        }

        private static String unescape(String field) {
            if (field.equals(NULL)) {
                return null;
            }
            StringBuilder cur = new StringBuilder(field.length());
            for (int i = 0; i < field.length(); i++) {
                char c = field.charAt(i);
                if (c == '\\' && i + 1 < field.length()) {
                    char e = field.charAt(++i);
                    switch (e) {
                        case 't' -> cur.append('\t');
                        case 'n' -> cur.append('\n');
                        case 'r' -> cur.append('\r');
                        default -> cur.append(e);
                    }
                } else {
                    cur.append(c);
                }
            }
            return cur.toString();
        }

        String kind() {
            return fields[0];
        }

        /**
         * Whether a field holds what picocli's Interpolator would change: a {@code ${} variable or a
         * {@code $$} escape (a class name holds neither: '{' is not a Java identifier character).
         */
        boolean interpolates() {
            for (String f : fields) {
                if (f != null && f.indexOf('$') >= 0 && (f.contains("${") || f.contains("$$"))) {
                    return true;
                }
            }
            return false;
        }

        String str() {
            if (next + 1 >= fields.length) {
                throw new IllegalStateException("command model: record '" + fields[0] + "' is too short");
            }
            return fields[++next];
        }

        boolean bool() {
            return str().equals("1");
        }

        int integer() {
            return Integer.parseInt(str());
        }

        String[] list() {
            String[] a = new String[integer()];
            for (int i = 0; i < a.length; i++) {
                a[i] = str();
            }
            return a;
        }
    }
}
