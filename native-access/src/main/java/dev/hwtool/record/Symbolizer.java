package dev.hwtool.record;

import dev.hwtool.api.HwException;
import dev.hwtool.arch.branch.BranchKind;
import dev.hwtool.arch.branch.X86BranchDecoder;
import dev.hwtool.arch.perf.PerfRecord;
import dev.hwtool.arch.perf.PerfRecordMisc;
import dev.hwtool.arch.perf.PerfRecordType;
import dev.hwtool.elf.ElfFile;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Resolves (pid, address) to functions from a recording's PERF_RECORD_MMAP/MMAP2 records, as perf
 * does (tools/perf/util/map.c map__map_ip, then the DSO's symbols): the executable mapping
 * holding the address gives a file offset ({@code addr - start + pgoff}), the file's PT_LOAD that
 * holds that offset gives the ELF virtual address (so PIE and non-PIE alike), and the ELF symbol
 * covering it gives the function. Files are opened lazily and once; a file that is missing or not
 * a readable ELF leaves its addresses unsymbolized, never an error. Mappings of pid -1 (the kernel's)
 * serve every pid; a FORK gives the child its parent's mappings.
 */
public final class Symbolizer implements AutoCloseable {

    /** PROT_EXEC in MMAP2's prot. */
    private static final int PROT_EXEC = 4;
    private static final int MAX_INSN = 15;

    private record Mapping(long start, long len, long pgoff, String file) {
        boolean contains(long addr) {
            return Long.compareUnsigned(addr - start, len) < 0;
        }
    }

    private final Map<Integer, TreeMap<Long, Mapping>> byPid = new HashMap<>();
    private final Map<String, Optional<ElfFile>> files = new HashMap<>();

    public static Symbolizer of(List<PerfRecord> records) {
        Symbolizer s = new Symbolizer();
        records.forEach(s::add);
        return s;
    }

    /** Takes in executable MMAP/MMAP2 records and FORKs; ignores every other record. */
    public void add(PerfRecord r) {
        switch (r) {
            case PerfRecord.Mmap m when (m.misc() & PerfRecordMisc.MMAP_DATA) == 0 ->
                    map(m.pid(), new Mapping(m.addr(), m.len(), m.pgoff(), m.filename()));
            case PerfRecord.Mmap2 m when (m.prot() & PROT_EXEC) != 0 || (m.misc() & PerfRecordMisc.MMAP_DATA) == 0 && m.prot() == 0 ->
                    map(m.pid(), new Mapping(m.addr(), m.len(), m.pgoff(), m.filename()));
            case PerfRecord.Task t when t.type() == PerfRecordType.FORK && t.pid() != t.ppid() -> {
                TreeMap<Long, Mapping> parent = byPid.get(t.ppid());
                if (parent != null && !byPid.containsKey(t.pid())) {
                    byPid.put(t.pid(), new TreeMap<>(parent));
                }
            }
            default -> {
            }
        }
    }

    /**
     * Maps {@code elf}, a file held in memory, for every pid at {@code [start, start + len)} from
     * file offset {@code pgoff}, as an executable MMAP2 of {@code file} would (a program image
     * rebuilt rather than read from disk: the simulator's). Its addresses resolve and classify
     * from {@code elf}; {@link #close} closes it.
     */
    public void addImage(long start, long len, long pgoff, String file, ElfFile elf) {
        files.put(file, Optional.of(elf));
        map(-1, new Mapping(start, len, pgoff, file));
    }

    private void map(int pid, Mapping m) {
        TreeMap<Long, Mapping> maps = byPid.computeIfAbsent(pid, p -> new TreeMap<>(Long::compareUnsigned));
        // a new mapping replaces what it overlaps, as mmap(MAP_FIXED) would
        maps.values().removeIf(old -> Long.compareUnsigned(old.start(), m.start() + m.len()) < 0
                && Long.compareUnsigned(m.start(), old.start() + old.len()) < 0);
        maps.put(m.start(), m);
    }

    /** The function at {@code addr} in {@code pid}, when a mapping, its ELF file and a symbol all say so. */
    public Optional<Symbolized> resolve(int pid, long addr) {
        return locate(pid, addr).flatMap(l -> l.elf().symbolAt(l.vaddr())
                .map(s -> new Symbolized(s.name(), l.vaddr() - s.value(), l.mapping().file())));
    }

    /** "func+0x1a", else "[dso]+0xFILE_OFFSET" inside a mapping, else "0xADDR". */
    public String describe(int pid, long addr) {
        Optional<Symbolized> s = resolve(pid, addr);
        if (s.isPresent()) {
            return s.get().describe();
        }
        Optional<Mapping> m = mapping(pid, addr);
        if (m.isPresent()) {
            return "[" + m.get().file() + "]+0x" + Long.toHexString(addr - m.get().start() + m.get().pgoff());
        }
        return "0x" + Long.toHexString(addr);
    }

    /** The kind of branch instruction at {@code from}, read from the mapped file's bytes. */
    public Optional<BranchKind> classify(int pid, long from) {
        return locate(pid, from).flatMap(l -> l.elf().bytesAt(l.vaddr(), MAX_INSN)).map(X86BranchDecoder::classify);
    }

    private record Located(Mapping mapping, ElfFile elf, long vaddr) {
    }

    private Optional<Located> locate(int pid, long addr) {
        Optional<Mapping> m = mapping(pid, addr);
        if (m.isEmpty()) {
            return Optional.empty();
        }
        Optional<ElfFile> elf = elf(m.get().file());
        if (elf.isEmpty()) {
            return Optional.empty();
        }
        OptionalLong vaddr = elf.get().vaddrOfFileOffset(addr - m.get().start() + m.get().pgoff());
        return vaddr.isPresent() ? Optional.of(new Located(m.get(), elf.get(), vaddr.getAsLong())) : Optional.empty();
    }

    private Optional<Mapping> mapping(int pid, long addr) {
        Optional<Mapping> own = lookup(byPid.get(pid), addr);
        return own.isPresent() ? own : lookup(byPid.get(-1), addr);
    }

    private static Optional<Mapping> lookup(TreeMap<Long, Mapping> maps, long addr) {
        if (maps == null) {
            return Optional.empty();
        }
        Map.Entry<Long, Mapping> e = maps.floorEntry(addr);
        return e != null && e.getValue().contains(addr) ? Optional.of(e.getValue()) : Optional.empty();
    }

    private Optional<ElfFile> elf(String file) {
        return files.computeIfAbsent(file, f -> {
            try {
                if (!f.startsWith("/") || !Files.isRegularFile(Path.of(f))) {
                    return Optional.empty(); // [vdso], [heap], //anon, deleted or absent files
                }
                return Optional.of(ElfFile.open(Path.of(f)));
            } catch (HwException | java.nio.file.InvalidPathException e) {
                return Optional.empty();
            }
        });
    }

    @Override
    public void close() {
        files.values().forEach(o -> o.ifPresent(ElfFile::close));
        files.clear();
    }
}
