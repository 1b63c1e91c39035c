package dev.hwtool.cli;

import dev.hwtool.record.RecordingInfo;
import dev.hwtool.arch.branch.BranchKind;
import dev.hwtool.arch.branch.X86BranchDecoder;
import dev.hwtool.arch.perf.abi.PerfBranchEntry;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfRecordEncoder;
import dev.hwtool.arch.perf.abi.PerfRecordFormat;
import dev.hwtool.elf.ElfFile;
import dev.hwtool.elf.ElfSegment;
import dev.hwtool.elf.ElfSymbol;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.record.Symbolized;
import dev.hwtool.record.Symbolizer;
import dev.hwtool.record.PerfDataWriter;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Recordings laid out exactly as the kernel and perf lay them out (PerfRecordEncoder, PerfDataWriter),
 * for the reports' hardware paths this machine cannot record: branch stacks and intel_bts AUX data,
 * with a real ELF file (the C library) mapped so that symbols and instruction bytes are real.
 */
final class Recordings {

    /** The C library the dynamic linker loads for libc.so.6 (ldconfig -p), wherever the distribution keeps it. */
    static final Path LIBC = dev.hwtool.testing.Preconditions.findLibrary("libc.so.6").orElse(Path.of("libc.so.6"));
    /** Where the recording says libc's executable segment is mapped. */
    static final long BASE = 0x7f1200000000L;
    static final int PID = 4242;
    static final int PROT_READ_EXEC = 5;

    private Recordings() {
    }

    /** A function of libc, with where the recording puts it. */
    record Function(String name, long vaddr, long size, long runtime) {
    }

    /** libc's executable PT_LOAD, mapped at BASE + its page-aligned offset. */
    static final class Libc implements AutoCloseable {
        final ElfFile elf = ElfFile.open(LIBC);
        final ElfSegment text = elf.segments().stream().filter(s -> s.load() && s.executable()).findFirst().orElseThrow();
        final long pgoff = text.offset() & ~0xFFFL;
        final long start = BASE + pgoff;

        /** The runtime address of file vaddr {@code v} in the text segment. */
        long runtime(long v) {
            return start + (v - text.vaddr() + text.offset() - pgoff);
        }

        /**
         * The first {@code n} functions of the text segment, at least {@code minSize} bytes long,
         * that perf's view names as libc's own symbols do (where libc's separate debug file is
         * installed, perf, and hwtool, name some addresses by another alias of it).
         */
        List<Function> functions(int n, long minSize) {
            try (Symbolizer perfView = new Symbolizer()) {
                perfView.add(new PerfRecord.Mmap2(0, PID, PID, start, text.fileSize() + (text.offset() - pgoff), pgoff, 8, 1,
                        1234, 0, new byte[0], PROT_READ_EXEC, 2, LIBC.toString(), PerfRecord.SampleId.NONE));
                return elf.symbols().stream()
                        .filter(s -> s.kind() == ElfSymbol.Kind.FUNC && s.size() >= minSize && s.value() >= text.vaddr()
                                && s.value() + s.size() <= text.vaddr() + text.fileSize())
                        .filter(s -> elf.symbolAt(s.value()).map(x -> x.name().equals(s.name())).orElse(false))
                        .filter(s -> perfView.resolve(PID, runtime(s.value())).map(Symbolized::function)
                                .equals(java.util.Optional.of(s.name())))
                        .limit(n).map(s -> new Function(s.name(), s.value(), s.size(), runtime(s.value()))).toList();
            }
        }

        /** The offset in {@code f} of the first instruction decoding as {@code kind} (scanning byte by byte). */
        Optional<Long> find(Function f, BranchKind kind) {
            for (long o = 0; o < f.size(); o++) {
                Optional<byte[]> b = elf.bytesAt(f.vaddr() + o, 15);
                if (b.isPresent() && X86BranchDecoder.classify(b.get()) == kind) {
                    return Optional.of(o);
                }
            }
            return Optional.empty();
        }

        MemorySegment mmap2(PerfRecordEncoder enc) {
            return enc.mmap2(0, PID, PID, start, text.fileSize() + (text.offset() - pgoff), pgoff, 8, 1, 1234, 0,
                    PROT_READ_EXEC, 2, LIBC.toString(), 0, 0, 0);
        }

        @Override
        public void close() {
            elf.close();
        }
    }

    static PerfRecordEncoder.BranchStack stack(PerfBranchEntry... entries) {
        return new PerfRecordEncoder.BranchStack() {
            public int size() {
                return entries.length;
            }

            public long from(int i) {
                return entries[i].from();
            }

            public long to(int i) {
                return entries[i].to();
            }

            public long flags(int i) {
                return entries[i].flags();
            }

            public long hwIndex() {
                return 0;
            }
        };
    }

    /** Writes a recording: begin with {@code info}, then {@code body} feeds records. */
    static Path write(Path file, RecordingInfo info, java.util.function.Consumer<PerfDataWriter> body) {
        try (PerfDataWriter w = PerfDataWriter.create(file)) {
            w.begin(info);
            body.accept(w);
            w.commit();
        }
        return file;
    }

    static PerfRecordEncoder encoder(PerfEventAttr attr) {
        return new PerfRecordEncoder(PerfRecordFormat.of(attr));
    }

    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** intel_bts AUX data: {from, to, misc} triples. */
    static MemorySegment bts(long... triples) {
        MemorySegment s = Arena.ofAuto().allocate(8L * triples.length);
        for (int i = 0; i < triples.length; i++) {
            s.setAtIndex(U64, i, triples[i]);
        }
        return s;
    }

    static boolean libcPresent() {
        return Files.isRegularFile(LIBC);
    }
}
