package dev.hwtool.bind;

import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MachineCodeTest {

    @Test
    void thePageHoldsEveryStubAtItsAlignedOffsetAndInt3Elsewhere() {
        byte[] page = MachineCode.pageImage();
        assertEquals(MachineCode.PAGE_SIZE, page.length);
        boolean[] used = new boolean[page.length];
        int end = 0;
        for (MachineCode.Stub s : MachineCode.Stub.values()) {
            byte[] code = s.code();
            assertEquals(0, s.offset() % MachineCode.ALIGNMENT, s + " alignment");
            assertTrue(s.offset() >= end, s + " overlaps the previous stub");
            assertArrayEquals(code, Arrays.copyOfRange(page, s.offset(), s.offset() + code.length), s.name());
            assertEquals((byte) 0xC3, code[code.length - 1], s + " ends in ret");
            Arrays.fill(used, s.offset(), s.offset() + code.length, true);
            end = s.offset() + code.length;
        }
        for (int i = 0; i < page.length; i++) {
            if (!used[i]) {
                assertEquals(MachineCode.INT3, page[i], "padding at " + i);
            }
        }
    }

    @Test
    void theImageIsACopy() {
        byte[] a = MachineCode.pageImage();
        a[0] = 0;
        assertEquals(MachineCode.Stub.CPUID.code()[0], MachineCode.pageImage()[0]);
    }

    /**
     * The bytes disassemble to the instructions the comments promise. Needs GNU objdump
     * (binutils); skipped where it is not installed.
     */
    @Test
    void objdumpAgreesWithTheDocumentedInstructions(@TempDir Path dir) throws IOException, InterruptedException {
        Preconditions.tool("/usr/bin/objdump", "binutils");
        assertEquals(List.of("push rbx", "mov r8,rdx", "mov eax,edi", "mov ecx,esi", "cpuid",
                        "mov dword ptr [r8],eax", "mov dword ptr [r8+0x4],ebx", "mov dword ptr [r8+0x8],ecx",
                        "mov dword ptr [r8+0xc],edx", "pop rbx", "ret"),
                disassemble(dir, MachineCode.Stub.CPUID));
        assertEquals(List.of("rdtsc", "shl rdx,0x20", "or rax,rdx", "ret"), disassemble(dir, MachineCode.Stub.RDTSC));
        assertEquals(List.of("rdtscp", "mov dword ptr [rdi],ecx", "shl rdx,0x20", "or rax,rdx", "ret"),
                disassemble(dir, MachineCode.Stub.RDTSCP));
        // Disassembled only, never executed here: RDPMC without CR4.PCE kills the JVM (no PMU on this VM).
        assertEquals(List.of("mov ecx,edi", "rdpmc", "shl rdx,0x20", "or rax,rdx", "ret"),
                disassemble(dir, MachineCode.Stub.RDPMC));
    }

    private static List<String> disassemble(Path dir, MachineCode.Stub stub) throws IOException, InterruptedException {
        Path bin = Files.write(dir.resolve(stub.name() + ".bin"), stub.code());
        // --insn-width: every instruction's bytes on its one line, whatever a version's default wrap.
        Process p = new ProcessBuilder("/usr/bin/objdump", "-D", "-b", "binary", "-m", "i386:x86-64", "-M", "intel",
                "--insn-width=16", bin.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        List<String> insns = new ArrayList<>();
        for (String line : out.split("\n")) {
            // "   8:\t0f a2                \tcpuid"
            String[] cols = line.split("\t");
            if (cols.length == 3 && cols[0].strip().matches("[0-9a-f]+:")) {
                insns.add(normalized(cols[2]));
            }
        }
        return insns;
    }

    /**
     * One instruction as binutils versions differ in printing it: spacing, case, a trailing
     * comment, the operand-size suffix some versions put on ret ("retq") and a "ds:" segment
     * some print; what is left is the semantics.
     */
    static String normalized(String insn) {
        String s = insn.strip().toLowerCase(java.util.Locale.ROOT);
        int comment = s.indexOf('#');
        if (comment >= 0) {
            s = s.substring(0, comment).strip();
        }
        s = s.replaceAll("\\s+", " ").replaceAll(" ?, ?", ",").replace("ds:", "");
        return s.replaceAll("^retq\\b", "ret");
    }
}
