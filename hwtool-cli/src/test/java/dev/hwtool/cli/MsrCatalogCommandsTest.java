package dev.hwtool.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.api.Cause;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.msr.MsrMachine;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code hwtool msr list} and {@code hwtool msr decode}: output, JSON keys, bad input. */
class MsrCatalogCommandsTest {

    /**
     * The simulator's own view of its CPU 0, with the IA32_PERF_CAPABILITIES it reports (msr list
     * reads it): the machine view its MsrAccess gives the careful write path.
     */
    private static CpuContext cpu0(String profile) {
        return ((MsrMachine) SimulatedPlatform.of(profile).msr()).context(0);
    }

    // ---- list -----------------------------------------------------------------------------------

    @Test
    void listByDefaultShowsWhatExistsOnTheProfilesCpu() throws IOException {
        Run r = Run.of("msr", "list", "--json", "--profile", "core2");
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        assertEquals("cpu", m.get("scope"));
        assertEquals(String.format("0x%016x", cpu0("core2").perfCapabilities().orElseThrow()), m.get("perf_capabilities"));
        assertEquals(true, m.get("simulated"));
        List<?> regs = (List<?>) m.get("registers");
        List<String> expected = MsrCatalog.forCpu(cpu0("core2")).stream().map(MsrDef::name).toList();
        assertEquals(expected, regs.stream().map(x -> ((Map<?, ?>) x).get("name")).toList());
        assertTrue(expected.size() < MsrCatalog.all().size(), "Core 2 lacks some catalogued registers");
        for (Object o : regs) {
            Map<?, ?> reg = (Map<?, ?>) o;
            assertEquals(List.of("name", "address", "access", "exists", "condition", "description", "source",
                    "reserved_mask", "fields"), List.copyOf(reg.keySet()));
            assertEquals(true, reg.get("exists"));
            for (Object fo : (List<?>) reg.get("fields")) {
                Map<?, ?> f = (Map<?, ?>) fo;
                assertEquals(List.of("name", "hi", "lo", "declared_hi", "access", "exists", "condition", "width",
                        "description"), List.copyOf(f.keySet()));
                assertEquals(true, f.get("exists"));
            }
        }
    }

    @Test
    void listAllHasEveryRegisterWithItsCondition() throws IOException {
        Run r = Run.of("msr", "list", "--all", "--json", "--profile", "core2");
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        assertEquals("all", m.get("scope"));
        List<?> regs = (List<?>) m.get("registers");
        assertEquals(MsrCatalog.all().size(), regs.size());
        CpuContext ctx = cpu0("core2");
        for (Object o : regs) {
            Map<?, ?> reg = (Map<?, ?>) o;
            MsrDef d = MsrCatalog.byName((String) reg.get("name")).orElseThrow();
            assertEquals(d.existsOn(ctx), reg.get("exists"), d.name());
            assertEquals(d.exists().describe(), reg.get("condition"));
            assertEquals(String.format("0x%08x", d.address()), reg.get("address"));
        }
    }

    @Test
    void listTextIsAlignedAndSaysSimulated() {
        Run r = Run.of("msr", "list", "--profile", "skylake");
        assertEquals(0, r.exit(), r.toString());
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.getFirst().startsWith("hwtool msr list - registers on CPU 0 of the SIMULATED CPU"), r.out());
        assertTrue(r.out().contains("Simulated CPU: this is not the machine you are running on."));
        String header = lines.stream().filter(l -> l.startsWith("REGISTER")).findFirst().orElseThrow();
        int address = header.indexOf("ADDRESS");
        int access = header.indexOf("ACCESS");
        String debugctl = lines.stream().filter(l -> l.startsWith("IA32_DEBUGCTL ")).findFirst().orElseThrow();
        assertEquals("0x000001d9", debugctl.substring(address, address + 10));
        assertEquals("RW", debugctl.substring(access, access + 2));
        assertTrue(r.out().contains("    [0]      LBR "), r.out());
    }

    @Test
    void listOnThisMachineJudgesItsOwnCpu() throws IOException {
        Run r = Run.of("msr", "list", "--json");
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        assertEquals(false, m.get("simulated"));
        // the first CPU this process may run on (a cpuset may leave CPU 0 out)
        int cpu = dev.hwtool.testing.Preconditions.firstCpuInMask();
        assertTrue(((String) m.get("describes")).startsWith("CPU " + cpu + " of this machine"), (String) m.get("describes"));
    }

    // ---- decode ---------------------------------------------------------------------------------

    @Test
    void decodeNamesEachFieldAndFlagsReservedBits() throws IOException {
        // IA32_DEBUGCTL on Skylake: LBR [0], BTS [7], FREEZE_LBRS_ON_PMI [11]; bit 5 is reserved everywhere
        Run r = Run.of("msr", "decode", "ia32_debugctl", "0x8a1", "--json", "--profile", "skylake");
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        assertEquals("IA32_DEBUGCTL", m.get("register"));
        assertEquals("0x00000000000008a1", m.get("value"));
        assertEquals("0x0000000000000020", m.get("reserved_set"));
        Map<String, Map<?, ?>> fields = new java.util.LinkedHashMap<>();
        for (Object o : (List<?>) m.get("fields")) {
            Map<?, ?> f = (Map<?, ?>) o;
            fields.put(f.get("name") + "@" + f.get("lo"), f);
        }
        assertEquals(1, fields.get("LBR@0").get("value"));
        assertEquals(1, fields.get("BTS@7").get("value"));
        assertEquals(1, fields.get("FREEZE_LBRS_ON_PMI@11").get("value"));
        assertEquals(0, fields.get("BTF@1").get("value"));
        Map<?, ?> reserved = fields.get("RESERVED@5");
        assertEquals(true, reserved.get("reserved"));
        assertEquals(5, reserved.get("hi"));
        assertEquals("0x1", reserved.get("value_hex"));
    }

    @Test
    void decodeTextMarksReservedBitsAndAcceptsANumberAndDecimal() {
        Run r = Run.of("msr", "decode", "0x1d9", "2209", "--profile", "skylake");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().startsWith("IA32_DEBUGCTL (0x000001d9) = 0x00000000000008a1   as on CPU 0 of the SIMULATED CPU"),
                r.out());
        assertTrue(r.out().contains("  [5]      RESERVED "), r.out());
        assertTrue(r.out().contains("reserved bits set on this CPU: 0x0000000000000020"), r.out());
        Run clean = Run.of("msr", "decode", "IA32_DEBUGCTL", "1", "--profile", "skylake");
        assertTrue(!clean.out().contains("RESERVED"), clean.out());
    }

    @Test
    void decodeOfTheFullValueRangeWorks() throws IOException {
        Run r = Run.of("msr", "decode", "IA32_TIME_STAMP_COUNTER", "0xffffffffffffffff", "--json", "--profile", "skylake");
        assertEquals(0, r.exit(), r.toString());
        Map<?, ?> f = (Map<?, ?>) ((List<?>) JSON.std.mapFrom(r.out()).get("fields")).getFirst();
        assertEquals("0xffffffffffffffff", f.get("value_hex"));
        assertEquals(new java.math.BigInteger("18446744073709551615"), new java.math.BigInteger(f.get("value").toString()));
    }

    @Test
    void unknownRegisterIsBadInputInOneLine() {
        Run r = Run.of("msr", "decode", "IA32_FROBNICATE", "1", "--profile", "skylake");
        assertEquals(Cause.BAD_INPUT.exitCode(), r.exit(), r.toString());
        assertEquals("hwtool: unknown MSR 'IA32_FROBNICATE': not in hwtool's catalog (hwtool msr list --all names every register)\n",
                r.err());
        Run number = Run.of("msr", "decode", "0x12345", "1", "--profile", "skylake");
        assertEquals(Cause.BAD_INPUT.exitCode(), number.exit(), number.toString());
        assertTrue(number.err().startsWith("hwtool: MSR 0x00012345 is not in hwtool's catalog"), number.err());
        assertEquals("", number.out());
    }

    @Test
    void registerAbsentOnThisCpuIsBadInput() {
        // IA32_MISC_ENABLE is an Intel register; the AMD profile has none
        Run r = Run.of("msr", "decode", "IA32_MISC_ENABLE", "1", "--profile", "amd-epyc-kvm-guest");
        assertEquals(Cause.BAD_INPUT.exitCode(), r.exit(), r.toString());
        assertTrue(r.err().startsWith("hwtool: IA32_MISC_ENABLE does not exist on CPU 0 (it needs CPUID.0 vendor GenuineIntel)"),
                r.err());
    }

    @Test
    void badValuesAreUsageErrors() {
        for (String v : List.of("zero", "0x", "-1", "0x1ffffffffffffffff", "18446744073709551616", "1.5")) {
            Run r = Run.of("msr", "decode", "IA32_DEBUGCTL", v, "--profile", "skylake");
            assertEquals(2, r.exit(), v + ": " + r);
            assertTrue(r.err().contains("'" + v + "'"), r.err());
        }
        assertEquals(2, Run.of("msr", "decode", "IA32_DEBUGCTL", "--profile", "skylake").exit(), "VALUE missing");
        assertEquals(2, Run.of("msr", "decode", "0x1ffffffff", "1", "--profile", "skylake").exit(), "not a 32-bit index");
        assertEquals(2, Run.of("msr", "decode", "IA32-DEBUGCTL", "1", "--profile", "skylake").exit(), "not a name");
        assertEquals(2, Run.of("msr").exit(), "msr needs a subcommand");
    }
}
