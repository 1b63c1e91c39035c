package dev.hwtool.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * One batch line split into words as a POSIX shell splits a simple command (POSIX.1-2017, XCU
 * 2.2 Quoting, 2.3 Token Recognition): blanks separate words; single quotes keep everything up
 * to the next single quote; double quotes keep everything but {@code \$ \` \" \\}, which lose
 * their backslash; an unquoted backslash keeps the next character; an unquoted {@code #} at the
 * start of a word begins a comment. Nothing is expanded. What a shell would read as something
 * other than a word of one command (an operator, a redirection, an expansion) is refused rather
 * than passed on with a different meaning, and so is a line that would continue on the next one.
 */
final class BatchWords {

    /** A line a shell would not read as one simple command of plain words. */
    static final class SyntaxError extends Exception {
        SyntaxError(String message) {
            super(message);
        }
    }

    /** Unquoted, these are operators (XCU 2.9) or introduce expansions (XCU 2.6). */
    private static final String SHELL_SPECIAL = "|&;<>()$`";

    private BatchWords() {
    }

    static List<String> split(String line) throws SyntaxError {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        int n = line.length();
        int i = 0;
        while (i < n) {
            char c = line.charAt(i);
            if (c == ' ' || c == '\t') {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
                i++;
            } else if (c == '#' && !inWord) {
                break;
            } else if (c == '\'') {
                int close = line.indexOf('\'', i + 1);
                if (close < 0) {
                    throw new SyntaxError("unterminated single quote (a command is one line)");
                }
                word.append(line, i + 1, close);
                inWord = true;
                i = close + 1;
            } else if (c == '"') {
                i = doubleQuoted(line, i + 1, word);
                inWord = true;
            } else if (c == '\\') {
                if (i + 1 == n) {
                    throw new SyntaxError("backslash at the end of the line (a command is one line)");
                }
                word.append(line.charAt(i + 1));
                inWord = true;
                i += 2;
            } else if (c == '\r' && i + 1 == n) {
                throw new SyntaxError("the line ends in a carriage return (DOS line endings?)");
            } else if (SHELL_SPECIAL.indexOf(c) >= 0) {
                throw new SyntaxError(special(c));
            } else {
                word.append(c);
                inWord = true;
                i++;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }

    /** Appends a double-quoted part starting after its opening quote; returns the index after its closing quote. */
    private static int doubleQuoted(String line, int from, StringBuilder word) throws SyntaxError {
        int i = from;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == '"') {
                return i + 1;
            }
            if (c == '\\' && i + 1 < line.length() && "$`\"\\".indexOf(line.charAt(i + 1)) >= 0) {
                word.append(line.charAt(i + 1));
                i += 2;
            } else if (c == '$' || c == '`') {
                throw new SyntaxError(special(c));
            } else {
                word.append(c);
                i++;
            }
        }
        throw new SyntaxError("unterminated double quote (a command is one line)");
    }

    private static String special(char c) {
        return "'" + c + "' would mean " + (c == '$' || c == '`' ? "an expansion" : "an operator")
                + " to a shell; a batch line is the words of one command, nothing is expanded or redirected"
                + " (quote it, e.g. '" + c + "', to pass it as it is)";
    }
}
