package dev.hwtool.sim.workload;

import dev.hwtool.api.BranchType;
import dev.hwtool.arch.branch.BranchKind;
import dev.hwtool.arch.branch.X86BranchDecoder;
import dev.hwtool.elf.ElfFile;
import dev.hwtool.elf.ElfSymbol;
import dev.hwtool.testing.Preconditions;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A workload's program image holds, at every address the simulator retires a branch from, the
 * instruction that branch is: decoded by hwtool's decoder (kind, and the rel32 target of direct
 * branches) and by GNU objdump from the ELF file, and every target lies in a named function.
 */
class ProgramImageTest {

    @Property(tries = 200)
    void callTreeBranchesAreTheImagesInstructions(@ForAll long seed, @ForAll @IntRange(min = 1, max = 12) int depth,
                                                  @ForAll @IntRange(min = 1, max = 6) int fanout,
                                                  @ForAll @LongRange(min = 1, max = 300) long calls,
                                                  @ForAll @LongRange(min = 0, max = 0x7fff_ffff_0000L) long base) {
        CallTreeWorkload w = new CallTreeWorkload(seed, depth, fanout, calls, base, 3);
        ProgramImage image = ProgramImage.of(w).orElseThrow();
        agree(w, image);
        assertEquals("main", functionAt(image, image.entry()).name());
    }

    @Property(tries = 200)
    void loopBranchesAreTheImagesInstructions(@ForAll long seed, @ForAll @LongRange(min = 2, max = 50) long iterations,
                                              @ForAll @IntRange(min = 1, max = 40) int body,
                                              @ForAll @LongRange(min = 0, max = 0x7fff_ffff_0000L) long base) {
        LoopWorkload w = new LoopWorkload(seed, iterations, body, base, 3);
        ProgramImage image = ProgramImage.of(w).orElseThrow();
        agree(w, image);
        assertEquals(List.of(new ProgramImage.Function("main", base, image.text().length)), image.functions());
    }

    /**
     * A trace's image: random branch sites (each one kind, a direct one with one target; indirect
     * branches and returns anywhere), retired in a random order; every retired branch decodes as
     * its kind with its target.
     */
    @Property(tries = 100)
    void traceBranchesAreTheImagesInstructions(@ForAll long seed, @ForAll @IntRange(min = 1, max = 40) int sites,
                                               @ForAll @LongRange(min = 0, max = 0x7fff_ffff_0000L) long base)
            throws IOException {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
        BranchType[] types = BranchType.values();
        long[] from = new long[sites];
        BranchType[] type = new BranchType[sites];
        long[] to = new long[sites];
        long at = base;
        for (int i = 0; i < sites; i++) {
            at += 6 + rnd.nextInt(40);
            from[i] = at;
            type[i] = types[rnd.nextInt(types.length)];
            to[i] = base + rnd.nextInt(sites * 46 + 64);
        }
        StringBuilder text = new StringBuilder();
        for (int n = 0; n < sites * 3; n++) {
            int i = rnd.nextInt(sites);
            boolean direct = type[i] == BranchType.JCC || type[i] == BranchType.NEAR_REL_CALL
                    || type[i] == BranchType.NEAR_REL_JMP;
            long target = direct ? to[i] : base + rnd.nextInt(sites * 46 + 64);
            text.append(String.format("0x%x 0x%x %s%n", from[i], target, type[i].scriptName()));
        }
        Path file = Files.createTempFile("trace", ".txt");
        try {
            Files.writeString(file, text);
            TraceWorkload w = new TraceWorkload(file);
            agree(w, ProgramImage.of(w).orElseThrow());
        } finally {
            Files.delete(file);
        }
    }

    /** A trace no program can retire is refused, naming why; one on standard input has no image. */
    @Test
    void impossibleTracesAreRefusedAndStdinHasNoImage(@TempDir Path dir) throws IOException {
        assertTrue(ProgramImage.of(TraceWorkload.stdin()).isEmpty());
        Map<String, String> cases = Map.of(
                "0x1000 0x2000 call\n0x1000 0x2000 ret\n", "0x1000 is retired as both call and ret",
                "0x1000 0x2000 jcc\n0x1000 0x3000 jcc\n", "the direct jcc at 0x1000 has two targets, 0x2000 and 0x3000",
                "0x1000 0x2000 call\n0x1003 0x2000 ret\n", "the call at 0x1000 is 5 bytes long, so no branch can start at 0x1003",
                "0x1000 0x2000000 ret\n", "its addresses span more than 16777216 bytes");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            Path f = Files.writeString(dir.resolve("t"), c.getKey());
            dev.hwtool.api.HwException e = assertThrows(dev.hwtool.api.HwException.class,
                    () -> ProgramImage.of(new TraceWorkload(f)));
            assertTrue(e.getMessage().startsWith("trace " + f + ": no program can retire it: " + c.getValue()),
                    e.getMessage());
        }
    }

    private static void agree(Workload w, ProgramImage image) {
        RecordingCpu cpu = new RecordingCpu();
        w.run(cpu);
        assertFalse(cpu.branches().isEmpty());
        for (RecordingCpu.Branch b : cpu.branches()) {
            byte[] insn = bytesAt(image, b.from());
            assertEquals(kindOf(b.type()), X86BranchDecoder.classify(insn), () -> w.describe() + ": " + b);
            if (b.type() == BranchType.JCC || b.type() == BranchType.NEAR_REL_CALL || b.type() == BranchType.NEAR_REL_JMP) {
                assertEquals(b.to(), directTarget(b.from(), insn), () -> w.describe() + ": " + b);
            }
            assertNotNull(functionAt(image, b.to()), () -> w.describe() + ": no function holds the target of " + b);
        }
        assertNotNull(functionAt(image, image.entry()));
    }

    /** The merged image of two workloads keeps both; code over code is refused. */
    @Test
    void workloadsSideBySideMerge() {
        CallTreeWorkload tree = new CallTreeWorkload(1, 2, 2, 10, 0x401000, 3);
        LoopWorkload loop = new LoopWorkload(1, 10, 4, 0x500000, 3);
        ProgramImage both = ProgramImage.of(List.of(tree, loop, tree)).orElseThrow();
        assertEquals(0x401000, both.start());
        assertEquals("main.2", functionAt(both, 0x500000).name());
        agree(loop, both);
        agree(tree, both);
        LoopWorkload clash = new LoopWorkload(1, 10, 4, 0x401000, 3);
        assertTrue(assertThrows(dev.hwtool.api.HwException.class, () -> ProgramImage.of(List.of(tree, clash)))
                .getMessage().contains("give it another base="));
    }

    /**
     * objdump reads the ELF file: every retired branch is the instruction objdump shows at its
     * source, with the target objdump prints; the symbols hwtool's ELF reader finds are the
     * functions, with their sizes.
     */
    @Property(tries = 12)
    void objdumpDecodesTheRetiredBranches(@ForAll long seed, @ForAll @IntRange(min = 1, max = 6) int depth,
                                          @ForAll @IntRange(min = 1, max = 4) int fanout,
                                          @ForAll @IntRange(min = 0, max = 1) int kind) throws Exception {
        Preconditions.tool("/usr/bin/objdump", "binutils");
        Workload w = kind == 0 ? new CallTreeWorkload(seed, depth, fanout, 200, 0x401000, 3)
                : new LoopWorkload(seed, 20, depth, 0x401000 + fanout * 0x333L, 3);
        ProgramImage image = ProgramImage.of(w).orElseThrow();
        Path dir = Files.createTempDirectory("image");
        Path file = Files.write(dir.resolve("prog"), image.elf());
        try {
            Map<Long, String[]> insns = objdump(file);
            RecordingCpu cpu = new RecordingCpu();
            w.run(cpu);
            for (RecordingCpu.Branch b : cpu.branches()) {
                String[] i = insns.get(b.from());
                assertNotNull(i, () -> "objdump shows no instruction at " + b);
                String mnemonic = i[0];
                switch (b.type()) {
                    case NEAR_REL_CALL -> assertEquals(List.of("call", Long.toHexString(b.to())), List.of(mnemonic, i[1]), b::toString);
                    case NEAR_IND_CALL -> assertEquals(List.of("call", "*0x8(%r12)"), List.of(mnemonic, i[1]), b::toString);
                    case NEAR_RET -> assertEquals("ret", mnemonic, b::toString);
                    case JCC -> assertEquals(List.of("jne", Long.toHexString(b.to())), List.of(mnemonic, i[1]), b::toString);
                    case NEAR_REL_JMP -> assertEquals(List.of("jmp", Long.toHexString(b.to())), List.of(mnemonic, i[1]), b::toString);
                    default -> throw new AssertionError("unexpected branch " + b);
                }
            }
            try (ElfFile elf = ElfFile.open(file)) {
                assertEquals(ElfFile.Type.EXEC, elf.type());
                assertEquals(62, elf.machine());
                List<ProgramImage.Function> read = elf.symbols().stream()
                        .map(s -> new ProgramImage.Function(s.name(), s.value(), s.size())).toList();
                assertEquals(image.functions(), read);
                assertTrue(elf.symbols().stream().allMatch(s -> s.kind() == ElfSymbol.Kind.FUNC));
                assertEquals(Arrays.toString(bytesAt(image, image.entry())),
                        Arrays.toString(elf.bytesAt(image.entry(), 15).orElseThrow()));
            }
        } finally {
            Files.delete(file);
            Files.delete(dir);
        }
    }

    /** objdump -d: address to {mnemonic, first operand} ("call", "401040" / "*0x8(%r12)"). */
    private static Map<Long, String[]> objdump(Path file) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("/usr/bin/objdump", "-d", "--insn-width=16", file.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        Map<Long, String[]> insns = new HashMap<>();
        for (String line : out.split("\n")) {
            // "  401010:\te8 2b 00 00 00                       \tcall   401040 <f1_0>"
            String[] cols = line.split("\t");
            if (cols.length == 3 && cols[0].strip().matches("[0-9a-f]+:")) {
                String[] words = cols[2].strip().split("\\s+");
                String mnemonic = words[0].replaceAll("q$", ""); // "retq"/"callq" in older binutils
                insns.put(Long.parseUnsignedLong(cols[0].strip().replace(":", ""), 16),
                        new String[] {mnemonic, words.length > 1 ? words[1] : ""});
            }
        }
        return insns;
    }

    private static byte[] bytesAt(ProgramImage image, long addr) {
        long off = addr - image.start();
        assertTrue(off >= 0 && off < image.text().length, () -> "0x" + Long.toHexString(addr) + " outside the image");
        return Arrays.copyOfRange(image.text(), (int) off, (int) Math.min(off + 15, image.text().length));
    }

    private static BranchKind kindOf(BranchType t) {
        return switch (t) {
            case JCC -> BranchKind.JCC;
            case NEAR_REL_CALL -> BranchKind.CALL;
            case NEAR_IND_CALL -> BranchKind.IND_CALL;
            case NEAR_REL_JMP -> BranchKind.JMP;
            case NEAR_IND_JMP -> BranchKind.IND_JMP;
            case NEAR_RET -> BranchKind.RET;
            case FAR -> BranchKind.SYSCALL;
            case INTERRUPT -> BranchKind.OTHER;
        };
    }

    /** The target of a direct branch: rel32 after E8/E9 or 0F 8x, from the next instruction. */
    private static long directTarget(long from, byte[] insn) {
        int at = (insn[0] & 0xFF) == 0x0F ? 2 : 1;
        int rel = (insn[at] & 0xFF) | (insn[at + 1] & 0xFF) << 8 | (insn[at + 2] & 0xFF) << 16 | insn[at + 3] << 24;
        return from + at + 4 + rel;
    }

    private static ProgramImage.Function functionAt(ProgramImage image, long addr) {
        for (ProgramImage.Function f : image.functions()) {
            if (addr - f.start() >= 0 && addr - f.start() < f.size()) {
                return f;
            }
        }
        return null;
    }
}
