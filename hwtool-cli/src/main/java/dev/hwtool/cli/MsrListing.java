package dev.hwtool.cli;

import dev.hwtool.arch.msr.Access;
import dev.hwtool.arch.msr.Condition;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.FieldWidth;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.arch.msr.MsrField;
import picocli.CommandLine.Help.Ansi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code hwtool msr list} shows, and its two renderings. Bits are the implemented ones on
 * the target CPU for fields that exist there (a 48-bit counter shows [47:0]); a field that does
 * not exist there shows its declared bits.
 *
 * @param all       whether {@code defs} is the whole catalog (--all) or what exists on the CPU
 * @param catalogSize how many registers the catalog holds
 */
record MsrListing(MsrTarget target, boolean all, List<MsrDef> defs, int catalogSize) {

    private static final int WIDTH = 100;

    // ---- text ---------------------------------------------------------------------------------

    String text(Ansi ansi) {
        CpuContext ctx = target.context();
        StringBuilder b = new StringBuilder();
        int nameWidth = Math.max(8, defs.stream().mapToInt(d -> d.name().length()).max().orElse(0));
        int fieldWidth = Math.max(8, defs.stream().flatMap(d -> d.fields().stream())
                .mapToInt(f -> f.name().length()).max().orElse(0));
        long here = defs.stream().filter(d -> d.existsOn(ctx)).count();
        b.append(Styled.of(ansi, "bold", "hwtool msr list") + " - " + (all ? "the whole catalog, judged for " : "registers on ")
                + target.describes()).append('\n');
        if (target.simulated()) {
            b.append("  " + Styled.of(ansi, "yellow,bold", "Simulated CPU: this is not the machine you are running on.")).append('\n');
        }
        b.append("  ").append(all
                ? here + " of " + catalogSize + " catalogued registers exist on this CPU"
                : here + " of " + catalogSize + " catalogued registers exist on this CPU;"
                  + " 'hwtool msr list --all' shows every one with its conditions").append('\n');
        if (!target.perfCapabilities().isEmpty()) {
            b.append("  ").append(target.perfCapabilities()).append('\n');
        }
        b.append('\n');
        b.append(Styled.of(ansi, "bold", pad("REGISTER", nameWidth) + " " + pad("ADDRESS", 10) + "  " + pad("ACCESS", 6)
                + "  " + pad("HERE", 4) + "  DESCRIPTION")).append('\n');
        for (MsrDef d : defs) {
            boolean exists = d.existsOn(ctx);
            String head = pad(d.name(), nameWidth) + " " + Numbers.hex32(d.address()) + "  " + pad(access(d.access()), 6)
                    + "  " + pad(exists ? "yes" : "no", 4) + "  ";
            appendWrapped(b, head, d.description());
            if (!(d.exists() instanceof Condition.Always)) {
                appendWrapped(b, " ".repeat(head.length()), "exists if " + d.exists().describe());
            }
            for (MsrField f : all ? d.fields() : d.fieldsOn(ctx)) {
                boolean fieldHere = exists && f.existsOn(ctx);
                String bits = fieldHere ? bitsText(f.hi(ctx), f.lo()) : f.bitsText();
                String fhead = "    " + pad(bits, 8) + " " + pad(f.name(), fieldWidth) + " " + pad(access(f.access()), 4)
                        + (all ? " " + pad(fieldHere ? "yes" : "no", 4) : "") + " ";
                appendWrapped(b, fhead, f.description());
                List<String> notes = new ArrayList<>();
                // a field that exists exactly when its register does needs no condition of its own
                if (!(f.condition() instanceof Condition.Always) && !f.condition().equals(d.exists())) {
                    notes.add("if " + f.condition().describe());
                }
                if (f.width() != FieldWidth.DECLARED) {
                    notes.add("width " + f.width().describe());
                }
                for (String n : notes) {
                    appendWrapped(b, " ".repeat(fhead.length()), n);
                }
            }
        }
        return b.toString();
    }

    private static void appendWrapped(StringBuilder b, String head, String text) {
        List<String> lines = CapsText.wrap(text, Math.max(30, WIDTH - head.length()));
        b.append(head).append(lines.getFirst()).append('\n');
        lines.stream().skip(1).forEach(l -> b.append(" ".repeat(head.length())).append(l).append('\n'));
    }

    static String access(Access a) {
        return a.name();
    }

    static String bitsText(int hi, int lo) {
        return hi == lo ? "[" + lo + "]" : "[" + hi + ":" + lo + "]";
    }

    private static String pad(String s, int w) {
        return s.length() >= w ? s : s + " ".repeat(w - s.length());
    }

    // ---- JSON ---------------------------------------------------------------------------------

    Map<String, Object> json() {
        CpuContext ctx = target.context();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("hwtool_version", Version.current());
        m.put("cpu", target.cpu());
        m.put("describes", target.describes());
        m.put("simulated", target.simulated());
        m.put("scope", all ? "all" : "cpu");
        m.put("catalog_size", catalogSize);
        target.perfCapabilitiesJson(m);
        List<Object> regs = new ArrayList<>();
        for (MsrDef d : defs) {
            boolean exists = d.existsOn(ctx);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("name", d.name());
            r.put("address", Numbers.hex32(d.address()));
            r.put("access", d.access().name().toLowerCase(Locale.ROOT));
            r.put("exists", exists);
            r.put("condition", d.exists().describe());
            r.put("description", d.description());
            r.put("source", d.source());
            r.put("reserved_mask", exists ? Numbers.hex64(d.reservedMask(ctx)) : null);
            List<Object> fields = new ArrayList<>();
            for (MsrField f : all ? d.fields() : d.fieldsOn(ctx)) {
                boolean fieldHere = exists && f.existsOn(ctx);
                Map<String, Object> fm = new LinkedHashMap<>();
                fm.put("name", f.name());
                fm.put("hi", fieldHere ? f.hi(ctx) : f.hi());
                fm.put("lo", f.lo());
                fm.put("declared_hi", f.hi());
                fm.put("access", f.access().name().toLowerCase(Locale.ROOT));
                fm.put("exists", fieldHere);
                fm.put("condition", f.condition().describe());
                fm.put("width", f.width().name().toLowerCase(Locale.ROOT));
                fm.put("description", f.description());
                fields.add(fm);
            }
            r.put("fields", fields);
            regs.add(r);
        }
        m.put("registers", regs);
        return m;
    }
}
