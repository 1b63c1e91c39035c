package dev.hwtool.qemu;

import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.api.Platform;
import dev.hwtool.api.WriteRequest;
import dev.hwtool.api.WriteResult;
import dev.hwtool.linux.sys.Bindings;
import dev.hwtool.msr.MsrJournal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The guest side of the careful write path ({@code MsrAccess.write(WriteRequest)}) on the real
 * msr driver, through {@code Platform.open()} on each binding, in the {@code MsrDriverBootIT}
 * boot: observations only, the host asserts ({@code MsrDriverBootIT}).
 *
 * <p>The register written is IA32_TSC_AUX (field AUX, bits 31:0), on both CPUs: QEMU 7.2's TCG
 * keeps what WRMSR writes there and RDMSR returns it (target/i386/tcg/sysemu/misc_helper.c,
 * {@code case MSR_TSC_AUX}), where IA32_DEBUGCTL falls into helper_wrmsr's {@code default:} and
 * is dropped (and reads 0): {@code careful/B/debugctl} records that with a raw write, and
 * {@code careful/B/rollback-verify} uses it as a real read-back failure. The #GP is TCG's one
 * WRMSR fault, IA32_PKRS (6E1H) with a bit of 63:32 set ({@code goto error} → EXCP0D_GPF), which
 * msr.c's wrmsr_safe_on_cpu turns into EIO; PKRS is outside hwtool's catalog, so that write needs
 * {@code force()}. The guest kernel does not use PKS (CR4.PKS clear), and the faulting write
 * changes nothing.
 *
 * <p>Checks, per binding B: {@code careful/B/platform}, {@code .../debugctl}, {@code .../write}
 * (journaled, verified on both CPUs), {@code .../undo}, {@code .../undo-again} (refused),
 * {@code .../dry-run}, {@code .../refused-read-only}, {@code .../refused-reserved},
 * {@code .../rollback-gp}, {@code .../rollback-verify}, {@code .../journal} (every line); then
 * the CLI's wrmsr and msr restore against the library's undo and write ({@link #run}). A
 * request that throws is recorded with its values too ({@code cause}, {@code message}, and for
 * {@link WriteResult.Failed} the writes), so the host sees the registers after a refusal.
 */
final class GuestCarefulWrites {

    /** The check name prefix; {@code careful/<binding>/<what>}. */
    static final String PREFIX = "careful/";
    static final int IA32_DEBUGCTL = 0x1D9;
    /** IA32_PKRS (SDM Vol. 4 Table 2-2, 6E1H; msr-index.h MSR_IA32_PKRS): not in hwtool's catalog. */
    static final int IA32_PKRS = 0x6E1;
    /** What AUX becomes on both CPUs: neither CPU's number, which Linux keeps there. */
    static final long AUX = 0x5a5;
    static final List<Integer> CPUS = List.of(0, 1);

    /** GuestChecks' way of recording one check. */
    interface Observer {
        void observe(String check, Callable<Map<String, String>> body) throws IOException;
    }

    private final Observer observer;
    private final Path journalDir;

    private GuestCarefulWrites(Observer observer, Path journalDir) {
        this.observer = observer;
        this.journalDir = journalDir;
    }

    static String check(String binding, String what) {
        return PREFIX + binding + "/" + what;
    }

    /**
     * Every check on both bindings, each binding with a journal of its own under {@code tmp};
     * then the CLI and the library on one journal ({@code careful/cli-then-library},
     * {@code careful/library-then-cli}, {@code careful/cli/journal}).
     */
    static void run(Observer observer, Path tmp) throws IOException {
        for (String b : Bindings.names()) {
            Path dir = Files.createDirectories(tmp.resolve("hwtool-journal-" + b));
            try (Platform p = Platform.open(Platform.Options.defaults().binding(b))) {
                new GuestCarefulWrites(observer, dir).on(b, p);
            }
        }
        Path dir = Files.createDirectories(tmp.resolve("hwtool-journal-cli"));
        try (Platform p = Platform.open()) {
            new GuestCarefulWrites(observer, dir).acrossCliAndLibrary(p);
        }
    }

    /**
     * {@code hwtool wrmsr} (in this JVM, journal in hwtool.state.dir) undone by
     * {@code WriteRequest.undoLast()}, and a library write undone by {@code hwtool msr restore
     * --last}: both name the backend "hw" and read one journal.
     */
    private void acrossCliAndLibrary(Platform p) throws IOException {
        MsrAccess m = p.msr();
        String previous = System.getProperty("hwtool.state.dir");
        System.setProperty("hwtool.state.dir", journalDir.toString());
        try {
            observer.observe(PREFIX + "cli-then-library", () -> {
                Map<String, String> v = new LinkedHashMap<>();
                v.put("before", hx(m.read(1, GuestMsr.IA32_TSC_AUX.index)));
                cli(v, "wrmsr", "wrmsr", "-p", "1", "IA32_TSC_AUX.AUX=0x" + Long.toHexString(AUX));
                v.put("after_cli", hx(m.read(1, GuestMsr.IA32_TSC_AUX.index)));
                Map<String, String> undo = attempt(m, () -> m.write(WriteRequest.undoLast().journal(journalDir)));
                undo.forEach((k, x) -> v.put("undo/" + k, x));
                return v;
            });
            observer.observe(PREFIX + "library-then-cli", () -> {
                Map<String, String> v = new LinkedHashMap<>();
                Map<String, String> write = attempt(m, () -> m.write(WriteRequest.field(1, "IA32_TSC_AUX", "AUX", AUX).journal(journalDir)));
                write.forEach((k, x) -> v.put("write/" + k, x));
                cli(v, "restore", "msr", "restore", "--last");
                v.put("after_cli", hx(m.read(1, GuestMsr.IA32_TSC_AUX.index)));
                return v;
            });
        } finally {
            if (previous == null) {
                System.clearProperty("hwtool.state.dir");
            } else {
                System.setProperty("hwtool.state.dir", previous);
            }
        }
        observer.observe(PREFIX + "cli/journal", this::journal);
    }

    /** hwtool's CLI in this JVM, as the launcher runs it: exit status, stdout and stderr as {@code key/...}. */
    private static void cli(Map<String, String> v, String key, String... args) {
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        int rc = dev.hwtool.cli.Main.run("hwtool", args, new java.io.PrintWriter(out), new java.io.PrintWriter(err));
        v.put(key + "/exit", Integer.toString(rc));
        v.put(key + "/out", out.toString().strip());
        v.put(key + "/err", err.toString().strip());
    }

    private void on(String b, Platform p) throws IOException {
        MsrAccess m = p.msr();
        observer.observe(check(b, "platform"), () -> Map.of("kind", p.kind().name(), "description", p.description(),
                "cpus", String.join(",", m.cpus().stream().map(String::valueOf).toList())));
        observer.observe(check(b, "debugctl"), () -> rawDebugctl(m));

        WriteRequest write = WriteRequest.field(CPUS, "IA32_TSC_AUX", "AUX", AUX).journal(journalDir);
        long[] batch = new long[1];
        observer.observe(check(b, "write"), () -> {
            Map<String, String> v = attempt(m, () -> m.write(write));
            batch[0] = Long.parseLong(v.getOrDefault("batch", "0"));
            return v;
        });
        observer.observe(check(b, "undo"), () -> attempt(m, () -> m.write(WriteRequest.undo(batch[0]).journal(journalDir))));
        observer.observe(check(b, "undo-again"), () -> attempt(m, () -> m.write(WriteRequest.undo(batch[0]).journal(journalDir))));
        observer.observe(check(b, "dry-run"), () -> attempt(m, () -> m.write(write.dryRun())));
        // The first write of the request is fine; the second sets a read-only field (SDM Vol. 3A
        // 11.4.4: IA32_APIC_BASE.BSP). Refused before the first WRMSR.
        observer.observe(check(b, "refused-read-only"), () -> attempt(m, () -> m.write(WriteRequest.field(0, "IA32_TSC_AUX", "AUX", AUX)
                .then(WriteRequest.field(1, "IA32_APIC_BASE", "BSP", 1)).journal(journalDir))));
        // Bit 40 of IA32_TSC_AUX is reserved (SDM Vol. 4: bits 63:32); TCG itself would store it
        // (QemuMsrAccessContract.tscAuxReservedBitsAreHonoured): the catalog refuses it first.
        observer.observe(check(b, "refused-reserved"), () -> attempt(m, () -> m.write(WriteRequest.value(0, "IA32_TSC_AUX",
                m.read(0, GuestMsr.IA32_TSC_AUX.index) | 1L << 40).journal(journalDir))));
        observer.observe(check(b, "rollback-gp"), () -> attempt(m, () -> m.write(WriteRequest.field(0, "IA32_TSC_AUX", "AUX", AUX)
                .then(WriteRequest.value(1, IA32_PKRS, 1L << 32)).force().journal(journalDir))));
        observer.observe(check(b, "rollback-verify"), () -> attempt(m, () -> m.write(WriteRequest.field(0, "IA32_TSC_AUX", "AUX", AUX)
                .then(WriteRequest.field(1, "IA32_DEBUGCTL", "BTF", 1)).journal(journalDir))));
        observer.observe(check(b, "journal"), this::journal);
    }

    /** A raw WRMSR of IA32_DEBUGCTL.LBR on CPU 0 and its read-back; the old value is written back. */
    private static Map<String, String> rawDebugctl(MsrAccess m) {
        long old = m.read(0, IA32_DEBUGCTL);
        m.write(0, IA32_DEBUGCTL, old | 1);
        long back = m.read(0, IA32_DEBUGCTL);
        m.write(0, IA32_DEBUGCTL, old);
        return Map.of("old", hx(old), "written", hx(old | 1), "read_back", hx(back));
    }

    /**
     * Runs one careful request and records what it did and the registers it may touch after it:
     * on success the result; on an exception its cause and message, and for
     * {@link WriteResult.Failed} the result it carries.
     */
    private Map<String, String> attempt(MsrAccess m, Callable<WriteResult> request) throws IOException {
        Map<String, String> v = new LinkedHashMap<>();
        v.put("journal_lines_before", Integer.toString(journalLines().size()));
        registers(m, v, "before");
        try {
            put(v, request.call());
        } catch (WriteResult.Failed f) {
            cause(v, f);
            put(v, f.result());
        } catch (HwException e) {
            cause(v, e);
        } catch (Exception e) {
            v.put("cause", Observation.UNEXPECTED + e.getClass().getName());
            v.put("message", String.valueOf(e.getMessage()));
        }
        registers(m, v, "after");
        v.put("journal_lines_after", Integer.toString(journalLines().size()));
        return v;
    }

    private static void cause(Map<String, String> v, HwException e) {
        v.put("cause", e.cause().name());
        v.put("message", e.getMessage());
    }

    private static void registers(MsrAccess m, Map<String, String> v, String when) {
        for (int cpu : CPUS) {
            v.put(when + "/cpu" + cpu + "/IA32_TSC_AUX", hx(m.read(cpu, GuestMsr.IA32_TSC_AUX.index)));
            v.put(when + "/cpu" + cpu + "/IA32_DEBUGCTL", hx(m.read(cpu, IA32_DEBUGCTL)));
            v.put(when + "/cpu" + cpu + "/IA32_PKRS", hx(m.read(cpu, IA32_PKRS)));
            v.put(when + "/cpu" + cpu + "/IA32_APIC_BASE", hx(m.read(cpu, GuestMsr.IA32_APIC_BASE.index)));
        }
    }

    /** The result as flat values: {@code batch}, {@code dry_run}, {@code simulated}, {@code writes}, {@code wN/...}, {@code notes}. */
    private static void put(Map<String, String> v, WriteResult r) {
        r.batch().ifPresent(b -> v.put("batch", Long.toString(b)));
        v.put("dry_run", Boolean.toString(r.dryRun()));
        v.put("simulated", Boolean.toString(r.simulated()));
        v.put("all_written", Boolean.toString(r.allWritten()));
        v.put("writes", Integer.toString(r.writes().size()));
        for (int i = 0; i < r.writes().size(); i++) {
            WriteResult.Write w = r.writes().get(i);
            String k = "w" + i + "/";
            v.put(k + "cpu", Integer.toString(w.cpu()));
            v.put(k + "msr", String.format("0x%x", Integer.toUnsignedLong(w.msr())));
            v.put(k + "name", w.name().orElse(""));
            v.put(k + "old", hx(w.oldValue()));
            v.put(k + "new", hx(w.newValue()));
            v.put(k + "written", Boolean.toString(w.written()));
            v.put(k + "verified", Boolean.toString(w.verified()));
            v.put(k + "rolled_back", Boolean.toString(w.rolledBack()));
        }
        v.put("notes", String.join("\n", r.notes()));
    }

    private Map<String, String> journal() throws IOException {
        Map<String, String> v = new LinkedHashMap<>();
        List<String> lines = journalLines();
        v.put("lines", Integer.toString(lines.size()));
        for (int i = 0; i < lines.size(); i++) {
            v.put("line" + i, lines.get(i));
        }
        return v;
    }

    private List<String> journalLines() throws IOException {
        Path f = journalDir.resolve(MsrJournal.FILE);
        return Files.exists(f) ? Files.readAllLines(f) : List.of();
    }

    private static String hx(long value) {
        return String.format("0x%016x", value);
    }
}
