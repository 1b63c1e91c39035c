package dev.hwtool.cli;

import dev.hwtool.report.SymbolizerSymbols;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.api.BranchFilter;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.io.TerminalText;
import dev.hwtool.record.PerfDataFile;
import dev.hwtool.report.RecordingKind;
import dev.hwtool.report.Samples;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Opening a recording for a report: the file must exist, be perf.data, and hold the kind of
 * recording the report reads (an lbr report of a BTS recording, or of {@code perf record -e
 * cpu-clock}'s samples, is an error naming what the file holds, not an empty table).
 */
final class RecordingFile {

    private RecordingFile() {
    }

    /**
     * @param what   "lbr report", for messages
     * @param wanted the kinds the report reads
     * @param make   how to make a recording it reads, for the remedy
     */
    static PerfDataFile open(Path file, String what, Predicate<RecordingKind> wanted, String kindName, String make) {
        if (!Files.exists(file)) {
            throw new HwException(Cause.BAD_INPUT, what + ": " + file + ": no such file", "record one: " + make);
        }
        if (Files.isDirectory(file)) {
            throw new HwException(Cause.BAD_INPUT, what + ": " + file + ": is a directory");
        }
        PerfDataFile data = PerfDataFile.open(file);
        RecordingKind kind = RecordingKind.of(data.info());
        if (!wanted.test(kind)) {
            data.close();
            throw new HwException(Cause.BAD_INPUT, what + ": " + file + " is not " + kindName + " (it holds "
                    + describe(kind) + ": " + RecordingKind.events(data.info()) + ", recorded by "
                    + data.info().backend() + ")", "record one: " + make);
        }
        return data;
    }

    /** What a report does with one sample of a wanted event, at its cursor. */
    interface SampleHandler extends Samples.Handler {
    }

    /**
     * Reads {@code data} in order: each sample of an event {@code wanted} marks goes to
     * {@code samples}, and the mappings and forks go to {@code symbols}, which names them.
     */
    static void forEachSample(PerfDataFile data, boolean[] wanted, SymbolizerSymbols symbols, SampleHandler samples) {
        Samples.forEach(data, wanted, symbols, samples);
    }

    /**
     * Which events a report reads: all, or the one {@code --event NAME} names (exactly, else by its
     * name without perf's ":modifiers"); a name the file does not have is a usage error listing them.
     */
    static boolean[] pickEvents(String what, Path file, RecordingInfo info, String name) {
        List<RecordingInfo.Event> events = info.events();
        boolean[] wanted = new boolean[events.size()];
        if (name == null) {
            java.util.Arrays.fill(wanted, true);
            return wanted;
        }
        boolean any = false;
        for (int i = 0; i < wanted.length; i++) {
            wanted[i] = events.get(i).name().equals(name);
            any |= wanted[i];
        }
        if (!any) {
            for (int i = 0; i < wanted.length; i++) {
                String n = events.get(i).name();
                int colon = n.indexOf(':');
                wanted[i] = colon > 0 && n.substring(0, colon).equals(name);
                any |= wanted[i];
            }
        }
        if (!any) {
            throw new UsageException(what + ": --event '" + TerminalText.quote(name) + "': " + file
                    + " has no such event (it has: " + TerminalText.quote(RecordingKind.events(info)) + ")");
        }
        return wanted;
    }

    /** One line on stderr for what a report read past: AUX area data and its records. */
    static void noteSkipped(String what, PerfDataFile data, java.io.PrintWriter err) {
        if (data.auxRecords() > 0) {
            err.println("hwtool: " + what + ": note: skipped " + data.auxRecords()
                    + " AUX area records (PERF_RECORD_AUX, ITRACE_START, AUXTRACE: processor trace, not samples)");
            err.flush();
        }
    }

    static String describe(RecordingKind kind) {
        return switch (kind) {
            case LBR -> "branch-stack samples";
            case BTS_AUX -> "an intel_bts branch trace";
            case BTS_SAMPLES -> "a branch trace (branches event at period 1)";
            case OTHER -> "samples without branch records";
        };
    }

    /** The --filter an LBR recording was made with, from its branch_sample_type; hex when none matches. */
    static String filter(RecordingInfo info) {
        long bst = RecordingKind.branchAttr(info).branchSampleType();
        // call-stack first: perf adds ANY_CALL-like bits beside it on some kernels
        if ((bst & PerfBranchSample.CALL_STACK) != 0) {
            return BranchFilter.CALL_STACK.cliName();
        }
        for (BranchFilter f : BranchFilter.values()) {
            if ((bst & f.branchSampleType()) != 0) {
                return f.cliName();
            }
        }
        return "0x" + Long.toHexString(bst);
    }

    /** The first JSON line of every report: what was recorded, and where, so a simulated run is never taken for a real one. */
    static Map<String, Object> header(String report, Path file, RecordingInfo info) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "header");
        m.put("report", report);
        m.put("file", file.toString());
        m.put("backend", info.backend());
        m.put("simulated", info.simulated());
        m.put("target", info.target());
        m.put("events", info.events().stream().map(RecordingInfo.Event::name).toList());
        return m;
    }

    /**
     * The first text lines of every report. The backend and target come from the recording's
     * CMDLINE feature, the events from its EVENT_DESC: text from the file, quoted for the terminal.
     */
    static String textHeader(String report, Path file, RecordingInfo info) {
        return "# hwtool " + report + " of " + TerminalText.quote(file.toString()) + "\n"
                + "# backend: " + TerminalText.quote(info.backend()) + (info.simulated() ? " (not this machine)" : "") + "\n"
                + "# target:  " + TerminalText.quote(info.target()) + "\n"
                + "# events:  " + TerminalText.quote(RecordingKind.events(info)) + "\n";
    }

    /** A 64-bit address as JSON: a hex string, as JSON numbers lose precision above 2^53. */
    static String hex(long addr) {
        return "0x" + Long.toHexString(addr);
    }
}
