package dev.hwtool.cli;

import dev.hwtool.api.Verdict;
import picocli.CommandLine.Help.Ansi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code hwtool doctor} found, and its text and JSON forms.
 *
 * @param describes           the machine the checks describe ("this machine", or a fixture root in tests)
 * @param verdictsUnavailable why there are no verdicts (CPUID unreadable), or null
 */
record DoctorReport(String describes, List<DoctorCheck> checks, List<Verdict> verdicts, String verdictsUnavailable) {

    private static final int WIDTH = 100;
    private static final int LABEL = 20;
    /** Column where details and fixes start: " fail " + label + " ". */
    private static final int INDENT = 7 + LABEL + 1;

    DoctorReport {
        checks = List.copyOf(checks);
        verdicts = List.copyOf(verdicts);
    }

    /** 0 when no check fails; otherwise the exit code of the first failing check's cause. */
    int exitCode() {
        return Doctor.firstFailure(checks).map(c -> c.cause().exitCode()).orElse(ExitCodes.OK);
    }

    long count(DoctorCheck.Status s) {
        return checks.stream().filter(c -> c.status() == s).count();
    }

    String summary() {
        long fails = count(DoctorCheck.Status.FAIL);
        long warns = count(DoctorCheck.Status.WARN);
        String counts = checks.size() + " checks: " + count(DoctorCheck.Status.OK) + " ok, " + warns
                + (warns == 1 ? " warning, " : " warnings, ") + fails + " failed";
        Optional<DoctorCheck> first = Doctor.firstFailure(checks);
        return first.map(c -> counts + "; exit " + c.cause().exitCode() + " (" + c.cause().label() + ", from "
                + c.label() + ")").orElse(counts + "; exit 0");
    }

    // ---- text ---------------------------------------------------------------------------------

    String text(Ansi ansi) {
        StringBuilder b = new StringBuilder();
        b.append(Styled.of(ansi, "bold", "hwtool doctor") + " - " + describes).append("\n\n");
        b.append(Styled.of(ansi, "bold,underline", "Checks")).append('\n');
        for (DoctorCheck c : checks) {
            String mark = switch (c.status()) {
                case OK -> Styled.of(ansi, "green,bold", " ok   ");
                case WARN -> Styled.of(ansi, "yellow,bold", " warn ");
                case FAIL -> Styled.of(ansi, "red,bold", " fail ");
            };
            List<String> detail = CapsText.wrap(c.detail(), WIDTH - INDENT);
            b.append(mark).append(' ').append(pad(c.label(), LABEL)).append(' ').append(detail.getFirst()).append('\n');
            detail.stream().skip(1).forEach(l -> b.append(" ".repeat(INDENT)).append(l).append('\n'));
            if (!c.fix().isEmpty()) {
                List<String> fix = CapsText.wrap(c.fix(), WIDTH - INDENT - 5);
                b.append(" ".repeat(INDENT)).append(Styled.of(ansi, "cyan", "fix:") + " ").append(fix.getFirst()).append('\n');
                fix.stream().skip(1).forEach(l -> b.append(" ".repeat(INDENT + 5)).append(l).append('\n'));
            }
        }
        b.append('\n');
        b.append(Styled.of(ansi, "bold,underline", "Facilities (as hwtool caps judges them)")).append('\n');
        if (verdictsUnavailable != null) {
            b.append("  none: ").append(verdictsUnavailable).append('\n');
        }
        for (Verdict v : verdicts) {
            String mark = v.usable() ? Styled.of(ansi, "green,bold", " yes  ") : Styled.of(ansi, "red,bold", " no   ");
            List<String> reason = CapsText.wrap(v.message(), WIDTH - INDENT);
            b.append(mark).append(' ').append(pad(v.facility().label(), LABEL)).append(' ').append(reason.getFirst())
                    .append('\n');
            reason.stream().skip(1).forEach(l -> b.append(" ".repeat(INDENT)).append(l).append('\n'));
            if (v.hasRemedy()) {
                List<String> fix = CapsText.wrap(v.remedy().orElseThrow(), WIDTH - INDENT - 5);
                b.append(" ".repeat(INDENT)).append(Styled.of(ansi, "cyan", "fix:") + " ").append(fix.getFirst()).append('\n');
                fix.stream().skip(1).forEach(l -> b.append(" ".repeat(INDENT + 5)).append(l).append('\n'));
            }
        }
        b.append('\n').append(summary()).append('\n');
        return b.toString();
    }

    private static String pad(String s, int w) {
        return s.length() >= w ? s : s + " ".repeat(w - s.length());
    }

    // ---- JSON ---------------------------------------------------------------------------------

    Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("hwtool_version", Version.current());
        m.put("describes", describes);
        List<Object> list = new ArrayList<>();
        for (DoctorCheck c : checks) {
            Map<String, Object> cm = new LinkedHashMap<>();
            cm.put("name", c.name());
            cm.put("status", c.status().name().toLowerCase(Locale.ROOT));
            cm.put("detail", c.detail());
            cm.put("fix", c.fix());
            cm.put("cause", c.cause() == null ? null : c.cause().name().toLowerCase(Locale.ROOT));
            list.add(cm);
        }
        m.put("checks", list);
        if (verdictsUnavailable != null) {
            m.put("verdicts_unavailable", verdictsUnavailable);
        }
        List<Object> vs = new ArrayList<>();
        for (Verdict v : verdicts) {
            Map<String, Object> vm = new LinkedHashMap<>();
            vm.put("facility", CapsText.facilityKey(v.facility()));
            vm.put("usable", v.usable());
            vm.put("cause", v.cause().map(k -> k.name().toLowerCase(java.util.Locale.ROOT)).orElse(null));
            vm.put("reason", v.message());
            vm.put("remedy", v.remedy().orElse(""));
            vs.add(vm);
        }
        m.put("verdicts", vs);
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("ok", count(DoctorCheck.Status.OK));
        s.put("warn", count(DoctorCheck.Status.WARN));
        s.put("fail", count(DoctorCheck.Status.FAIL));
        s.put("exit_code", exitCode());
        s.put("first_failure", Doctor.firstFailure(checks).map(DoctorCheck::name).orElse(null));
        m.put("summary", s);
        return m;
    }
}
