package dev.hwtool.jmh;

import dev.hwtool.api.EventSpec;
import dev.hwtool.api.HwException;
import joptsimple.HelpFormatter;
import joptsimple.OptionDescriptor;
import joptsimple.OptionException;
import joptsimple.OptionParser;
import joptsimple.OptionSet;
import joptsimple.OptionSpec;
import org.openjdk.jmh.profile.ProfilerException;
import org.openjdk.jmh.util.Utils;

import java.io.IOException;
import java.io.StringWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The options after {@code -prof dev.hwtool.jmh.HwtoolProfiler:}, in the syntax of JMH's own
 * profilers: {@code opt=value;opt=value}, parsed with joptsimple after prefixing each with a dash
 * (jmh-core ProfilerUtils.parseInitLine), {@code help} printing the usage in the layout of
 * jmh-core's ProfilerOptionFormatter (both package-private in JMH, so done here the same way).
 *
 * @param events   the events to count, perf's names ({@link EventSpec}), each checked here
 */
record ProfilerOptions(List<EventSpec> events) {

    /** perfnorm's default set where the PMU has them, and task-clock for the time per operation. */
    static final List<String> DEFAULT_EVENTS = List.of("task-clock", "instructions", "cycles", "branches",
            "branch-misses");

    static final String NAME = HwtoolProfiler.class.getCanonicalName();

    ProfilerOptions {
        events = List.copyOf(events);
    }

    /**
     * Parses JMH's init line (the text after the first colon of {@code -prof}).
     *
     * @throws ProfilerException the joptsimple error or the event's syntax error, with the
     *                           usage; or the usage alone for {@code help}
     */
    static ProfilerOptions parse(String initLine) throws ProfilerException {
        OptionParser parser = new OptionParser();
        parser.formatHelpWith(new Usage());
        OptionSpec<String> optEvents = parser.accepts("events", "Events to count per operation, comma-separated, in"
                        + " perf's syntax: generic names (task-clock, cpu-clock, page-faults, instructions, cycles, ...),"
                        + " rNNNN or PMU/EVENT/, with :u or :k. task-clock and cpu-clock are shown in ns/op,"
                        + " the others in #/op.")
                .withRequiredArg().ofType(String.class).describedAs("event,...")
                .defaultsTo(String.join(",", DEFAULT_EVENTS));
        parser.accepts("help", "Display help.");
        OptionSpec<String> rest = parser.nonOptions();

        String line = initLine == null ? "" : initLine.strip();
        String[] args = line.isEmpty() ? new String[0] : line.split(";");
        for (int i = 0; i < args.length; i++) {
            args[i] = args[i].isEmpty() ? args[i] : "-" + args[i];
        }
        OptionSet set;
        try {
            set = parser.parse(args);
        } catch (OptionException e) {
            throw new ProfilerException(e.getMessage() + "\n" + usage(parser));
        }
        if (set.has("help")) {
            throw new ProfilerException(usage(parser));
        }
        if (!set.valuesOf(rest).isEmpty()) {
            throw new ProfilerException("Unhandled options: " + String.join(" ", set.valuesOf(rest)) + " in " + line
                    + "\n" + usage(parser));
        }
        try {
            return new ProfilerOptions(EventSpec.split(set.valueOf(optEvents)).stream().map(EventSpec::parse).toList());
        } catch (HwException e) {
            throw new ProfilerException("events: " + e.getMessage() + e.remedy().map(r -> " (" + r + ")").orElse(""));
        }
    }

    /** The events as written, in order. */
    List<String> names() {
        return events.stream().map(EventSpec::text).toList();
    }

    /**
     * JMH's unit for the event per operation: {@code ns/op} for task-clock and cpu-clock, which
     * the kernel counts in nanoseconds (kernel/events/core.c, task_clock_event_update and
     * cpu_clock_event_update), {@code #/op} for every other event, as perfnorm shows them.
     */
    static String unit(EventSpec event) {
        return event.clock() ? "ns/op" : "#/op";
    }

    private static String usage(OptionParser parser) {
        StringWriter sw = new StringWriter();
        try {
            parser.printHelpOn(sw);
        } catch (IOException e) {
            throw new IllegalStateException(e); // a StringWriter does not throw
        }
        return sw.toString();
    }

    /** jmh-core ProfilerOptionFormatter's layout: the usage line, then one option per paragraph. */
    private static final class Usage implements HelpFormatter {
        @Override
        public String format(Map<String, ? extends OptionDescriptor> options) {
            StringBuilder sb = new StringBuilder("Usage: -prof " + NAME + ":opt1=value1,value2;opt2=value3\n\n");
            sb.append("Options accepted by ").append(NAME).append(":\n");
            for (OptionDescriptor d : options.values()) {
                if (d.representsNonOptions()) {
                    continue;
                }
                String opt = String.join(",", d.options()) + (d.acceptsArguments()
                        ? "=<" + d.argumentDescription() + ">" : "");
                String desc = d.description() + (d.defaultValues().isEmpty() ? ""
                        : " (default: " + d.defaultValues() + ")");
                List<String> wrapped = Utils.rewrap(desc).stream().map(String::stripTrailing).toList();
                sb.append(String.format(Locale.ROOT, "  %-33s%s%n", opt, wrapped.getFirst()));
                wrapped.stream().skip(1).forEach(l -> sb.append(String.format(Locale.ROOT, "%35s%s%n", "", l)));
                sb.append(System.lineSeparator());
            }
            return sb.toString();
        }
    }
}
