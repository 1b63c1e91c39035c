package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MsrSaveFileTest {

    private static final MsrSaveFile SAMPLE = new MsrSaveFile("2025-01-01T00:00:00Z", "sim:skylake", true, List.of(
            new MsrSaveFile.Register(0, 0x1D9, "IA32_DEBUGCTL", 0x4801),
            new MsrSaveFile.Register(7, 0xC000_0080L, null, -1L)));

    @Test
    void roundTrip(@TempDir Path dir) {
        Path f = dir.resolve("regs.json");
        SAMPLE.write(dev.hwtool.io.OutputFile.open(f));
        assertEquals(SAMPLE, MsrSaveFile.read(f));
    }

    @Test
    void everyTruncationIsRefusedAsBadInputInOneLine(@TempDir Path dir) throws IOException {
        String full = SAMPLE.toJson();
        Path f = dir.resolve("cut.json");
        for (int n = 0; n < full.trim().length(); n += 7) {
            Files.writeString(f, full.substring(0, n));
            HwException e = assertThrows(HwException.class, () -> MsrSaveFile.read(f), "cut at " + n);
            assertEquals(Cause.BAD_INPUT, e.reason());
            assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        }
    }

    @Test
    void editedValuesAreRefused(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("bad.json");
        for (String[] edit : new String[][]{{"\"0x0000000000004801\"", "\"4801\""}, {"\"0x000001d9\"", "\"0x1000001d9\""},
                {"\"cpu\" : 7", "\"cpu\" : -7"}, {"\"cpu\" : 7", "\"cpu\" : 1.5"}, {"hwtool-msr-save", "other"},
                {"\"version\" : 1", "\"version\" : 2"}}) {
            String text = SAMPLE.toJson();
            assertTrue(text.contains(edit[0]), edit[0] + " in\n" + text);
            Files.writeString(f, text.replace(edit[0], edit[1]));
            HwException e = assertThrows(HwException.class, () -> MsrSaveFile.read(f), edit[1]);
            assertEquals(Cause.BAD_INPUT, e.reason(), e.getMessage());
        }
    }
}
