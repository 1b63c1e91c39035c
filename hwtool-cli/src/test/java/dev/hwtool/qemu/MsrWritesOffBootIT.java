package dev.hwtool.qemu;

import dev.hwtool.api.Cause;
import dev.hwtool.cli.Cli;
import dev.hwtool.cli.Require;
import dev.hwtool.linux.sys.Bindings;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real msr driver with {@code msr.allow_writes=off}: reads work and equal msr-tools'
 * {@code rdmsr} of the same registers, writes are WRITES_DISABLED. When this build's CLI has
 * {@code rdmsr}, its output for every {@link RdmsrCases} command line must equal msr-tools'
 * byte for byte, with the same exit status, and every line msr-tools writes to standard error
 * must appear, in order, in hwtool's (which may add lines of its own: a remedy, the reason for
 * a usage error, its additions to the usage text).
 */
class MsrWritesOffBootIT {

    private static final String REF_DIR = "rdmsr-reference";
    private static final List<GuestMsr> REFERENCE =
            List.of(GuestMsr.IA32_APIC_BASE, GuestMsr.IA32_MISC_ENABLE, GuestMsr.IA32_PAT, GuestMsr.IA32_TSC_AUX);

    private static Observations guest;
    private static boolean cliHasRdmsr;

    @BeforeAll
    static void boot() throws Exception {
        Kernel kernel = RealKernel.require();
        Require.tool(RealKernel.MSR_TOOLS_RDMSR.toString());
        cliHasRdmsr = Cli.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()))
                .getSubcommands().containsKey("rdmsr");
        String out = "$HWTOOL_OUT";
        StringBuilder script = new StringBuilder("mkdir -p " + out + "/" + REF_DIR + "\n");
        for (int cpu : List.of(0, 1)) {
            for (GuestMsr r : REFERENCE) {
                script.append(RealKernel.MSR_TOOLS_RDMSR).append(" -0 -x -p ").append(cpu).append(' ').append(r.hex())
                        .append(" >").append(out).append('/').append(REF_DIR).append("/cpu").append(cpu).append('-').append(r)
                        .append(" 2>&1\n");
            }
        }
        if (cliHasRdmsr) {
            script.append(RdmsrCases.msrToolsScript(RealKernel.MSR_TOOLS_RDMSR.getParent(), out + "/" + GuestChecks.MSR_TOOLS_DIR));
        }
        script.append(cliHasRdmsr ? RealKernel.checksCommand("writes-off", "rdmsr") : RealKernel.checksCommand("writes-off"));
        guest = RealKernel.boot(RealKernel.guest("writes-off", kernel).modules("cpuid", "msr").kernelArgs("msr.allow_writes=off")
                .command(script.toString()).build());
    }

    @Test
    void theGuestJvmRanToTheEnd() {
        assertEquals(0, guest.run().guestExit().getAsInt(), () -> "guest JVM exit status\n" + guest.run().consoleTail(30));
    }

    @Test
    void writesAreOffInTheDriver() {
        assertEquals("off", guest.value("allow_writes"), "/sys/module/msr/parameters/allow_writes");
    }

    @Test
    void readsEqualMsrToolsRdmsr() {
        List<Executable> checks = new ArrayList<>();
        for (String b : Bindings.names()) {
            for (int cpu : List.of(0, 1)) {
                for (GuestMsr r : REFERENCE) {
                    String ref = guest.run().outFile(REF_DIR + "/cpu" + cpu + "-" + r).strip();
                    String check = "read/" + b + "/cpu" + cpu + "/" + r;
                    checks.add(() -> assertEquals("0x" + ref, guest.value(check), check + " vs rdmsr -0 -x -p " + cpu + " " + r.hex()));
                }
            }
        }
        assertAll(checks);
    }

    @Test
    void writesAreRefusedAsWritesDisabledAndChangeNothing() {
        for (String b : Bindings.names()) {
            guest.failure("write/" + b, Cause.WRITES_DISABLED);
            Map<String, String> after = guest.values("after-write/" + b);
            assertEquals(after.get("before"), after.get("after"), b + " IA32_TSC_AUX unchanged");
        }
    }

    @Test
    void hwtoolRdmsrPrintsWhatMsrToolsRdmsrPrints() throws Exception {
        Require.that(cliHasRdmsr, "this build's CLI has no rdmsr command yet: nothing to compare with msr-tools");
        assertEquals(Integer.toString(RdmsrCases.all().size()), guest.values("rdmsr").get("cases"));
        Path theirs = guest.run().outDir().resolve(GuestChecks.MSR_TOOLS_DIR);
        Path ours = guest.run().outDir().resolve(GuestChecks.HWTOOL_DIR);
        List<Executable> checks = new ArrayList<>();
        for (RdmsrCases.Case c : RdmsrCases.all()) {
            checks.add(() -> {
                String cmd = "rdmsr " + String.join(" ", c.args());
                byte[] expected = Files.readAllBytes(theirs.resolve(c.id() + ".out"));
                byte[] actual = Files.readAllBytes(ours.resolve(c.id() + ".out"));
                String theirErr = Files.readString(theirs.resolve(c.id() + ".err"));
                String ourErr = Files.readString(ours.resolve(c.id() + ".err"));
                assertEquals(show(expected), show(actual), cmd + ": standard output");
                assertEquals(Files.readString(theirs.resolve(c.id() + ".rc")).strip(), Files.readString(ours.resolve(c.id() + ".rc")).strip(),
                        cmd + ": exit status (msr-tools stderr: " + theirErr.strip() + " | hwtool stderr: " + ourErr.strip() + ")");
                assertTrue(inOrder(theirErr.lines().toList(), ourErr.lines().toList()),
                        cmd + ": msr-tools' standard error lines, in order, within hwtool's\n--- msr-tools\n" + theirErr
                                + "--- hwtool\n" + ourErr);
            });
        }
        assertAll(checks);
    }

    /** Whether {@code part} is a subsequence of {@code whole}. */
    private static boolean inOrder(List<String> part, List<String> whole) {
        int i = 0;
        for (String line : whole) {
            if (i < part.size() && part.get(i).equals(line)) {
                i++;
            }
        }
        return i == part.size();
    }

    /** Text as text; anything with a control byte other than newline (rdmsr -r) as hex. */
    private static String show(byte[] b) {
        for (byte x : b) {
            if ((x < 0x20 && x != '\n') || x == 0x7f || x < 0) {
                return "bytes " + HexFormat.ofDelimiter(" ").formatHex(b);
            }
        }
        return new String(b, StandardCharsets.US_ASCII);
    }
}
