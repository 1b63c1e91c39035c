package dev.hwtool.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.api.Cause;
import dev.hwtool.arch.cpuid.CpuidDump;
import dev.hwtool.arch.cpuid.CpuidDumpParser;
import dev.hwtool.arch.cpuid.CpuidLeaf;
import dev.hwtool.arch.cpuid.CpuidSnapshot;
import dev.hwtool.arch.cpuid.SubleafEnumerator;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.sim.Profiles;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The commands end to end, in-process: output, exit codes and one-line errors. */
class CliTest {

    @Test
    void simulatedCpuidIsADumpThatReadsBackToTheProfile() throws IOException {
        Run r = Run.of("cpuid", "--backend", "sim", "--profile", "skylake");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.err().contains("SIMULATED CPU"), "says it is simulated: " + r);
        CpuidDump back = CpuidDumpParser.parse("stdout", r.out());
        // the profile as shipped: its dump file, from the simulator's resources
        Profiles.Entry skylake = Profiles.builtIn().stream().filter(e -> e.name().equals("skylake")).findFirst().orElseThrow();
        CpuidDump profile;
        try (var in = Profiles.class.getResourceAsStream("/dev/hwtool/sim/profiles/" + skylake.file())) {
            profile = CpuidDumpParser.parse("skylake", new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        }
        CpuidReading sim = CpuidReading.of(SimulatedPlatform.of("skylake").cpuid());
        assertEquals(profile.cpus().size(), back.cpus().size());
        for (int i = 0; i < back.cpus().size(); i++) {
            CpuidSnapshot recorded = profile.cpus().get(i);
            CpuidSnapshot printed = back.cpus().get(i);
            assertEquals(SubleafEnumerator.enumerate(sim.reader(recorded.cpu())), printed.leaves(), "CPU " + i);
            // Every leaf the dump recorded and the walk visits is printed as recorded. (Leaves the
            // dump lacks, such as 20000000H, are answered as Intel does out of range: with the
            // highest basic leaf, not with zeros.)
            for (CpuidLeaf l : printed.leaves()) {
                if (recorded.has(l.leaf(), l.subleaf())) {
                    assertEquals(recorded.cpuid(l.leaf(), l.subleaf()), l.regs(), Integer.toHexString(l.leaf()));
                }
            }
        }
    }

    @Test
    void oneLeafOneCpuInCpuidOneLayout() {
        Run r = Run.of("cpuid", "-1", "-l", "0", "--profile", "core2");
        assertEquals(0, r.exit(), r.toString());
        assertEquals("CPU:\n   0x00000000 0x00: eax=0x0000000a ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69\n", r.out());
    }

    @Test
    void subleafOfAGivenCpu() {
        Run r = Run.of("cpuid", "-p", "3", "-l", "4", "-s", "2", "--profile", "alderlake");
        assertEquals(0, r.exit(), r.toString());
        // alderlake.txt: "CPUID 00000004: FC01C143-0240003F-000007FF-00000000 [SL 02] [L2U: 1280 KB]"
        assertEquals("CPU 3:\n   0x00000004 0x02: eax=0xfc01c143 ebx=0x0240003f ecx=0x000007ff edx=0x00000000\n", r.out());
    }

    @Test
    void cpuidJsonSaysSimulatedAndGivesHexRegisters() throws IOException {
        Run r = Run.of("cpuid", "--json", "-1", "-l", "1", "--profile", "core2");
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        assertEquals(true, m.get("simulated"));
        assertEquals("sim", m.get("source"));
        List<?> cpus = (List<?>) m.get("cpus");
        Map<?, ?> leaf = (Map<?, ?>) ((List<?>) ((Map<?, ?>) cpus.getFirst()).get("leaves")).getFirst();
        assertEquals("0x000006fb", leaf.get("eax"));
    }

    @Test
    void subleafWithoutLeafIsAUsageErrorInCpuidsWords() {
        Run r = Run.of("cpuid", "-s", "1");
        assertEquals(2, r.exit(), r.toString());
        assertEquals("hwtool: -s/--subleaf requires that -l/--leaf also be specified\n", r.err());
        assertEquals("", r.out());
    }

    @Test
    void badNumbersAndUnknownOptionsAreUsageErrors() {
        assertEquals(2, Run.of("cpuid", "-l", "zero").exit());
        assertEquals(2, Run.of("cpuid", "-l", "0x1ffffffff").exit());
        assertEquals(2, Run.of("caps", "--frobnicate").exit());
        assertEquals(2, Run.of("cpuid", "--source", "telepathy").exit());
        Run r = Run.of("caps", "--backend", "quantum");
        assertEquals(2, r.exit());
        assertTrue(r.err().startsWith("hwtool: unknown backend 'quantum'"), r.err());
    }

    @Test
    void profileAndHardwareBackendDoNotMix() {
        Run r = Run.of("caps", "--backend", "hw", "--profile", "skylake");
        assertEquals(2, r.exit(), r.toString());
        assertTrue(r.err().contains("--profile applies to the simulator"), r.err());
    }

    @Test
    void simWithoutProfileNamesTheProfiles() {
        Run r = Run.of("caps", "--backend", "sim");
        assertEquals(2, r.exit(), r.toString());
        assertTrue(r.err().contains("skylake") && r.err().contains("alderlake"), r.err());
    }

    @Test
    void cpuOutOfRangeIsNoSuchCpu() {
        Run sim = Run.of("cpuid", "-p", "64", "--profile", "core2");
        assertEquals(Cause.NO_SUCH_CPU.exitCode(), sim.exit(), sim.toString());
        assertTrue(sim.err().startsWith("hwtool: simulated CPU 64 does not exist"), sim.err());
        Run hw = Run.of("cpuid", "-p", "4096");
        assertEquals(Cause.NO_SUCH_CPU.exitCode(), hw.exit(), hw.toString());
        assertTrue(hw.err().contains("CPU 4096"), hw.err());
        Run caps = Run.of("caps", "--cpu", "4096");
        assertEquals(Cause.NO_SUCH_CPU.exitCode(), caps.exit(), caps.toString());
    }

    @Test
    void unreadableDumpIsBadInputInOneLine(@TempDir Path dir) {
        Run missing = Run.of("caps", "--cpuid-dump", dir.resolve("nope.txt").toString());
        assertEquals(Cause.BAD_INPUT.exitCode(), missing.exit(), missing.toString());
        assertEquals(1, missing.err().lines().count(), missing.err());
        assertTrue(missing.err().contains("nope.txt"), missing.err());
        Run directory = Run.of("caps", "--cpuid-dump", dir.toString());
        assertEquals(Cause.BAD_INPUT.exitCode(), directory.exit(), directory.toString());
        assertEquals("", directory.out());
    }

    @Test
    void truncatedDumpLineIsBadInputNamingFileAndLine(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("cut.txt");
        Files.writeString(f, "CPU 0:\n   0x00000000 0x00: eax=0x0000000d ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69\n"
                + "   0x00000001 0x00: eax=0x000206a7 ebx=0x0\n");
        Run r = Run.of("caps", "--cpuid-dump", f.toString());
        assertEquals(Cause.BAD_INPUT.exitCode(), r.exit(), r.toString());
        assertTrue(r.err().contains("cut.txt:3"), r.err());
        assertFalse(r.err().contains("Exception"), "no stack trace: " + r.err());
        assertEquals("", r.out());
    }

    @Test
    void capsJsonHasTheDocumentedKeys() throws IOException {
        Run r = Run.of("caps", "--json", "--backend", "sim", "--profile", "alderlake", "--cpu", "0");
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        for (String key : List.of("source", "vendor", "brand", "family", "model", "stepping", "microarchitecture",
                "hybrid", "hypervisor", "features", "arch_perfmon", "arch_lbr", "lbr", "linux", "verdicts")) {
            assertTrue(m.containsKey(key), "key " + key);
        }
        assertEquals("sim", m.get("source"));
        assertEquals(true, m.get("simulated"));
        assertEquals("GenuineIntel", m.get("vendor"));
        assertEquals(6, m.get("family"));
        assertEquals(0x97, m.get("model"));
        assertEquals(2, m.get("stepping"));
        assertEquals("Alder Lake", m.get("microarchitecture"));
        assertEquals(true, m.get("hybrid"));
        assertEquals("Core", m.get("core_type"));
        Map<?, ?> features = (Map<?, ?>) m.get("features");
        for (String f : List.of("msr", "ds", "dtes64", "ds_cpl", "pdcm", "arch_lbr", "pt")) {
            assertEquals(true, features.get(f), f);
        }
        Map<?, ?> pm = (Map<?, ?>) m.get("arch_perfmon");
        assertEquals(5, pm.get("version"));
        assertEquals(6, pm.get("gp_counters"));
        assertEquals(48, pm.get("gp_width"));
        assertEquals(3, pm.get("fixed_counters"));
        assertEquals(48, pm.get("fixed_width"));
        assertEquals(true, ((Map<?, ?>) pm.get("events")).get("instructions retired"));
        Map<?, ?> al = (Map<?, ?>) m.get("arch_lbr");
        assertEquals(List.of(8, 16, 32), al.get("depths"));
        for (String f : List.of("cpl_filter", "branch_filter", "call_stack", "mispredict", "timed", "branch_type")) {
            assertEquals(true, al.get(f), f);
        }
        Map<?, ?> lbr = (Map<?, ?>) m.get("lbr");
        for (String k : List.of("format", "depth", "source", "from_msr", "to_msr", "info_msr", "call_stack")) {
            assertTrue(lbr.containsKey(k), "lbr." + k + " present even when null");
        }
        assertEquals(null, lbr.get("from_msr"), "Alder Lake uses arch LBR: no legacy FROM MSR");
        Map<?, ?> linux = (Map<?, ?>) m.get("linux");
        assertEquals("this machine", linux.get("describes"));
        assertTrue(((String) m.get("verdicts_describe")).startsWith("this machine"));
        List<?> verdicts = (List<?>) m.get("verdicts");
        assertEquals(8, verdicts.size());
        for (Object o : verdicts) {
            Map<?, ?> v = (Map<?, ?>) o;
            assertEquals(List.of("facility", "usable", "cause", "reason", "remedy"), List.copyOf(v.keySet()));
            assertEquals(v.get("usable").equals(true), v.get("cause") == null, "a cause exactly when unusable: " + v);
        }
    }

    @Test
    void capsOfADumpDescribesTheDumpsCpuAndThisMachinesKernel() throws IOException {
        Path dumps = Path.of(System.getProperty("hwtool.cpuid.dumps"));
        Run r = Run.of("caps", "--json", "--cpuid-dump", dumps.resolve("skylake.txt").toString());
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        assertEquals("dump", m.get("source"));
        assertEquals(false, m.get("simulated"));
        assertEquals("Skylake", m.get("microarchitecture"));
        assertTrue(((String) m.get("verdicts_describe")).contains("not the dump"), (String) m.get("verdicts_describe"));
        Map<?, ?> lbr = (Map<?, ?>) m.get("lbr");
        assertEquals(32, lbr.get("depth"));
        assertEquals("0x00000dc0", lbr.get("info_msr"));
        assertTrue(((String) lbr.get("source")).contains("model table"), (String) lbr.get("source"));
    }

    @Test
    void capsTextPutsVerdictsFirst() {
        Run r = Run.of("caps", "--profile", "haswell");
        assertEquals(0, r.exit(), r.toString());
        int verdicts = r.out().indexOf("Verdicts");
        int processor = r.out().indexOf("Processor");
        assertTrue(verdicts > 0 && verdicts < processor, r.out());
        assertTrue(r.out().contains("Simulated values"), r.out());
        assertTrue(r.out().contains("Haswell"), r.out());
    }

    @Test
    void capsOfThisMachineIsRealAndJudgesEveryFacility() throws IOException {
        Run r = Run.of("caps", "--json");
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        assertEquals(false, m.get("simulated"));
        assertEquals("instruction", m.get("source"));
        assertEquals("this machine", m.get("verdicts_describe"));
        List<?> verdicts = (List<?>) m.get("verdicts");
        assertEquals(List.of("cpuid", "msr_read", "msr_write", "lbr_perf", "bts_perf", "hw_counters", "rdpmc",
                "pebs_perf"),
                verdicts.stream().map(v -> ((Map<?, ?>) v).get("facility")).toList());
        assertEquals(true, ((Map<?, ?>) verdicts.getFirst()).get("usable"), "CPUID works here");
    }

    @Test
    void aLinkNamedAfterASubcommandActsAsIt() {
        Run viaLink = Run.as("cpuid", "-1", "-l", "0", "--profile", "core2");
        Run direct = Run.of("cpuid", "-1", "-l", "0", "--profile", "core2");
        assertEquals(0, viaLink.exit(), viaLink.toString());
        assertEquals(direct.out(), viaLink.out());
    }

    @Test
    void helpListsTheExitCodes() {
        Run r = Run.of("caps", "--help");
        assertEquals(0, r.exit());
        assertTrue(r.out().contains("Exit codes:"), r.out());
        assertTrue(r.out().contains("no such CPU"), r.out());
    }

    @Test
    void profilesListsEveryShippedDump() {
        Run r = Run.of("profiles");
        assertEquals(0, r.exit());
        for (Profiles.Entry e : Profiles.builtIn()) {
            assertTrue(r.out().contains(e.name()), e.name());
        }
        assertTrue(Run.of("profiles", "--attribution").out().contains("BSD-2-Clause"));
    }
}
