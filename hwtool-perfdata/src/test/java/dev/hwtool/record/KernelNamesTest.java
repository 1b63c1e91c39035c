package dev.hwtool.record;

import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.arch.perf.abi.PerfRecordMisc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Kernel, module, guest and hypervisor addresses named as perf names them, from synthetic
 * recordings: the kernel image's MMAP ("[kernel.kallsyms]_text", pgoff the address of _text), a
 * module's, and a kallsyms file that does or does not belong to the recording's kernel.
 */
class KernelNamesTest {

    private static final long TEXT = 0xffffffff81000000L;
    private static final String KALLSYMS = """
            ffffffff81000000 T _text
            ffffffff81000000 T startup_64
            ffffffff81001000 t do_one_thing
            ffffffff81001000 T __do_one_thing
            ffffffff81001100 T schedule
            ffffffff81200000 D some_data
            ffffffff81e00000 T _etext
            ffffffffc0100000 t foo_init\t[foo_bar]
            ffffffffc0100080 t foo_poll\t[foo_bar]
            """;

    @TempDir
    Path dir;

    private Symbolizer symbolizer(String kallsyms, long textAtRecording) throws Exception {
        Symbolizer s = new Symbolizer(Files.writeString(dir.resolve("kallsyms"), kallsyms));
        s.add(new PerfRecord.Mmap(PerfRecordMisc.KERNEL, -1, 0, TEXT, 0xe00000, textAtRecording, "[kernel.kallsyms]_text",
                PerfRecord.SampleId.NONE));
        s.add(new PerfRecord.Mmap(PerfRecordMisc.KERNEL, -1, 0, 0xffffffffc0100000L, 0x1000, 0,
                "/lib/modules/6.18.0/kernel/drivers/foo-bar.ko.xz", PerfRecord.SampleId.NONE));
        return s;
    }

    @Test
    void kallsymsOfTheRecordingsKernelNamesKernelAndModuleFunctions() throws Exception {
        try (Symbolizer s = symbolizer(KALLSYMS, TEXT)) {
            CodeLocation l = s.locate(1, 0xffffffff81001010L, PerfRecordMisc.KERNEL);
            assertEquals("[kernel.kallsyms]", l.dsoName());
            // of the aliases at 0x...1000, fixup_end extends the last only, and a sized one wins (choose_best_symbol)
            assertEquals("[k] __do_one_thing", l.symbolColumn());
            assertEquals("schedule", s.locate(1, 0xffffffff81001100L, PerfRecordMisc.KERNEL).symbol());
            CodeLocation m = s.locate(1, 0xffffffffc0100090L, PerfRecordMisc.KERNEL);
            assertEquals("[foo_bar]", m.dsoName());
            assertEquals("foo_poll", m.symbol());
            assertEquals(0x10, m.symbolOffset());
            assertEquals("schedule+0x4", s.describe(1, 0xffffffff81001104L), "a branch address: kernel by its address");
        }
    }

    @Test
    void kallsymsOfAnotherKernelIsNotUsed() throws Exception {
        try (Symbolizer s = symbolizer(KALLSYMS, TEXT + 0x200000)) { // KASLR moved _text since
            CodeLocation l = s.locate(1, 0xffffffff81001010L, PerfRecordMisc.KERNEL);
            assertEquals("[kernel.kallsyms]", l.dsoName());
            assertNull(l.symbol());
            assertEquals("[k] 0xffffffff81001010", l.symbolColumn());
            assertEquals("[foo_bar]", s.locate(1, 0xffffffffc0100090L, PerfRecordMisc.KERNEL).dsoName(),
                    "kmod_path__parse: basename without .ko.xz, '-' as '_'");
        }
        try (Symbolizer s = symbolizer(KALLSYMS.replace("ffffffff81", "0000000000").replace("ffffffffc0", "0000000000"), TEXT)) {
            assertNull(s.locate(1, 0xffffffff81001010L, PerfRecordMisc.KERNEL).symbol(), "kptr_restrict's zeros");
        }
    }

    @Test
    void levelsFollowTheCpumode() throws Exception {
        try (Symbolizer s = symbolizer(KALLSYMS, TEXT)) {
            assertEquals("[g] 0xffffffff81001010", s.locate(1, 0xffffffff81001010L, PerfRecordMisc.GUEST_KERNEL).symbolColumn());
            assertEquals("[u] 0x0000000000401000", s.locate(1, 0x401000, PerfRecordMisc.GUEST_USER).symbolColumn());
            assertEquals("[H] 0xffffffff81001010", s.locate(1, 0xffffffff81001010L, PerfRecordMisc.HYPERVISOR).symbolColumn());
            CodeLocation user = s.locate(1, 0x401000, PerfRecordMisc.USER);
            assertEquals("[.] 0x0000000000401000", user.symbolColumn());
            assertEquals("[unknown]", user.dsoName());
            assertEquals("[unknown]", s.locate(1, 0xffffffff81001010L, PerfRecordMisc.USER).dsoName(),
                    "a user-mode sample is not looked up in the kernel's maps");
        }
    }
}
