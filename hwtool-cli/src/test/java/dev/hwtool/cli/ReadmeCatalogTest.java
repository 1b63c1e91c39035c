package dev.hwtool.cli;

import dev.hwtool.arch.msr.MsrCatalog;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's statements about the MSR catalog follow the catalog. */
class ReadmeCatalogTest {

    private static String readme() throws IOException {
        return Files.readString(ReadmeFiguresTest.ROOT.resolve("README.md"));
    }

    @Test
    void theCatalogSizeIsTheCatalogs() throws IOException {
        Matcher m = Pattern.compile("the whole\\s+catalog \\((\\d+) registers\\)").matcher(readme());
        assertTrue(m.find(), "README states the catalog's size under msr list --all");
        assertEquals(MsrCatalog.all().size(), Integer.parseInt(m.group(1)));
    }

    /** Every AMD register name the README's catalog paragraph gives is catalogued (names or aliases). */
    @Test
    void theAmdRegistersNamedExist() throws IOException {
        String r = readme();
        int a = r.indexOf("AMD's registers (AMD APM Vol. 2");
        int b = r.indexOf("### `hwtool msr decode", a);
        assertTrue(a >= 0 && b > a, "README has its AMD catalog paragraph");
        Matcher m = Pattern.compile("`([A-Za-z][A-Za-z0-9_]+)(?:\\.\\.\\d+)?`").matcher(r.substring(a, b));
        int n = 0;
        while (m.find()) {
            // MSR_AMD_SAMP_BR_FROM_n stands for entry 0 and up; AuthenticAMD is the vendor string
            String name = m.group(1).replaceAll("_n$", "_0");
            if (name.equals("AuthenticAMD")) {
                continue;
            }
            boolean known = MsrCatalog.byName(name).isPresent()
                    || MsrCatalog.parseFieldPath("IA32_DEBUGCTL." + name).isPresent();
            assertTrue(known, name + " is named in the README but not catalogued");
            n++;
        }
        assertTrue(n > 20, "found " + n + " names");
    }
}
