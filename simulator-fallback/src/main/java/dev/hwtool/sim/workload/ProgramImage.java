package dev.hwtool.sim.workload;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.util.List;
import java.util.Optional;

/**
 * The program a simulated workload is: its x86-64 machine code at the addresses whose branches the
 * simulator retires, and its functions. Built from the same layout the workload runs from
 * ({@link CallTreeLayout#image}, {@link LoopLayout#image}; a trace's from the trace itself,
 * {@link TraceLayout}), so a call the simulator retires at
 * address A to B is a {@code call} at A whose target is B in the image. {@link #elf()} writes it
 * as an executable (ET_EXEC, EM_X86_64) that objdump, perf and hwtool's own ELF reader read.
 *
 * <p>For a recording's PERF_RECORD_MMAP2 of the image file: the code is mapped at
 * {@link #start()}, {@link #text()}{@code .length} bytes, from file offset {@link #textOffset()}.
 *
 * @param start     the address of the first byte of code (the workload's base)
 * @param text      the code, from {@code start}
 * @param entry     where execution starts ({@code main})
 * @param functions the functions, by address, each an STT_FUNC symbol with its size
 */
public record ProgramImage(long start, byte[] text, long entry, List<Function> functions) {

    /** A function of the image: an STT_FUNC symbol of .symtab. */
    public record Function(String name, long start, long size) {
    }

    public ProgramImage {
        functions = List.copyOf(functions);
    }

    /**
     * The image of {@code workload}; empty for a trace on standard input, which can be read only
     * once, when it runs. A trace file's image is the program its branches imply
     * ({@link TraceLayout}): BAD_INPUT when the file cannot be read or no program can retire it.
     */
    public static Optional<ProgramImage> of(Workload workload) {
        return switch (workload) {
            case CallTreeWorkload c -> Optional.of(c.layout().image());
            case LoopWorkload l -> Optional.of(l.layout().image());
            case TraceWorkload t -> t.isStdin() ? Optional.empty() : Optional.of(TraceLayout.image(t));
        };
    }

    /**
     * The one image of several workloads run in turn (a scenario's {@code workload} lines), their
     * code side by side; BAD_INPUT naming both when two would put different code at one address.
     * The same workload twice is one program. Empty when none has an image.
     */
    public static Optional<ProgramImage> of(List<Workload> workloads) {
        ProgramImage merged = null;
        List<ProgramImage> seen = new java.util.ArrayList<>();
        for (Workload w : workloads) {
            Optional<ProgramImage> next = of(w);
            if (next.isEmpty() || seen.stream().anyMatch(next.get()::sameAs)) {
                continue;
            }
            seen.add(next.get());
            merged = merged == null ? next.get() : merged.merge(next.get(), w);
        }
        return Optional.ofNullable(merged);
    }

    /** The file offset of the code in {@link #elf()}: congruent to {@link #start()} modulo the page size. */
    public long textOffset() {
        return ElfExecutable.textOffset(start);
    }

    /** The image as an ELF64 executable file's bytes. */
    public byte[] elf() {
        return ElfExecutable.write(this);
    }

    /** The end of the code (exclusive). */
    public long end() {
        return start + text.length;
    }

    private boolean sameAs(ProgramImage o) {
        return start == o.start && java.util.Arrays.equals(text, o.text) && functions.equals(o.functions);
    }

    private ProgramImage merge(ProgramImage o, Workload w) {
        if (Long.compareUnsigned(start, o.end()) < 0 && Long.compareUnsigned(o.start, end()) < 0) {
            throw new HwException(Cause.BAD_INPUT, "workload '" + w.describe() + "' puts its code at 0x"
                    + Long.toHexString(o.start) + "-0x" + Long.toHexString(o.end()) + ", over the code of the workloads"
                    + " before it (0x" + Long.toHexString(start) + "-0x" + Long.toHexString(end())
                    + "): give it another base=");
        }
        ProgramImage lo = Long.compareUnsigned(start, o.start) < 0 ? this : o;
        ProgramImage hi = lo == this ? o : this;
        long gap = hi.start - lo.end();
        if (gap > ElfExecutable.MAX_GAP) {
            throw new HwException(Cause.BAD_INPUT, "workload '" + w.describe() + "' puts its code "
                    + Long.toUnsignedString(gap) + " bytes from the code of the workloads before it; one program image"
                    + " spans at most " + ElfExecutable.MAX_GAP + ": give it a base= nearer 0x" + Long.toHexString(start));
        }
        byte[] joined = new byte[(int) (hi.end() - lo.start)];
        java.util.Arrays.fill(joined, (byte) 0xCC);
        System.arraycopy(lo.text, 0, joined, 0, lo.text.length);
        System.arraycopy(hi.text, 0, joined, (int) (hi.start - lo.start), hi.text.length);
        List<Function> all = new java.util.ArrayList<>(lo.functions);
        for (Function f : hi.functions) {
            String name = f.name();
            for (int n = 2; nameTaken(all, name); n++) {
                name = f.name() + "." + n;
            }
            all.add(new Function(name, f.start(), f.size()));
        }
        return new ProgramImage(lo.start, joined, entry, all);
    }

    private static boolean nameTaken(List<Function> fs, String name) {
        return fs.stream().anyMatch(f -> f.name().equals(name));
    }
}
