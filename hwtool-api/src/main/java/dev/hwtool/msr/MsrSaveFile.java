package dev.hwtool.msr;

import com.fasterxml.jackson.jr.ob.JSON;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.io.BoundedText;
import dev.hwtool.io.TerminalText;
import dev.hwtool.io.OutputFile;
import dev.hwtool.json.JsonInput;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code hwtool msr save} files: JSON naming the machine they came from and each register's
 * value per CPU. Written under the output policy ({@link OutputFile}: atomically over a regular
 * file, through to a device or pipe); read strictly, so a truncated or edited file is refused as a
 * whole (BAD_INPUT, one line) before anything is written.
 */
public record MsrSaveFile(String time, String backend, boolean simulated, List<Register> registers) {

    public static final String FORMAT = "hwtool-msr-save";
    public static final int VERSION = 1;

    /** One register of one CPU; {@code name} is the catalog's, or null. */
    public record Register(int cpu, long msr, String name, long value) {
    }

    public MsrSaveFile {
        registers = List.copyOf(registers);
    }

    /**
     * Reads {@code registers} on each of {@code cpus} (CPU by CPU, registers in order), now.
     *
     * @throws MsrWriter.AccessFailure a register that cannot be read (#GP, no such CPU, ...)
     */
    public static MsrSaveFile capture(MsrAccess msr, List<Integer> cpus, List<MsrRegister> registers, String backend,
                                      boolean simulated) {
        List<Register> saved = new ArrayList<>();
        for (int c : cpus) {
            for (MsrRegister r : registers) {
                saved.add(new Register(c, r.address(), r.name(), MsrWriter.read(msr, c, r)));
            }
        }
        return new MsrSaveFile(Instant.now().toString(), backend, simulated, saved);
    }

    private static final JSON PRETTY = JSON.std.with(JSON.Feature.PRETTY_PRINT_OUTPUT, JSON.Feature.WRITE_NULL_PROPERTIES);

    public String toJson() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("format", FORMAT);
        root.put("version", VERSION);
        root.put("time", time);
        root.put("backend", backend);
        root.put("simulated", simulated);
        List<Object> regs = new ArrayList<>();
        for (Register r : registers) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("cpu", r.cpu());
            m.put("msr", Hex.hex32(r.msr()));
            m.put("name", r.name());
            m.put("value", Hex.hex64(r.value()));
            regs.add(m);
        }
        root.put("registers", regs);
        try {
            return PRETTY.asString(root) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes the file to {@code out} (opened before the registers were read) and commits it. */
    public void write(OutputFile out) {
        out.write(ByteBuffer.wrap(toJson().getBytes(StandardCharsets.UTF_8)));
        out.commit();
    }

    /** Reads a save file: at most {@link BoundedText#MAX_FILE_BYTES} of UTF-8 text, one JSON object. */
    public static MsrSaveFile read(Path file) {
        String text = BoundedText.read(file);
        try {
            return parse(text);
        } catch (JsonInput.Malformed | RuntimeException e) {
            throw new HwException(Cause.BAD_INPUT, TerminalText.quote(file.toString())
                    + " is not a usable hwtool msr save file: " + TerminalText.quote(e.getMessage(), 300),
                    "restore from a file written by 'hwtool msr save'");
        }
    }

    public static MsrSaveFile parse(String text) throws JsonInput.Malformed {
        Map<String, Object> root = JsonInput.object(text);
        if (!FORMAT.equals(root.get("format"))) {
            throw new IllegalArgumentException("\"format\" is not \"" + FORMAT + "\"");
        }
        if (MsrJournal.num(root, "version") != VERSION) {
            throw new IllegalArgumentException("version " + root.get("version") + " (this hwtool reads " + VERSION + ")");
        }
        if (!(root.get("simulated") instanceof Boolean sim)) {
            throw new IllegalArgumentException("\"simulated\" is missing or not true/false");
        }
        if (!(root.get("registers") instanceof List<?> list) || list.isEmpty()) {
            throw new IllegalArgumentException("\"registers\" is missing or empty");
        }
        List<Register> regs = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof Map<?, ?> raw)) {
                throw new IllegalArgumentException("registers[" + i + "] is not an object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) raw;
            try {
                long cpu = MsrJournal.num(m, "cpu");
                if (cpu < 0 || cpu > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("\"cpu\" " + cpu + " is out of range");
                }
                Object name = m.get("name");
                if (name != null && !(name instanceof String)) {
                    throw new IllegalArgumentException("\"name\" is not a string");
                }
                regs.add(new Register((int) cpu, MsrJournal.hex(m, "msr", 32), (String) name, MsrJournal.hex(m, "value", 64)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("registers[" + i + "]: " + e.getMessage(), e);
            }
        }
        return new MsrSaveFile(MsrJournal.str(root, "time"), MsrJournal.str(root, "backend"), sim, regs);
    }
}
