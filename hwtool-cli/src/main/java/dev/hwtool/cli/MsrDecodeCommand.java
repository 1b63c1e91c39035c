package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.arch.msr.DecodedField;
import dev.hwtool.arch.msr.MsrDecoder;
import dev.hwtool.arch.msr.MsrDef;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code hwtool msr decode REG VALUE}: a value split into the fields that exist on one CPU,
 * with set reserved bits flagged. Pure: nothing is read from the register; the CPU (this
 * machine's or the simulated profile's) only decides which fields exist and how wide they are.
 */
@Command(name = "decode", sortOptions = false,
        description = {"Decode a register value field by field, as on this CPU; set reserved bits are flagged.",
                "REG is a catalog name (any case) or a number; VALUE is 64-bit unsigned, decimal or 0x hex.",
                "Nothing is read from the register itself.",
                "A register the catalog does not know, or that does not exist on this CPU, is bad input (exit 3)."})
final class MsrDecodeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "REG", description = "Register: catalog name (e.g. IA32_DEBUGCTL) or number (0x1d9).")
    String register;

    @Parameters(index = "1", paramLabel = "VALUE", converter = MsrArgs.Value64.class,
            description = "The value: 0 to 0xffffffffffffffff, decimal or 0x hex.")
    long value;

    @Option(names = "--cpu", paramLabel = "N", converter = Numbers.CpuNumber.class,
            description = "The logical CPU whose CPUID decides the fields, " + Numbers.CpuNumber.RANGE + " (default: the first).")
    Integer cpu;

    @Option(names = "--json", description = "JSON instead of text (fields documented in README.md).")
    boolean json;

    @Mixin
    BackendOptions backend;

    @Override
    public Integer call() {
        MsrTarget target;
        try (Platform platform = backend.open()) {
            target = MsrTarget.of(platform, cpu);
        }
        MsrArgs.Register reg = MsrArgs.register(register, target.context());
        MsrDef def = reg.def().orElseThrow(() -> new HwException(Cause.BAD_INPUT, "MSR " + Numbers.hex32(reg.address())
                + " is not in hwtool's catalog: no fields to decode (hwtool msr list --all names every register)"));
        if (!def.existsOn(target.context())) {
            throw new HwException(Cause.BAD_INPUT, def.name() + " does not exist on CPU " + target.cpu()
                    + " (it needs " + def.exists().describe() + "); give a CPU that has it, e.g. --profile NAME");
        }
        List<DecodedField> fields = MsrDecoder.decode(def, value, target.context());
        long reserved = value & def.reservedMask(target.context());
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.write(json(target, def, fields, reserved)));
        } else {
            out.print(text(spec.commandLine().getColorScheme().ansi(), target, def, fields, reserved));
        }
        out.flush();
        return ExitCodes.OK;
    }

    private String text(Ansi ansi, MsrTarget target, MsrDef def, List<DecodedField> fields, long reserved) {
        StringBuilder b = new StringBuilder();
        b.append(Styled.of(ansi, "bold", def.name()) + " (" + Numbers.hex32(def.address()) + ") = "
                + Numbers.hex64(value) + "   as on " + target.describes()).append('\n');
        if (target.simulated()) {
            b.append("  " + Styled.of(ansi, "yellow,bold", "Simulated CPU: this is not the machine you are running on.")).append('\n');
        }
        if (!target.perfCapabilities().isEmpty()) {
            b.append("  (").append(target.perfCapabilities()).append(")\n");
        }
        int nameWidth = Math.max(16, fields.stream().mapToInt(f -> f.name().length()).max().orElse(0));
        List<String> values = fields.stream().map(MsrDecodeCommand::valueText).toList();
        int valueWidth = values.stream().mapToInt(String::length).max().orElse(1);
        for (int i = 0; i < fields.size(); i++) {
            DecodedField f = fields.get(i);
            String head = "  " + pad(f.bitsText(), 8) + " " + pad(f.name(), nameWidth) + "  "
                    + pad(values.get(i), valueWidth) + "  " + pad(f.access().name(), 3) + "  ";
            String line = head + f.description();
            b.append(f.reserved() ? Styled.of(ansi, "red,bold", line) : line).append('\n');
        }
        if (reserved != 0) {
            b.append("  " + Styled.of(ansi, "red,bold", "reserved bits set on this CPU: " + Numbers.hex64(reserved)
                    + " (a WRMSR of this value #GPs)")).append('\n');
        }
        return b.toString();
    }

    /** A one-bit field as 0/1; a wider one as hex, with the decimal value when it differs. */
    static String valueText(DecodedField f) {
        if (f.hi() == f.lo()) {
            return Long.toString(f.value());
        }
        String hex = "0x" + Long.toHexString(f.value());
        return f.value() >= 0 && f.value() < 10 ? hex : hex + " (" + Long.toUnsignedString(f.value()) + ")";
    }

    private Map<String, Object> json(MsrTarget target, MsrDef def, List<DecodedField> fields, long reserved) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("hwtool_version", Version.current());
        m.put("register", def.name());
        m.put("address", Numbers.hex32(def.address()));
        m.put("value", Numbers.hex64(value));
        m.put("cpu", target.cpu());
        m.put("describes", target.describes());
        m.put("simulated", target.simulated());
        target.perfCapabilitiesJson(m);
        List<Object> list = new ArrayList<>();
        for (DecodedField f : fields) {
            Map<String, Object> fm = new LinkedHashMap<>();
            fm.put("name", f.name());
            fm.put("hi", f.hi());
            fm.put("lo", f.lo());
            fm.put("value", unsigned(f.value()));
            fm.put("value_hex", "0x" + Long.toHexString(f.value()));
            fm.put("access", f.access().name().toLowerCase(Locale.ROOT));
            fm.put("reserved", f.reserved());
            fm.put("description", f.description());
            list.add(fm);
        }
        m.put("fields", list);
        m.put("reserved_mask", Numbers.hex64(def.reservedMask(target.context())));
        m.put("reserved_set", Numbers.hex64(reserved));
        return m;
    }

    /** A JSON number for an unsigned 64-bit value (BigInteger above Long.MAX_VALUE). */
    static Number unsigned(long v) {
        return v >= 0 ? v : new java.math.BigInteger(Long.toUnsignedString(v));
    }

    private static String pad(String s, int w) {
        return s.length() >= w ? s : s + " ".repeat(w - s.length());
    }
}
