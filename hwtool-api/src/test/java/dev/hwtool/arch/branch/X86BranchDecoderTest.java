package dev.hwtool.arch.branch;

import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Instructions assembled by GNU as (bytes via objcopy) and hand-checked SDM byte strings, classified. */
class X86BranchDecoderTest {

    @TempDir
    Path dir;

    /** AT&T syntax, as accepts each alone; the label makes the relative forms assemble. */
    private static final Map<String, BranchKind> ASM = new LinkedHashMap<>();

    static {
        ASM.put("call 1f", BranchKind.CALL);
        ASM.put("call *%rax", BranchKind.IND_CALL);
        ASM.put("call *%r11", BranchKind.IND_CALL);
        ASM.put("call *8(%rbx,%rcx,4)", BranchKind.IND_CALL);
        ASM.put("lcall *(%rax)", BranchKind.IND_CALL);
        ASM.put("bnd call 1f", BranchKind.CALL);
        ASM.put("notrack call *%rax", BranchKind.IND_CALL);
        ASM.put("ret", BranchKind.RET);
        ASM.put("ret $8", BranchKind.RET);
        ASM.put("lret", BranchKind.RET);
        ASM.put("lret $8", BranchKind.RET);
        ASM.put("rep ret", BranchKind.RET);
        ASM.put("bnd ret", BranchKind.RET);
        ASM.put("jne 1f", BranchKind.JCC);
        ASM.put("ds jne 1f", BranchKind.JCC);
        ASM.put("jg .+0x1000", BranchKind.JCC);
        ASM.put("jrcxz 1f", BranchKind.JCC);
        ASM.put("loop 1f", BranchKind.JCC);
        ASM.put("loopne 1f", BranchKind.JCC);
        ASM.put("jmp 1f", BranchKind.JMP);
        ASM.put("jmp .+0x1000", BranchKind.JMP);
        ASM.put("jmp *%rax", BranchKind.IND_JMP);
        ASM.put("jmp *%r11", BranchKind.IND_JMP);
        ASM.put("notrack jmp *(%rax)", BranchKind.IND_JMP);
        ASM.put("ljmp *(%rax)", BranchKind.IND_JMP);
        ASM.put("syscall", BranchKind.SYSCALL);
        ASM.put("sysretq", BranchKind.SYSRET_IRET);
        ASM.put("iretq", BranchKind.SYSRET_IRET);
        ASM.put("nop", BranchKind.OTHER);
        ASM.put("mov %rax, %rbx", BranchKind.OTHER);
        ASM.put("push (%rax)", BranchKind.OTHER);
        ASM.put("incl (%rax)", BranchKind.OTHER);
        ASM.put("int3", BranchKind.OTHER);
        ASM.put("lock addl $1, (%rax)", BranchKind.OTHER);
    }

    @Test
    void classifiesWhatGnuAsAssembles() throws Exception {
        Preconditions.tool("/usr/bin/as", "binutils");
        int i = 0;
        for (Map.Entry<String, BranchKind> e : ASM.entrySet()) {
            Path s = dir.resolve("i" + i + ".s");
            Files.writeString(s, ".text\n" + e.getKey() + "\n1:\n");
            run("as", "--64", "-o", "i" + i + ".o", s.toString());
            run("objcopy", "-O", "binary", "--only-section=.text", "i" + i + ".o", "i" + i + ".bin");
            byte[] code = Files.readAllBytes(dir.resolve("i" + i + ".bin"));
            assertEquals(e.getValue(), X86BranchDecoder.classify(code), e.getKey() + " = " + HexFormat.of().formatHex(code));
            i++;
        }
    }

    /** Byte strings from the SDM Vol. 2 opcode tables, for machines without binutils. */
    @Test
    void classifiesSdmByteStrings() {
        Map<String, BranchKind> bytes = Map.ofEntries(
                Map.entry("e800000000", BranchKind.CALL),
                Map.entry("ffd0", BranchKind.IND_CALL),      // FF /2, ModR/M 11 010 000
                Map.entry("ff18", BranchKind.IND_CALL),      // FF /3 m16:64
                Map.entry("c3", BranchKind.RET),
                Map.entry("c20800", BranchKind.RET),
                Map.entry("cb", BranchKind.RET),
                Map.entry("ca0800", BranchKind.RET),
                Map.entry("7405", BranchKind.JCC),
                Map.entry("0f8400000000", BranchKind.JCC),
                Map.entry("e3fe", BranchKind.JCC),
                Map.entry("e2fe", BranchKind.JCC),
                Map.entry("ebfe", BranchKind.JMP),
                Map.entry("e900000000", BranchKind.JMP),
                Map.entry("ffe0", BranchKind.IND_JMP),      // FF /4
                Map.entry("ff28", BranchKind.IND_JMP),      // FF /5
                Map.entry("41ffe3", BranchKind.IND_JMP),    // REX.B
                Map.entry("3effe0", BranchKind.IND_JMP),    // notrack
                Map.entry("f2c3", BranchKind.RET),          // bnd
                Map.entry("66c3", BranchKind.RET),
                Map.entry("2e7405", BranchKind.JCC),        // branch-not-taken hint
                Map.entry("0f05", BranchKind.SYSCALL),
                Map.entry("480f07", BranchKind.SYSRET_IRET),
                Map.entry("48cf", BranchKind.SYSRET_IRET),
                Map.entry("ff30", BranchKind.OTHER),        // FF /6 PUSH
                Map.entry("90", BranchKind.OTHER),
                Map.entry("", BranchKind.OTHER),
                Map.entry("ff", BranchKind.OTHER),          // truncated ModR/M
                Map.entry("0f", BranchKind.OTHER),
                Map.entry("6666666666666666666666666666c3", BranchKind.RET),    // 14 prefixes: a legal 15-byte RET
                Map.entry("666666666666666666666666666666c3", BranchKind.OTHER)); // 15 prefixes: over the 15-byte limit
        bytes.forEach((hex, kind) -> assertEquals(kind, X86BranchDecoder.classify(HexFormat.of().parseHex(hex)), hex));
    }

    private void run(String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor(60, TimeUnit.SECONDS);
        assertEquals(0, p.exitValue(), String.join(" ", argv) + ": " + out);
    }
}
