package dev.hwtool.arch.perf.abi;

import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ABI tables of dev.hwtool.arch.perf against this machine's kernel header: a C program built
 * here with {@code cc} prints offsetof/sizeof of every attr and mmap-page member, the bit of every
 * attr flag and branch-entry bitfield, and the value of every constant; each must equal ours.
 * Members the installed header predates are listed and skipped (printed), not guessed.
 */
class PerfAbiVsKernelHeaderTest {

    private static final Path HEADER = Path.of("/usr/include/linux/perf_event.h");
    private static String header;
    private static final List<String> SKIPPED = new ArrayList<>();

    @TempDir
    static Path dir;

    private static Map<String, Long> printed;

    @BeforeAll
    static void compileAndRun() throws IOException, InterruptedException {
        Preconditions.that(Files.isRegularFile(HEADER), "no " + HEADER + " (apt-get install linux-libc-dev)");
        Preconditions.tool("/usr/bin/cc", "gcc");
        header = Files.readString(HEADER);
        StringBuilder c = new StringBuilder("""
                #include <stdio.h>
                #include <stddef.h>
                #include <string.h>
                #include <linux/perf_event.h>
                #define OFF(s, m) printf("%s.%s %zu %zu\\n", #s, #m, offsetof(struct s, m), sizeof(((struct s *)0)->m))
                #define BIT(s, m, at) do { struct s x; memset(&x, 0, sizeof x); x.m = 1; \\
                    unsigned long long w; memcpy(&w, (char *)&x + at, 8); printf("bit.%s.%s %d 0\\n", #s, #m, __builtin_ctzll(w)); } while (0)
                #define VAL(n) printf("val.%s %llu 0\\n", #n, (unsigned long long)(n))
                int main(void) {
                printf("sizeof.perf_event_attr %zu 0\\n", sizeof(struct perf_event_attr));
                printf("sizeof.perf_event_mmap_page %zu 0\\n", sizeof(struct perf_event_mmap_page));
                printf("sizeof.perf_branch_entry %zu 0\\n", sizeof(struct perf_branch_entry));
                """);
        for (PerfAttrField f : PerfAttrField.values()) {
            if (f.cName() != null && member(f.cName())) {
                c.append("OFF(perf_event_attr, ").append(f.cName()).append(");\n");
            }
        }
        for (PerfAttrFlag f : PerfAttrFlag.values()) {
            if (member(f.cName())) {
                c.append("BIT(perf_event_attr, ").append(f.cName()).append(", 40);\n");
            }
        }
        c.append("BIT(perf_event_attr, precise_ip, 40);\n");
        if (member("aux_pause")) {
            c.append("BIT(perf_event_attr, aux_start_paused, 112); BIT(perf_event_attr, aux_pause, 112);"
                    + " BIT(perf_event_attr, aux_resume, 112);\n");
        }
        for (PerfMmapPageField f : PerfMmapPageField.values()) {
            if (!f.cName().equals("capabilities")) {
                c.append("OFF(perf_event_mmap_page, ").append(f.cName()).append(");\n");
            }
        }
        c.append("OFF(perf_event_mmap_page, capabilities);\n");
        for (String cap : List.of("cap_bit0", "cap_bit0_is_deprecated", "cap_user_rdpmc", "cap_user_time",
                "cap_user_time_zero", "cap_user_time_short")) {
            if (member(cap)) {
                c.append("BIT(perf_event_mmap_page, ").append(cap).append(", 40);\n");
            }
        }
        for (String m : List.of("mispred", "predicted", "in_tx", "abort", "cycles", "type", "spec", "new_type", "priv")) {
            if (member(m)) {
                c.append("BIT(perf_branch_entry, ").append(m).append(", 16);\n");
            }
        }
        for (String name : constants().keySet()) {
            c.append("VAL(").append(name).append(");\n");
        }
        c.append("return 0; }\n");
        Path src = dir.resolve("abi.c");
        Files.writeString(src, c);
        Path exe = dir.resolve("abi");
        run(List.of("/usr/bin/cc", "-o", exe.toString(), src.toString()));
        printed = new LinkedHashMap<>();
        for (String line : run(List.of(exe.toString())).split("\n")) {
            String[] p = line.split(" ");
            printed.put(p[0], Long.parseLong(p[1]));
            if (!p[2].equals("0")) {
                printed.put(p[0] + ".size", Long.parseLong(p[2]));
            }
        }
        System.out.println("perf ABI: compared " + printed.size() + " values with " + HEADER + "; not in this header: "
                + SKIPPED);
    }

    /** Whether the installed header declares this member/constant (older headers lack the newest). */
    private static boolean member(String name) {
        boolean present = Pattern.compile("\\b" + Pattern.quote(name) + "\\b").matcher(header).find();
        if (!present) {
            SKIPPED.add(name);
        }
        return present;
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + ":\n" + out);
        return out;
    }

    /** Our constants by their kernel names, for those the header has. */
    private static Map<String, Long> constants() {
        Map<String, Long> m = new LinkedHashMap<>();
        add(m, PerfType.class, "PERF_TYPE_");
        add(m, PerfSample.class, "PERF_SAMPLE_");
        add(m, PerfFormat.class, "PERF_FORMAT_");
        add(m, PerfBranchSample.class, "PERF_SAMPLE_BRANCH_");
        add(m, PerfRecordType.class, "PERF_RECORD_");
        add(m, PerfRecordMisc.class, "PERF_RECORD_MISC_");
        add(m, PerfAuxFlag.class, "PERF_AUX_FLAG_");
        add(m, PerfIoctl.class, "PERF_EVENT_IOC_");
        for (String f : List.of("FD_NO_GROUP", "FD_OUTPUT", "PID_CGROUP", "FD_CLOEXEC")) {
            put(m, "PERF_FLAG_" + f, value(PerfIoctl.class, "FLAG_" + f));
        }
        put(m, "PERF_IOC_FLAG_GROUP", PerfIoctl.FLAG_GROUP);
        for (Field f : PerfCount.class.getFields()) {
            String n = f.getName();
            put(m, "PERF_COUNT_" + n, value(PerfCount.class, n));
        }
        for (int v = 0; v <= 9; v++) {
            m.remove("PERF_SAMPLE_BRANCH_" + v);
        }
        m.remove("PERF_RECORD_MISC_EXT_RESERVED"); // defined, but keep the list to real flags
        for (String s : new String[] {"PERF_ATTR_SIZE_VER0", "PERF_ATTR_SIZE_VER1", "PERF_ATTR_SIZE_VER2",
                "PERF_ATTR_SIZE_VER3", "PERF_ATTR_SIZE_VER4", "PERF_ATTR_SIZE_VER5", "PERF_ATTR_SIZE_VER6",
                "PERF_ATTR_SIZE_VER7", "PERF_ATTR_SIZE_VER8", "PERF_ATTR_SIZE_VER9"}) {
            put(m, s, value(PerfEventAttr.class, "SIZE_" + s.substring("PERF_ATTR_SIZE_".length())));
        }
        return m;
    }

    private static void add(Map<String, Long> m, Class<?> c, String prefix) {
        for (Field f : c.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && (f.getType() == long.class || f.getType() == int.class)) {
                String kernel = prefix + f.getName();
                if (c == PerfRecordType.class && f.getName().startsWith("MISC")) {
                    continue;
                }
                if (c == PerfSample.class && f.getName().equals("MAX")) {
                    kernel = "PERF_SAMPLE_MAX";
                }
                if (c == PerfRecordMisc.class && f.getName().equals("CPUMODE_MASK")) {
                    kernel = "PERF_RECORD_MISC_CPUMODE_MASK";
                }
                if (c == PerfIoctl.class && f.getName().startsWith("FLAG_")) {
                    continue;
                }
                if (c == PerfType.class || c == PerfRecordType.class || c == PerfIoctl.class || c == PerfAuxFlag.class
                        || c == PerfFormat.class || c == PerfSample.class || c == PerfRecordMisc.class) {
                    put(m, kernel, value(c, f.getName()));
                } else if (c == PerfBranchSample.class) {
                    put(m, kernel, value(c, f.getName()));
                }
            }
        }
    }

    private static void put(Map<String, Long> m, String kernel, long v) {
        if (member(kernel)) {
            m.put(kernel, v);
        }
    }

    private static long value(Class<?> c, String name) {
        try {
            return ((Number) c.getField(name).get(null)).longValue();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void attrOffsetsAndWidthsMatchTheHeader() {
        int compared = 0;
        for (PerfAttrField f : PerfAttrField.values()) {
            Long off = f.cName() == null ? null : printed.get("perf_event_attr." + f.cName());
            if (off != null) {
                assertEquals(f.offset(), off, f + " offset");
                assertEquals(f.width(), printed.get("perf_event_attr." + f.cName() + ".size"), f + " width");
                compared++;
            }
        }
        assertTrue(compared >= 20, "only " + compared + " attr fields compared");
        long kernelSize = printed.get("sizeof.perf_event_attr");
        assertTrue(PerfAttrField.values()[PerfAttrField.values().length - 1].end() >= kernelSize);
        // The header's struct ends where one of our versions ends.
        assertTrue(List.of(64L, 72L, 80L, 96L, 104L, 112L, 120L, 128L, 136L, 144L).contains(kernelSize));
    }

    @Test
    void flagBitsMatchTheHeader() {
        for (PerfAttrFlag f : PerfAttrFlag.values()) {
            Long bit = printed.get("bit.perf_event_attr." + f.cName());
            if (bit != null) {
                assertEquals(f.bit(), bit, f.cName());
            }
        }
        assertEquals(PerfAttrFlag.PRECISE_IP_SHIFT, printed.get("bit.perf_event_attr.precise_ip"));
        Long pause = printed.get("bit.perf_event_attr.aux_pause");
        if (pause != null) { // aux_action word at 116 = bits 32.. of the u64 at 112
            assertEquals(32 + Long.numberOfTrailingZeros(PerfEventAttr.AUX_PAUSE), pause);
            assertEquals(32 + Long.numberOfTrailingZeros(PerfEventAttr.AUX_START_PAUSED),
                    printed.get("bit.perf_event_attr.aux_start_paused"));
            assertEquals(32 + Long.numberOfTrailingZeros(PerfEventAttr.AUX_RESUME),
                    printed.get("bit.perf_event_attr.aux_resume"));
        }
    }

    @Test
    void mmapPageOffsetsAndCapabilityBitsMatchTheHeader() {
        assertEquals(PerfMmapPageField.STRUCT_SIZE, printed.get("sizeof.perf_event_mmap_page"));
        for (PerfMmapPageField f : PerfMmapPageField.values()) {
            assertEquals(f.offset(), printed.get("perf_event_mmap_page." + f.cName()), f.cName());
            assertEquals(f.width(), printed.get("perf_event_mmap_page." + f.cName() + ".size"), f.cName());
        }
        Map<String, Long> caps = Map.of("cap_bit0", PerfUserPage.CAP_BIT0, "cap_bit0_is_deprecated",
                PerfUserPage.CAP_BIT0_IS_DEPRECATED, "cap_user_rdpmc", PerfUserPage.CAP_USER_RDPMC, "cap_user_time",
                PerfUserPage.CAP_USER_TIME, "cap_user_time_zero", PerfUserPage.CAP_USER_TIME_ZERO,
                "cap_user_time_short", PerfUserPage.CAP_USER_TIME_SHORT);
        caps.forEach((name, mask) -> {
            Long bit = printed.get("bit.perf_event_mmap_page." + name);
            if (bit != null) {
                assertEquals(Long.numberOfTrailingZeros(mask), bit, name);
            }
        });
    }

    @Test
    void branchEntryBitfieldsMatchTheHeader() {
        assertEquals(PerfBranchEntry.SIZE, printed.get("sizeof.perf_branch_entry"));
        Map<String, Integer> ours = Map.of("mispred", 0, "predicted", 1, "in_tx", 2, "abort", 3, "cycles", 4,
                "type", 20, "spec", 24, "new_type", 26, "priv", 30);
        ours.forEach((name, bit) -> {
            Long b = printed.get("bit.perf_branch_entry." + name);
            if (b != null) {
                assertEquals(bit.longValue(), b, name);
            }
        });
        // And the decoder reads them there.
        PerfBranchEntry e = new PerfBranchEntry(1, 2, PerfBranchEntry.flags(true, false, true, false, 0xBEEF, 5, 2, 9, 3));
        assertEquals(List.of(true, false, true, false, 0xBEEF, 5, 2, 9, 3), List.of(e.mispred(), e.predicted(), e.inTx(),
                e.abort(), e.cycles(), e.type(), e.spec(), e.newType(), e.priv()));
    }

    @Test
    void constantsMatchTheHeader() {
        Map<String, Long> ours = constants();
        assertTrue(ours.size() > 100, "only " + ours.size() + " constants compared");
        ours.forEach((name, v) -> assertEquals(v, printed.get("val." + name), name));
    }
}
