package dev.hwtool.cli;

import dev.hwtool.msr.MsrJournal;
import dev.hwtool.msr.MsrSaveFile;
import dev.hwtool.testing.Preconditions;
import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * rdmsr, wrmsr and msr save/restore end to end, in-process, on the simulator: output bytes, exit
 * codes, stderr lines, and the journal on disk (hwtool.state.dir points at a temporary directory).
 */
class MsrCommandsTest {

    private static final String[] SKY = {"--profile", "skylake"};

    @TempDir
    Path state;

    @BeforeEach
    void journalInTempDir() {
        System.setProperty("hwtool.state.dir", state.toString());
    }

    @AfterEach
    void clear() {
        System.clearProperty("hwtool.state.dir");
    }

    private static Run rd(String... args) {
        return Run.of(concat(new String[]{"rdmsr"}, concat(SKY, args)));
    }

    private static Run wr(String... args) {
        return Run.of(concat(new String[]{"wrmsr"}, concat(SKY, args)));
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = new String[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** IA32_PERF_CAPABILITIES of the simulated skylake, as the simulator itself reports it. */
    private static long perfCaps(int cpu) {
        return SimulatedPlatform.of("skylake").msr().read(cpu, 0x345);
    }

    private List<Map<String, Object>> journal() throws IOException {
        Path f = state.resolve(MsrJournal.SIMULATOR_DIR).resolve(MsrJournal.FILE);   // the simulator's own
        List<Map<String, Object>> out = new ArrayList<>();
        if (Files.exists(f)) {
            for (String line : Files.readAllLines(f)) {
                out.add(JSON.std.mapFrom(line));
            }
        }
        return out;
    }

    /**
     * The skylake profile as a CPUID dump with per-CPU edits: {@code edits} are pairs of
     * (CPU number, "old line fragment=>new line fragment"). A machine whose CPUs differ, as a
     * hybrid part's do, built from real dump text.
     */
    private Path skylakeWith(Path dir, String... edits) throws IOException {
        Run dump = Run.of("cpuid", "--profile", "skylake");
        assertEquals(0, dump.exit(), dump.toString());
        StringBuilder out = new StringBuilder();
        int cpu = -1;
        for (String line : dump.out().split("\n", -1)) {
            if (line.startsWith("CPU ")) {
                cpu = Integer.parseInt(line.substring(4, line.length() - 1));
            }
            for (int i = 0; i < edits.length; i += 2) {
                String[] ft = edits[i + 1].split("=>");
                if (Integer.parseInt(edits[i]) == cpu && line.contains(ft[0])) {
                    line = line.replace(ft[0], ft[1]);
                }
            }
            out.append(line).append('\n');
        }
        Path f = dir.resolve("hetero.txt");
        Files.writeString(f, out);
        return f;
    }

    // leaf 01H ECX bit 15 (PDCM) cleared on CPU 1: no IA32_PERF_CAPABILITIES, no freeze bits there
    private static final String NO_PDCM = "0x00000001 0x00: eax=0x000506e3 ebx=0x01100800 ecx=0x7ffafbbf=>0x00000001 0x00: eax=0x000506e3 ebx=0x01100800 ecx=0x7ffa7bbf";
    // leaf 0AH EAX[23:16] general-purpose counter width 48 -> 32 on CPU 0
    private static final String NARROW_PMC = "0x0000000a 0x00: eax=0x07300404=>0x0000000a 0x00: eax=0x07200404";

    // ---------------------------------------------------------------- rdmsr

    /**
     * The TSC counts on between the write and its read-back: verified by the counting rule
     * (CountingRegisters), where an exact comparison failed every TSC write ("wrote 0x1000 but
     * read back 0x1064", exit 12) and rolled a stale value back.
     */
    @Test
    void aCountingRegisterIsVerifiedByHavingCountedOnFromTheValueWritten() {
        Run w = wr("IA32_TIME_STAMP_COUNTER", "0x1000");
        assertEquals(0, w.exit(), w.toString());
        assertFalse(w.err().contains("read back"), w.toString());
    }

    @Test
    void namesAndNumbersInEverySpellingReadTheSameRegister() {
        long v = perfCaps(0);
        String expected = Long.toHexString(v) + "\n";
        for (String reg : new String[]{"0x345", "0X345", "837", "01505", "IA32_PERF_CAPABILITIES", "ia32_perf_capabilities",
                "MSR_IA32_PERF_CAPABILITIES"}) {
            Run r = rd(reg);
            assertEquals(0, r.exit(), reg + ": " + r);
            assertEquals(expected, r.out(), reg);
            assertTrue(r.err().contains("SIMULATED CPU"), "stderr says it is simulated: " + r);
        }
    }

    @Test
    void formatOptionsClusteredAndLongAsMsrTools() {
        long v = perfCaps(0);
        assertEquals(String.format("0x%016X%n", v), rd("-Xc0", "0x345").out());
        assertEquals(String.format("0x%016X%n", v), rd("--capital-hex", "--c-language", "--zero", "0x345").out());
        assertEquals(String.format("%016x%n", v), rd("0x345", "-0").out(), "options after the operand (permutation)");
        assertEquals(Long.toUnsignedString(v) + "U\n", rd("-uc", "0x345").out());
        assertEquals("0" + Long.toOctalString(v) + "\n", rd("-o", "-c", "0x345").out());
        long low6 = v & 0x3F;
        assertEquals(String.valueOf(low6 >= 32 ? low6 - 64 : low6) + "\n", rd("-d", "-f", "5:0", "0x345").out());
        assertEquals(String.format("%02x%n", (v >>> 8) & 0xFF), rd("--bitfield=15:8", "-0", "0x345").out());
        assertEquals(String.format("%x%n", v), rd("-d", "-x", "0x345").out(), "the last base wins");
        byte[] raw = rd("-r", "0x345").bytes();
        assertEquals(8, raw.length);
        for (int i = 0; i < 8; i++) {
            assertEquals((byte) (v >>> (8 * i)), raw[i], "byte " + i);
        }
        assertTrue(rd("-rc", "0x345").out().matches("\\{0x[0-9a-f]{2}(,0x[0-9a-f]{2}){7}}\n"));
    }

    @Test
    void allCpusInNumericOrderWithOptionalPrefix() {
        Run plain = rd("-a", "0x345");
        assertEquals(0, plain.exit(), plain.toString());
        assertEquals((Long.toHexString(perfCaps(0)) + "\n").repeat(8), plain.out());
        Run prefixed = rd("-a", "--cpu-prefix", "-c", "0x345");
        StringBuilder expected = new StringBuilder();
        for (int c = 0; c < 8; c++) {
            expected.append("CPU ").append(c).append(": 0x").append(Long.toHexString(perfCaps(c))).append('\n');
        }
        assertEquals(expected.toString(), prefixed.out());
        assertEquals("", rd("-a", "-p", "3", "0x345").err().replaceAll("hwtool: note: SIMULATED.*\n", ""), "-p after -a wins");
        assertEquals(Long.toHexString(perfCaps(3)) + "\n", rd("-a", "-p", "3", "0x345").out());
    }

    @Test
    void allCarriesOnPastAFailingCpuAndExitsWithItsCode(@TempDir Path dir) throws IOException {
        Path hetero = skylakeWith(dir, "1", NO_PDCM);
        Run r = Run.of("rdmsr", "--profile", hetero.toString(), "-a", "--cpu-prefix", "IA32_PERF_CAPABILITIES");
        assertEquals(4, r.exit(), r.toString());
        String v = Long.toHexString(perfCaps(0));
        StringBuilder expected = new StringBuilder();
        for (int c = 0; c < 8; c++) {
            if (c != 1) {
                expected.append("CPU ").append(c).append(": ").append(v).append('\n');
            }
        }
        assertEquals(expected.toString(), r.out());
        assertTrue(r.err().contains("rdmsr: CPU 1 cannot read MSR 0x00000345\n"), r.err());
        Run one = Run.of("rdmsr", "--profile", hetero.toString(), "-p", "1", "0x345");
        assertEquals(4, one.exit());
        assertEquals("", one.out());
    }

    @Test
    void msrToolsExitCodesAndMessages() {
        Run noCpu = rd("-p", "99", "0x345");
        assertEquals(2, noCpu.exit(), noCpu.toString());
        assertTrue(noCpu.err().contains("rdmsr: No CPU 99\n"), noCpu.err());
        Run gp = rd("0x123");
        assertEquals(4, gp.exit(), gp.toString());
        assertTrue(gp.err().contains("rdmsr: CPU 0 cannot read MSR 0x00000123\n"), gp.err());
        for (String[] bad : new String[][]{{"-p", "5120", "0x10"}, {"-f", "64:0", "0x10"}, {"-f", "3:4", "0x10"},
                {"-f", "3", "0x10"}, {"MSR_K8_TOP_MEM2"}, {"0x1d9junk"}, {"0x100000000"}, {"0x10", "0x11"}, {}, {"-z", "0x10"},
                {"--c", "0x10"}, {"--backend", "nope", "0x10"}}) {
            Run r = Run.of(concat(new String[]{"rdmsr"}, bad));
            assertEquals(127, r.exit(), String.join(" ", bad) + ": " + r);
            assertEquals("", r.out(), String.join(" ", bad));
            assertTrue(r.err().startsWith("rdmsr: "), r.err());
            assertTrue(r.err().contains("Usage: rdmsr [options] regno"), r.err());
        }
        assertTrue(Run.of("rdmsr", "-z", "0x10").err().startsWith("rdmsr: invalid option -- 'z'\n"));
        assertTrue(Run.of("rdmsr", "MSR_K8_TOP_MEM2").err().contains("'MSR_K8_TOP_MEM2' is neither a register number"));
    }

    @Test
    void helpAndVersionGoToStderrWithExitZero() {
        Run h = Run.of("rdmsr", "-h", "-z");
        assertEquals(0, h.exit());
        assertEquals("", h.out());
        assertTrue(h.err().startsWith("Usage: rdmsr [options] regno\n  --help         -h  Print this help\n"), h.err());
        Run v = Run.of("rdmsr", "--version");
        assertEquals(0, v.exit());
        assertTrue(v.err().startsWith("rdmsr: version msr-tools-1.3 compatible"), v.err());
        Run late = Run.of("rdmsr", "-f", "70:0", "-h");
        assertEquals(127, late.exit(), "getopt order: the bad -f comes first");
    }

    @Test
    void aLinkNamedRdmsrOrWrmsrIsADropIn() {
        Run viaLink = Run.as("rdmsr", concat(SKY, new String[]{"-c", "0x345"}));
        assertEquals(rd("-c", "0x345").out(), viaLink.out());
        assertEquals(0, viaLink.exit());
        Run w = Run.as("wrmsr", concat(SKY, new String[]{"--dry-run", "IA32_DEBUGCTL", "1"}));
        assertEquals(0, w.exit(), w.toString());
        assertTrue(w.out().endsWith("dry run: nothing written\n"), w.out());
    }

    @Test
    void jsonHasCpuMsrNameValueFieldsAndSaysSimulated() throws IOException {
        Run r = rd("--json", "-a", "IA32_PERF_CAPABILITIES");
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> root = JSON.std.mapFrom(r.out());
        assertEquals(true, root.get("simulated"));
        List<?> reads = (List<?>) root.get("reads");
        assertEquals(8, reads.size());
        Map<?, ?> first = (Map<?, ?>) reads.getFirst();
        assertEquals(0, first.get("cpu"));
        assertEquals("0x00000345", first.get("msr"));
        assertEquals("IA32_PERF_CAPABILITIES", first.get("name"));
        assertEquals(String.format("0x%016x", perfCaps(0)), first.get("value"));
        Map<?, ?> lbrFmt = (Map<?, ?>) ((List<?>) first.get("fields")).getFirst();
        assertEquals("LBR_FMT", lbrFmt.get("name"));
        assertEquals("5:0", lbrFmt.get("bits"));
        assertEquals("0x" + Long.toHexString(perfCaps(0) & 0x3F), lbrFmt.get("value"));
        Map<String, Object> unknown = JSON.std.mapFrom(rd("--json", "0x123").out());
        Map<?, ?> err = (Map<?, ?>) ((List<?>) unknown.get("reads")).getFirst();
        assertEquals(4, err.get("exit"));
        assertEquals(null, err.get("name"));
    }

    @Test
    void decodeNamesTheFields() {
        Run r = rd("--decode", "IA32_PERF_CAPABILITIES");
        assertEquals(0, r.exit(), r.toString());
        String[] lines = r.out().split("\n");
        assertEquals(Long.toHexString(perfCaps(0)), lines[0]);
        assertTrue(lines[1].trim().startsWith("LBR_FMT"), r.out());
        assertTrue(lines[1].contains("= 0x" + Long.toHexString(perfCaps(0) & 0x3F)), lines[1]);
    }

    @Test
    void hardwareWithoutTheMsrDriverAnswersAsMsrTools() {
        Preconditions.hostLacks(Preconditions.Kernel.MSR_NODE);
        Run r = Run.of("rdmsr", "--backend", "hw", "0x10");
        assertEquals(127, r.exit(), r.toString());
        assertTrue(r.err().startsWith("rdmsr: open: No such file or directory\nhwtool: fix: "), r.err());
        assertEquals("", r.out());
        Run w = Run.of("wrmsr", "--backend", "hw", "IA32_DEBUGCTL", "0");
        assertEquals(127, w.exit(), w.toString());
        assertTrue(w.err().startsWith("wrmsr: open: No such file or directory\nhwtool: fix: "), w.err());
    }

    @Test
    void msrToolsSaysTheSameOnThisMachine() throws IOException, InterruptedException {
        Require.tool("/usr/sbin/rdmsr");
        Preconditions.hostLacks(Preconditions.Kernel.MSR_NODE);
        for (String[] args : new String[][]{{"0x10"}, {"-a", "-x", "0x10"}, {"-p", "5120", "0x10"}, {"-f", "64:0", "0x10"},
                {"-h"}, {"-V"}}) {
            List<String> cmd = new ArrayList<>(List.of("/usr/sbin/rdmsr"));
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).start();
            String out = new String(p.getInputStream().readAllBytes());
            String err = new String(p.getErrorStream().readAllBytes());
            int exit = p.waitFor();
            Run ours = Run.as("rdmsr", args);
            String what = String.join(" ", args);
            assertEquals(exit, ours.exit(), what);
            assertEquals(out, ours.out(), what);
            // The same line, possibly after hwtool's own reason line for a usage error.
            String theirs = err.lines().findFirst().orElse("").replaceFirst("msr-tools-1.3$", "").replace("/usr/sbin/rdmsr", "rdmsr");
            assertTrue(ours.err().contains(theirs), what + ": msr-tools says '" + theirs + "'\n" + ours);
        }
    }

    // ---------------------------------------------------------------- wrmsr

    @Test
    void reservedBitsAreRefusedBeforeAnyWrite() throws IOException {
        Run r = wr("IA32_DEBUGCTL", "0x20");
        assertEquals(3, r.exit(), r.toString());
        assertTrue(r.err().contains("reserved bits set on this CPU, mask 0x20"), r.err());
        assertTrue(r.err().contains("nothing written"), r.err());
        assertEquals(List.of(), journal(), "journaled before every write: no entry, no write");
    }

    @Test
    void readOnlyRegistersAndFieldsAreRefused() throws IOException {
        Run reg = wr("IA32_PERF_CAPABILITIES", "0");
        assertEquals(3, reg.exit(), reg.toString());
        assertTrue(reg.err().contains("read-only"), reg.err());
        Run field = wr("IA32_MISC_ENABLE.EMON=0");
        assertEquals(3, field.exit(), field.toString());
        assertTrue(field.err().contains("IA32_MISC_ENABLE.EMON [7] is read-only"), field.err());
        assertEquals(List.of(), journal());
    }

    @Test
    void unknownRegistersNeedForce() throws IOException {
        Run refused = wr("0x123", "1");
        assertEquals(3, refused.exit(), refused.toString());
        assertTrue(refused.err().contains("MSR 0x00000123 is not in hwtool's catalog: not written without --force"), refused.err());
        assertEquals(List.of(), journal());
        // Forced, hwtool still reads the old value first (for the journal and the undo); the
        // (simulated) CPU #GPs on the unimplemented MSR: msr-tools' message and code 4, no write.
        Run forced = wr("--force", "0x123", "1");
        assertEquals(4, forced.exit(), forced.toString());
        assertTrue(forced.err().contains("wrmsr: CPU 0 cannot read MSR 0x00000123\n"), forced.err());
        assertEquals(List.of(), journal());
        // A catalogued register the CPU lacks: the catalog refuses it before any access.
        Run absent = wr("IA32_LBR_CTL", "1");
        assertEquals(11, absent.exit(), absent.toString());
        assertTrue(absent.err().contains("does not exist on this CPU"), absent.err());
    }

    @Test
    void fieldNotOnThisCpuIsRefusedForAllCpus(@TempDir Path dir) throws IOException {
        Path hetero = skylakeWith(dir, "1", NO_PDCM);
        Run r = Run.of("wrmsr", "--profile", hetero.toString(), "-a", "IA32_DEBUGCTL.FREEZE_LBRS_ON_PMI=1");
        assertEquals(11, r.exit(), r.toString());
        assertTrue(r.err().contains("CPU 1: IA32_DEBUGCTL.FREEZE_LBRS_ON_PMI [11] does not exist on this CPU"), r.err());
        assertEquals(List.of(), journal(), "CPU 0 was not written either");
    }

    @Test
    void dryRunShowsOldToNewPerFieldAndWritesNothing() throws IOException {
        Run r = wr("--dry-run", "-a", "IA32_DEBUGCTL.LBR=1", "BTF=1");
        assertEquals(0, r.exit(), r.toString());
        String[] lines = r.out().split("\n");
        assertEquals(8 * 3 + 1, lines.length, r.out());
        assertEquals("CPU 0 IA32_DEBUGCTL 0x000001d9: 0x0000000000000000 -> 0x0000000000000003", lines[0]);
        assertEquals("  LBR [0]: 0x0 -> 0x1", lines[1]);
        assertEquals("  BTF [1]: 0x0 -> 0x1", lines[2]);
        assertEquals("CPU 7 IA32_DEBUGCTL 0x000001d9: 0x0000000000000000 -> 0x0000000000000003", lines[21]);
        assertEquals("dry run: nothing written", lines[24]);
        assertEquals(List.of(), journal());
    }

    @Test
    void badFieldsAndValuesAreUsageErrors() throws IOException {
        for (String[] bad : new String[][]{{"IA32_DEBUGCTL", "garbage"}, {"IA32_DEBUGCTL"}, {"IA32_DEBUGCTL.NOPE=1"},
                {"LBR=1"}, {"IA32_DEBUGCTL.LBR=1", "0x5"}, {"0x123.X=1"}, {"IA32_DEBUGCTL", "0x10000000000000000"}}) {
            Run r = wr(bad);
            assertEquals(127, r.exit(), String.join(" ", bad) + ": " + r);
            assertTrue(r.err().contains("Usage: wrmsr [options] regno value..."), r.err());
        }
        assertTrue(wr("IA32_DEBUGCTL.NOPE=1").err().contains("IA32_DEBUGCTL has no field 'NOPE' (fields: LBR, BTF,"));
        Run tooWide = wr("IA32_DEBUGCTL.LBR=2");
        assertEquals(3, tooWide.exit(), tooWide.toString());
        assertTrue(tooWide.err().contains("does not fit IA32_DEBUGCTL.LBR [0]"), tooWide.err());
        assertEquals(List.of(), journal());
    }

    @Test
    void everyWriteIsJournaledWithBackendCpuMsrOldNew() throws IOException {
        Run r = wr("-a", "IA32_DEBUGCTL.LBR=1");
        assertEquals(0, r.exit(), r.toString());
        assertEquals("", r.out());
        List<Map<String, Object>> j = journal();
        assertEquals(8, j.size());
        for (int c = 0; c < 8; c++) {
            Map<String, Object> e = j.get(c);
            assertEquals(c, e.get("cpu"));
            assertEquals("sim:skylake", e.get("backend"));
            assertEquals("wrmsr", e.get("kind"));
            assertEquals("0x000001d9", e.get("msr"));
            assertEquals("IA32_DEBUGCTL", e.get("name"));
            assertEquals("0x0000000000000000", e.get("old"));
            assertEquals("0x0000000000000001", e.get("new"));
            assertEquals(j.getFirst().get("batch"), e.get("batch"));
            assertTrue(e.get("time") instanceof String t && t.endsWith("Z"));
        }
        Run seq = wr("IA32_DEBUGCTL", "1", "3");
        assertEquals(0, seq.exit(), seq.toString());
        List<Map<String, Object>> k = journal();
        assertEquals("0x0000000000000001", k.get(8).get("new"), "msr-tools form: each value in turn");
        assertEquals("0x0000000000000001", k.get(9).get("old"));
        assertEquals("0x0000000000000003", k.get(9).get("new"));
    }

    @Test
    void writesAreVerifiedByReadingBack() throws IOException {
        // Legacy IA32_PMCx writes sign-extend bit 31 (SDM Vol. 3B 20.2.5): the read-back differs.
        Run r = wr("IA32_PMC0", "0x80000000");
        assertEquals(12, r.exit(), r.toString());
        assertTrue(r.err().contains("wrote 0x0000000080000000 but read back 0x0000ffff80000000"), r.err());
        assertTrue(r.err().contains("all or nothing: restored CPU 0 IA32_PMC0 to 0x0000000000000000"), r.err());
        assertEquals(2, journal().size(), "the write and its rollback");
    }

    @Test
    void allOrNothingPutsBackTheCpusAlreadyWritten(@TempDir Path dir) throws IOException {
        // CPU 0 has 32-bit counters (no sign extension shows), CPU 1 48-bit ones (it does).
        Path hetero = skylakeWith(dir, "0", NARROW_PMC);
        Run r = Run.of("wrmsr", "--profile", hetero.toString(), "-a", "IA32_PMC0", "0x80000000");
        assertEquals(12, r.exit(), r.toString());
        assertTrue(r.err().contains("CPU 1 IA32_PMC0 0x000000c1: wrote 0x0000000080000000 but read back"), r.err());
        assertTrue(r.err().contains("all or nothing: restored CPU 1 IA32_PMC0 to 0x0000000000000000"), r.err());
        assertTrue(r.err().contains("all or nothing: restored CPU 0 IA32_PMC0 to 0x0000000000000000"), r.err());
        assertFalse(r.err().contains("CPU 2"), "stopped at the failing CPU: " + r.err());
        List<Map<String, Object>> j = journal();
        assertEquals(List.of(0, 1, 1, 0), j.stream().map(e -> e.get("cpu")).toList());
        assertEquals(List.of(false, false, true, true), j.stream().map(e -> e.get("rollback")).toList());
    }

    // ---------------------------------------------------------------- msr restore --last / save / restore FILE

    @Test
    void restoreLastUndoesTheLastBatchOnTheSameBackend() throws IOException {
        assertEquals(0, wr("-a", "IA32_DEBUGCTL.LBR=1").exit());
        Run other = Run.of("msr", "restore", "--last", "--profile", "core2");
        assertEquals(2, other.exit(), other.toString());
        assertTrue(other.err().contains("run with --backend sim --profile skylake"), other.err());
        // A new simulator run starts from boot values, so the batch's result is gone: refused...
        Run changed = Run.of("msr", "restore", "--last", "--profile", "skylake");
        assertEquals(3, changed.exit(), changed.toString());
        assertTrue(changed.err().contains("as batch 1 left it: nothing written"), changed.err());
        // ... unless forced.
        Run undo = Run.of("msr", "restore", "--last", "--profile", "skylake", "--force");
        assertEquals(0, undo.exit(), undo.toString());
        assertTrue(undo.out().startsWith("undid batch 1 (wrmsr at "), undo.out());
        List<Map<String, Object>> j = journal();
        assertEquals(16, j.size());
        Map<String, Object> u = j.get(8);
        assertEquals("undo", u.get("kind"));
        assertEquals(1, u.get("undoes"));
        assertEquals(7, u.get("cpu"), "last written, first restored");
        assertEquals("0x0000000000000000", u.get("new"));
        Run nothing = Run.of("msr", "restore", "--last", "--profile", "skylake", "--force");
        assertEquals(3, nothing.exit(), nothing.toString());
        assertTrue(nothing.err().contains("nothing to undo"), nothing.err());
    }

    @Test
    void saveThenRestoreFileRoundTrip(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("regs.json");
        Run save = Run.of("msr", "save", "IA32_DEBUGCTL", "ia32_perf_capabilities", "-a", "-o", f.toString(), "--profile", "skylake");
        assertEquals(0, save.exit(), save.toString());
        MsrSaveFile saved = MsrSaveFile.read(f);
        assertEquals(16, saved.registers().size());
        assertEquals(new MsrSaveFile.Register(3, 0x345, "IA32_PERF_CAPABILITIES", perfCaps(3)), saved.registers().get(7));
        assertEquals("sim:skylake", saved.backend());
        assertTrue(saved.simulated());
        // Everything already holds its saved value (RO IA32_PERF_CAPABILITIES included): no write.
        Run same = Run.of("msr", "restore", f.toString(), "--profile", "skylake");
        assertEquals(0, same.exit(), same.toString());
        assertTrue(same.out().contains("restored 0 register values"), same.out());
        assertEquals(List.of(), journal());
        // A file saved when CPU 2's IA32_DEBUGCTL had LBR set: restoring writes exactly that.
        Files.writeString(f, Files.readString(f).replaceFirst(
                "(\"cpu\" : 2,\\s*\"msr\" : \"0x000001d9\",\\s*\"name\" : \"IA32_DEBUGCTL\",\\s*\"value\" : \")0x0000000000000000",
                "$10x0000000000000001"));
        Run one = Run.of("msr", "restore", f.toString(), "--profile", "skylake");
        assertEquals(0, one.exit(), one.toString());
        List<Map<String, Object>> j = journal();
        assertEquals(1, j.size(), j.toString());
        assertEquals(2, j.getFirst().get("cpu"));
        assertEquals("restore", j.getFirst().get("kind"));
        assertEquals("0x0000000000000001", j.getFirst().get("new"));
        Run elsewhere = Run.of("msr", "restore", f.toString(), "--profile", "core2");
        assertEquals(3, elsewhere.exit(), elsewhere.toString());
        assertTrue(elsewhere.err().contains("was saved on sim:skylake, not on sim:core2"), elsewhere.err());
    }

    @Test
    void aTruncatedOrGarbageSaveFileIsOneLineBadInputAndWritesNothing(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("regs.json");
        assertEquals(0, Run.of("msr", "save", "IA32_DEBUGCTL", "-o", f.toString(), "--profile", "skylake").exit());
        String full = Files.readString(f);
        for (String text : new String[]{full.substring(0, full.length() / 2), "garbage", "", "{}", "[1,2]"}) {
            Files.writeString(f, text);
            Run r = Run.of("msr", "restore", f.toString(), "--profile", "skylake");
            assertEquals(3, r.exit(), r.toString());
            assertEquals(1, r.err().lines().filter(l -> l.startsWith("hwtool: ") && !l.startsWith("hwtool: fix:")).count(), r.err());
            assertTrue(r.err().contains("is not a usable hwtool msr save file"), r.err());
        }
        assertEquals(List.of(), journal());
        assertEquals(2, Run.of("msr", "restore", "--profile", "skylake").exit(), "FILE or --last");
        assertEquals(2, Run.of("msr", "save", "IA32_DEBUGCTL", "-a", "-p", "1", "-o", f.toString(), "--profile", "skylake").exit());
    }
}
