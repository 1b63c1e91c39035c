package dev.hwtool.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * glibc {@code getopt_long} as msr-tools uses it, so that {@code rdmsr}/{@code wrmsr} accept
 * exactly the command lines msr-tools accepts: clustered short options ({@code -xc0}),
 * attached or separate arguments ({@code -p3}, {@code -p 3}, {@code --cpu=3}), unique prefixes
 * of long options ({@code --hex}), options after operands (GNU permutation), {@code --} ending
 * the options, and glibc's diagnostics word for word (posix/getopt.c).
 *
 * <p>Long options come in two tiers: msr-tools' own, matched first, so an abbreviation that is
 * unique in msr-tools stays unique here; then hwtool's additions, tried only when no msr-tools
 * option matches.
 */
final class Getopt {

    /** A long option; {@code key} is what {@link Opt#key()} reports (the short letter when it has one). */
    record LongOption(String name, boolean hasArg, String key) {
    }

    /** One option found, in command-line order; {@code arg} is null for an option without one. */
    record Opt(String key, String arg) {
    }

    /** What getopt found: the options in order, up to the first error, and the operands. */
    record Result(List<Opt> options, List<String> operands, String error) {
        boolean failed() {
            return error != null;
        }
    }

    private final String program;
    private final String shortOptions;
    private final List<LongOption> compat;
    private final List<LongOption> extra;

    /**
     * @param program      argv[0] as the diagnostics name it
     * @param shortOptions getopt's optstring, e.g. "hVxXdoruc0ap:f:"
     * @param compat       the long options of the tool being reproduced, in its table order
     * @param extra        further long options, matched only when no compat option matches
     */
    Getopt(String program, String shortOptions, List<LongOption> compat, List<LongOption> extra) {
        this.program = program;
        this.shortOptions = shortOptions;
        this.compat = List.copyOf(compat);
        this.extra = List.copyOf(extra);
    }

    /**
     * Scans {@code args}. On the first error the result holds the options before it and glibc's
     * message; getopt's caller (msr-tools) prints usage and exits there, so nothing after it counts.
     */
    Result parse(List<String> args) {
        List<Opt> opts = new ArrayList<>();
        List<String> operands = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--")) {
                operands.addAll(args.subList(i + 1, args.size()));
                break;
            }
            if (a.startsWith("--")) {
                String body = a.substring(2);
                int eq = body.indexOf('=');
                String name = eq < 0 ? body : body.substring(0, eq);
                Match m = match(name);
                if (m.error != null) {
                    return new Result(opts, operands, m.error);
                }
                if (m.option == null) {
                    return new Result(opts, operands, program + ": unrecognized option '--" + body + "'");
                }
                LongOption o = m.option;
                if (eq >= 0 && !o.hasArg()) {
                    return new Result(opts, operands, program + ": option '--" + o.name() + "' doesn't allow an argument");
                }
                String arg = null;
                if (o.hasArg()) {
                    if (eq >= 0) {
                        arg = body.substring(eq + 1);
                    } else if (i + 1 < args.size()) {
                        arg = args.get(++i);
                    } else {
                        return new Result(opts, operands, program + ": option '--" + o.name() + "' requires an argument");
                    }
                }
                opts.add(new Opt(o.key(), arg));
                continue;
            }
            if (a.length() < 2 || a.charAt(0) != '-') {
                // "-" alone and anything not starting with '-' are operands; GNU getopt permutes
                // them to the end and keeps scanning for options.
                operands.add(a);
                continue;
            }
            for (int j = 1; j < a.length(); j++) {
                char c = a.charAt(j);
                int at = c == ':' ? -1 : shortOptions.indexOf(c);
                if (at < 0) {
                    return new Result(opts, operands, program + ": invalid option -- '" + c + "'");
                }
                boolean takesArg = at + 1 < shortOptions.length() && shortOptions.charAt(at + 1) == ':';
                if (!takesArg) {
                    opts.add(new Opt(String.valueOf(c), null));
                    continue;
                }
                String arg;
                if (j + 1 < a.length()) {
                    arg = a.substring(j + 1);
                } else if (i + 1 < args.size()) {
                    arg = args.get(++i);
                } else {
                    return new Result(opts, operands, program + ": option requires an argument -- '" + c + "'");
                }
                opts.add(new Opt(String.valueOf(c), arg));
                break;
            }
        }
        return new Result(opts, operands, null);
    }

    private record Match(LongOption option, String error) {
    }

    private Match match(String name) {
        Match m = matchIn(compat, name);
        return m.option != null || m.error != null ? m : matchIn(extra, name);
    }

    /**
     * glibc's rule: an exact name wins; otherwise a unique prefix; several prefixes are no
     * ambiguity when they all mean the same (same argument rule, same key), as --zero for
     * --zero-fill/--zero-pad.
     */
    private Match matchIn(List<LongOption> table, String name) {
        List<LongOption> prefixed = new ArrayList<>();
        for (LongOption o : table) {
            if (o.name().equals(name)) {
                return new Match(o, null);
            }
            if (o.name().startsWith(name)) {
                prefixed.add(o);
            }
        }
        if (prefixed.isEmpty()) {
            return new Match(null, null);
        }
        LongOption first = prefixed.getFirst();
        boolean same = prefixed.stream().allMatch(o -> o.hasArg() == first.hasArg() && o.key().equals(first.key()));
        if (same) {
            return new Match(first, null);
        }
        StringBuilder b = new StringBuilder(program + ": option '--" + name + "' is ambiguous; possibilities:");
        for (LongOption o : prefixed) {
            b.append(" '--").append(o.name()).append('\'');
        }
        return new Match(null, b.toString());
    }
}
