package dev.hwtool.elf;

import dev.hwtool.testing.Preconditions;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ElfFile against binutils (nm, readelf, objcopy) on programs gcc compiles here. */
class ElfFileTest {

    @TempDir
    Path dir;

    private static final String SRC = """
            volatile unsigned long sink;
            __attribute__((noinline)) void hwtool_spin(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i; }
            int main(void) { hwtool_spin(10); return 0; }
            """;

    private String run(String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), String.join(" ", argv) + ": " + out);
        return out;
    }

    private Path compile(String name, String... flags) throws Exception {
        Preconditions.tool("/usr/bin/gcc", "gcc");
        Files.writeString(dir.resolve("p.c"), SRC);
        List<String> argv = new ArrayList<>(List.of("gcc", "-O1", "-o", name, "p.c"));
        argv.addAll(List.of(flags));
        run(argv.toArray(String[]::new));
        return dir.resolve(name);
    }

    @Test
    void pieAndNonPieAgreeWithBinutils() throws Exception {
        check(compile("pie", "-pie", "-fPIE"), ElfFile.Type.DYN);
        check(compile("nopie", "-no-pie", "-fno-pie"), ElfFile.Type.EXEC);
    }

    private void check(Path exe, ElfFile.Type type) throws Exception {
        try (ElfFile elf = ElfFile.open(exe)) {
            assertEquals(type, elf.type());
            assertEquals(62, elf.machine());
            // every FUNC/OBJECT symbol nm -S lists with a size, with the same address and size
            for (String line : run("nm", "-S", "--defined-only", exe.toString()).split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (f.length != 4) {
                    continue;
                }
                long addr = Long.parseUnsignedLong(f[0], 16);
                long size = Long.parseUnsignedLong(f[1], 16);
                boolean found = elf.symbols().stream().anyMatch(s -> s.name().equals(f[3]) && s.value() == addr && s.size() == size);
                if ("TtDdBbRr".indexOf(f[2].charAt(0)) >= 0) {
                    assertTrue(found, "nm: " + line);
                }
            }
            long spin = Long.parseUnsignedLong(run("nm", exe.toString()).lines().filter(l -> l.endsWith(" hwtool_spin"))
                    .findFirst().orElseThrow().split(" ")[0], 16);
            ElfSymbol s = elf.symbolAt(spin + 2).orElseThrow();
            assertEquals("hwtool_spin", s.name());
            assertEquals(ElfSymbol.Kind.FUNC, s.kind());
            assertEquals("sink", elf.symbols().stream().filter(x -> x.name().equals("sink")).findFirst().orElseThrow().name());
            assertEquals(ElfSymbol.Kind.OBJECT, elf.symbols().stream().filter(x -> x.name().equals("sink")).findFirst()
                    .orElseThrow().kind());
            // PT_LOADs as readelf -lW prints them
            List<long[]> loads = new ArrayList<>();
            for (String line : run("readelf", "-lW", exe.toString()).split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 6 && f[0].equals("LOAD")) {
                    loads.add(new long[] {Long.decode(f[1]), Long.decode(f[2]), Long.decode(f[4]), Long.decode(f[5])});
                }
            }
            List<long[]> ours = elf.segments().stream().filter(ElfSegment::load)
                    .map(g -> new long[] {g.offset(), g.vaddr(), g.fileSize(), g.memSize()}).toList();
            assertEquals(loads.size(), ours.size());
            for (int i = 0; i < loads.size(); i++) {
                assertArrayEquals(loads.get(i), ours.get(i));
                assertEquals(loads.get(i)[1] + 5, elf.vaddrOfFileOffset(loads.get(i)[0] + 5).orElseThrow());
            }
            // .text bytes as objcopy extracts them
            ElfSection text = elf.sections().stream().filter(x -> x.name().equals(".text")).findFirst().orElseThrow();
            run("objcopy", "-O", "binary", "--only-section=.text", exe.toString(), "text.bin");
            byte[] want = Files.readAllBytes(dir.resolve("text.bin"));
            assertArrayEquals(want, elf.bytesAt(text.addr(), (int) text.size()).orElseThrow());
            assertTrue(elf.bytesAt(0x7fff_0000_0000L, 4).isEmpty());
        }
    }

    /**
     * An ARM (ELF32) program as perf reads it (tools/perf/util/symbol-elf.c dso__load_sym_internal):
     * the thumb function's address without its thumb bit, the mapping symbols $a, $t, $d not symbols
     * at all, and sizeless functions reaching the next symbol. Assembled here with Debian's ARM
     * binutils (binutils-arm-linux-gnueabihf, installed by .ci/run); readelf is the oracle.
     */
    @Test
    void armThumbAndMappingSymbolsAsPerfReadsThem() throws Exception {
        Preconditions.tool("/usr/bin/arm-linux-gnueabihf-as", "binutils-arm-linux-gnueabihf");
        Files.writeString(dir.resolve("arm.s"), """
                    .syntax unified
                    .arch armv7-a
                    .text
                    .globl _start
                    .type _start, %function
                    .arm
                _start:
                    bl thumb_fn
                    bl arm_nosize
                    b .
                    .size _start, .-_start
                    .globl thumb_fn
                    .type thumb_fn, %function
                    .thumb
                    .thumb_func
                thumb_fn:
                    movs r0, #1
                    bx lr
                    .arm
                    .align 2
                    .type arm_nosize, %function
                arm_nosize:
                    mov r0, #2
                    bx lr
                    .word 0x12345678
                """);
        run("arm-linux-gnueabihf-as", "-o", "arm.o", "arm.s");
        run("arm-linux-gnueabihf-ld", "-o", "arm.elf", "arm.o");
        java.util.Map<String, Long> readelf = new java.util.HashMap<>();
        for (String line : run("readelf", "-sW", "arm.elf").split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 8 && f[3].equals("FUNC")) {
                readelf.put(f[7], Long.parseLong(f[1], 16));
            }
        }
        try (ElfFile elf = ElfFile.open(dir.resolve("arm.elf"))) {
            assertFalse(elf.is64Bit());
            assertEquals(ElfFile.EM_ARM, elf.machine());
            assertEquals(ElfFile.Type.EXEC, elf.type());
            assertTrue(elf.symbols().stream().noneMatch(x -> x.name().startsWith("$")), elf.symbols().toString());
            long thumb = readelf.get("thumb_fn");
            assertEquals(1, thumb & 1, "readelf shows the thumb bit");
            ElfSymbol t = elf.symbols().stream().filter(x -> x.name().equals("thumb_fn")).findFirst().orElseThrow();
            assertEquals(thumb - 1, t.value());
            long nosize = readelf.get("arm_nosize");
            long start = readelf.get("_start");
            // file offsets: one PT_LOAD at offset 0
            ElfSegment load = elf.segments().stream().filter(ElfSegment::load).findFirst().orElseThrow();
            long bias = load.vaddr() - load.offset();
            SymbolTable perf = elf.perfSymbols();
            assertEquals("_start", perf.find(start - bias + 8).orElseThrow().name());
            assertEquals("thumb_fn", perf.find(thumb - 1 - bias).orElseThrow().name());
            assertEquals("thumb_fn", perf.find(thumb + 1 - bias).orElseThrow().name(), "extended to arm_nosize");
            assertEquals("arm_nosize", perf.find(nosize - bias).orElseThrow().name());
            assertEquals("arm_nosize", perf.find(nosize + 8 - bias).orElseThrow().name(), "its literal ($d) is still its");
        }
    }

    @Test
    void badElfIsOneLineBadInput() throws Exception {
        Path exe = compile("pie");
        byte[] good = Files.readAllBytes(exe);
        assertBad(Files.writeString(dir.resolve("text"), "#!/bin/sh\necho hello\n"), "not an ELF file");
        byte[] noClass = good.clone();
        noClass[4] = 3;
        assertBad(Files.write(dir.resolve("class3"), noClass), "neither ELFCLASS32 nor ELFCLASS64");
        byte[] bigEndian = good.clone();
        bigEndian[5] = 2;
        assertBad(Files.write(dir.resolve("msb"), bigEndian), "big-endian");
        assertBad(Files.write(dir.resolve("short"), Arrays.copyOf(good, 40)), "truncated");
        assertBad(Files.write(dir.resolve("cut"), Arrays.copyOf(good, 3000)), "truncated");
        assertBad(dir.resolve("absent"), "cannot read");
    }

    private static void assertBad(Path f, String why) {
        HwException e = assertThrows(HwException.class, () -> ElfFile.open(f).close());
        assertEquals(Cause.BAD_INPUT, e.cause());
        assertTrue(e.getMessage().startsWith(f + ": ") && e.getMessage().contains(why), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }
}
