package dev.hwtool.record;

import dev.hwtool.api.HwException;
import dev.hwtool.arch.branch.BranchKind;
import dev.hwtool.arch.branch.X86BranchDecoder;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.arch.perf.abi.PerfRecordMisc;
import dev.hwtool.arch.perf.abi.PerfRecordType;
import dev.hwtool.elf.ElfFile;
import dev.hwtool.elf.SymbolTable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Names (pid, address, cpumode) from a recording's PERF_RECORD_MMAP/MMAP2 records as perf report
 * does (tools/perf/util/event.c thread__find_map, map.c map__map_ip, symbol.c):
 * <ul>
 * <li>the sample's cpumode picks the level and the maps: kernel mode the kernel's (the mappings of
 * pid -1: the kernel image "[kernel.kallsyms]_text" and its modules), user mode the process's;
 * guest and hypervisor samples have no maps here (perf report shows them only with guest options);
 * <li>in a user mapping, the address becomes a file offset ({@code addr - start + pgoff}) and the
 * mapped ELF file's symbols, moved to file offsets as perf moves them and fixed up as perf fixes
 * them ({@link ElfFile#perfSymbols()}), name it: PIE and non-PIE, ELF32 and ELF64 alike; a file
 * without a .symtab is named from its separate debug file where one is installed, as perf does;
 * <li>a kernel address is named from /proc/kallsyms when the recording's kernel is the running one
 * ({@link KernelSymbols}); its DSO is {@code [kernel.kallsyms]} or the module's {@code [name]}.
 * </ul>
 * Files are opened lazily and once; a file that is missing or not a readable ELF leaves its
 * addresses unnamed, never an error. A FORK gives the child its parent's mappings.
 */
public final class Symbolizer implements AutoCloseable {

    /** PROT_EXEC in MMAP2's prot. */
    private static final int PROT_EXEC = 4;
    private static final int MAX_INSN = 15;
    /** machine->mmap_name of the host: the kernel MMAP's file name starts with it, then the reference symbol. */
    static final String KERNEL_DSO = "[kernel.kallsyms]";
    private static final int KERNEL_PID = -1;
    private static final String VDSO = "[vdso]";
    private static final String DEBUG_DIR = "/usr/lib/debug";

    private record Mapping(long start, long len, long pgoff, String file) {
        boolean contains(long addr) {
            return Long.compareUnsigned(addr - start, len) < 0;
        }

        long mapIp(long addr) {
            return addr - start + pgoff;
        }

        boolean kernelImage() {
            return file.startsWith(KERNEL_DSO);
        }
    }

    private final Map<Integer, TreeMap<Long, Mapping>> byPid = new HashMap<>();
    private final Map<String, Optional<ElfFile>> files = new HashMap<>();
    private final Map<String, Optional<SymbolTable>> tables = new HashMap<>();
    private final Path kallsymsPath;
    private Optional<KernelSymbols> kallsyms;
    private Mapping kernelImage;

    /** A symbolizer that trusts /proc/kallsyms for the recording's kernel when it matches. */
    public Symbolizer() {
        this(Path.of("/proc/kallsyms"));
    }

    /** A symbolizer reading kernel symbols from {@code kallsyms} (a file in /proc/kallsyms' format). */
    public Symbolizer(Path kallsyms) {
        this.kallsymsPath = kallsyms;
    }

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
        // not under pid -1, which is the kernel's (KERNEL_PID): its own table, looked up first for
        // every pid, since the image is exactly the code that ran there
        Mapping m = new Mapping(start, len, pgoff, file);
        images.values().removeIf(old -> Long.compareUnsigned(old.start(), m.start() + m.len()) < 0
                && Long.compareUnsigned(m.start(), old.start() + old.len()) < 0);
        images.put(start, m);
    }

    /** Program images held in memory ({@link #addImage}), mapped in every process. */
    private final TreeMap<Long, Mapping> images = new TreeMap<>(Long::compareUnsigned);

    private void map(int pid, Mapping m) {
        TreeMap<Long, Mapping> maps = byPid.computeIfAbsent(pid, p -> new TreeMap<>(Long::compareUnsigned));
        // a new mapping replaces what it overlaps, as mmap(MAP_FIXED) would
        maps.values().removeIf(old -> Long.compareUnsigned(old.start(), m.start() + m.len()) < 0
                && Long.compareUnsigned(m.start(), old.start() + old.len()) < 0);
        maps.put(m.start(), m);
        if (pid == KERNEL_PID && m.kernelImage()) {
            kernelImage = m;
        }
    }

    /**
     * Where {@code addr} of {@code pid} lies, for a sample taken in {@code cpumode}
     * (PERF_RECORD_MISC_CPUMODE_MASK bits of its misc).
     */
    public CodeLocation locate(int pid, long addr, int cpumode) {
        char level = CodeLocation.level(cpumode);
        return switch (level) {
            case 'k' -> kernel(addr, level);
            case '.' -> user(pid, addr, level);
            default -> CodeLocation.unknown(addr, level);
        };
    }

    /**
     * Where {@code addr} lies when no cpumode says (a branch's source or target): kernel mode at or
     * above the kernel image's start (machine__kernel_ip), or the top half of the address space
     * when the recording maps no kernel image; else user mode.
     */
    public CodeLocation locate(int pid, long addr) {
        return locate(pid, addr, kernelIp(addr) ? PerfRecordMisc.KERNEL : PerfRecordMisc.USER);
    }

    private boolean kernelIp(long addr) {
        return kernelImage != null ? Long.compareUnsigned(addr, kernelImage.start()) >= 0 : addr < 0;
    }

    private CodeLocation user(int pid, long addr, char level) {
        Optional<Mapping> m = userMapping(pid, addr);
        if (m.isEmpty()) {
            return CodeLocation.unknown(addr, level);
        }
        long ip = m.get().mapIp(addr);
        String dso = m.get().file().equals(VDSO) ? vdsoName(pid) : m.get().file();
        Optional<SymbolTable.Entry> sym = symbols(m.get().file()).flatMap(t -> t.find(ip));
        return sym.map(s -> new CodeLocation(dso, s.name(), ip - s.start(), ip, level))
                .orElseGet(() -> new CodeLocation(dso, null, 0, ip, level));
    }

    /**
     * The vDSO's name in a process, as a 64-bit perf gives it (tools/perf/util/vdso.c
     * machine__findnew_vdso, machine__thread_dso_type): "[vdso32]" in a process whose first mapped
     * ELF file is ELF32, "[vdsox32]" for an x32 one (ELF32 for x86-64), else "[vdso]".
     */
    private String vdsoName(int pid) {
        for (Mapping m : byPid.get(pid).values()) {
            if (!m.file().startsWith("/")) {
                continue;
            }
            Optional<ElfFile> e = elf(m.file());
            if (e.isPresent()) {
                return e.get().is64Bit() ? VDSO : e.get().machine() == ElfFile.EM_X86_64 ? "[vdsox32]" : "[vdso32]";
            }
        }
        return VDSO;
    }

    /**
     * A mapped file's symbols: its own .symtab, else the first separate debug file with one, looked
     * for as perf's dso__load does (symbol.c binary_type_symtab; dso.c dso__read_binary_type_filename):
     * the .gnu_debuglink name beside the file, in its .debug directory and under /usr/lib/debug;
     * /usr/lib/debug/PATH.debug and /usr/lib/debug/PATH; /usr/lib/debug/.build-id/xx/rest.debug;
     * a candidate whose build ID differs is not the file's. Else its .dynsym alone.
     */
    private Optional<SymbolTable> symbols(String file) {
        return tables.computeIfAbsent(file, f -> elf(f).map(runtime -> {
            if (runtime.hasSymtab()) {
                return runtime.perfSymbols();
            }
            Optional<String> id = runtime.buildId();
            for (Path candidate : debugFiles(Path.of(f), runtime)) {
                if (!Files.isRegularFile(candidate)) {
                    continue;
                }
                try (ElfFile d = ElfFile.open(candidate)) {
                    if (d.hasSymtab() && (id.isEmpty() || id.equals(d.buildId()))) {
                        return runtime.perfSymbols(d);
                    }
                } catch (HwException e) {
                    // not an ELF file: the next candidate
                }
            }
            return runtime.perfSymbols();
        }));
    }

    private static List<Path> debugFiles(Path file, ElfFile elf) {
        List<Path> out = new java.util.ArrayList<>();
        Path dir = file.getParent() != null ? file.getParent() : Path.of("/");
        Path debugRoot = Path.of(DEBUG_DIR);
        elf.debugLink().filter(l -> !l.isEmpty() && !l.contains("/")).ifPresent(l -> {
            out.add(dir.resolve(l));
            out.add(dir.resolve(".debug").resolve(l));
            out.add(Path.of(DEBUG_DIR + dir).resolve(l));
        });
        out.add(Path.of(DEBUG_DIR + file + ".debug"));
        out.add(Path.of(DEBUG_DIR + file));
        elf.buildId().filter(b -> b.length() > 2)
                .ifPresent(b -> out.add(debugRoot.resolve(".build-id").resolve(b.substring(0, 2)).resolve(b.substring(2) + ".debug")));
        return out;
    }

    private CodeLocation kernel(long addr, char level) {
        Optional<Mapping> m = lookup(byPid.get(KERNEL_PID), addr);
        String dso = m.map(x -> x.kernelImage() ? KERNEL_DSO : moduleName(x.file())).orElse(null);
        Optional<SymbolTable.Entry> sym = kernelSymbols().flatMap(k -> k.table().find(addr));
        if (sym.isPresent()) {
            SymbolTable.Entry s = sym.get();
            return new CodeLocation(s.module().isEmpty() ? KERNEL_DSO : "[" + s.module() + "]", s.name(),
                    addr - s.start(), addr, level);
        }
        return new CodeLocation(dso, null, 0, addr, level);
    }

    /** kallsyms, when the recording's kernel image MMAP agrees with it on the reference symbol. */
    private Optional<KernelSymbols> kernelSymbols() {
        if (kernelImage == null) {
            return Optional.empty();
        }
        if (kallsyms == null) {
            String ref = kernelImage.file().substring(KERNEL_DSO.length());
            long refAddr = kernelImage.pgoff();
            kallsyms = KernelSymbols.read(kallsymsPath).filter(k -> k.matches(ref, refAddr));
        }
        return kallsyms;
    }

    /**
     * A kernel module's DSO name from its path, as kmod_path__parse makes it: "[" + the file name
     * without ".ko" and any compression suffix, '-' as '_', + "]"; an already bracketed name stays.
     */
    static String moduleName(String file) {
        if (file.startsWith("[")) {
            return file;
        }
        String base = file.substring(file.lastIndexOf('/') + 1);
        int ko = base.indexOf(".ko");
        if (ko > 0) {
            base = base.substring(0, ko);
        }
        return "[" + base.replace('-', '_') + "]";
    }

    /** The function at {@code addr} in {@code pid}, when a mapping, its file and a symbol all say so. */
    public Optional<Symbolized> resolve(int pid, long addr) {
        CodeLocation l = locate(pid, addr);
        return l.function().map(f -> new Symbolized(f, l.symbolOffset(), l.dso()));
    }

    /** "func+0x1a" (or "func" at offset 0), else the address as perf script prints an IP: "0x" and hex. */
    public String describe(int pid, long addr) {
        Optional<Symbolized> s = resolve(pid, addr);
        return s.isPresent() ? s.get().describe() : "0x" + Long.toHexString(addr);
    }

    /**
     * The kind of branch instruction at {@code from}, read from the mapped file's bytes; only in x86
     * code (EM_X86_64, EM_386: at a branch's source, 40-4F cannot be i386's INC/DEC, so the
     * decoder's REX rule holds for both), never in another machine's.
     */
    public Optional<BranchKind> classify(int pid, long from) {
        Optional<Mapping> m = userMapping(pid, from);
        if (m.isEmpty()) {
            return Optional.empty();
        }
        Optional<ElfFile> elf = elf(m.get().file())
                .filter(e -> e.machine() == ElfFile.EM_X86_64 || e.machine() == ElfFile.EM_386);
        if (elf.isEmpty()) {
            return Optional.empty();
        }
        OptionalLong vaddr = elf.get().vaddrOfFileOffset(m.get().mapIp(from));
        return vaddr.isPresent() ? elf.get().bytesAt(vaddr.getAsLong(), MAX_INSN).map(X86BranchDecoder::classify)
                : Optional.empty();
    }

    /** The mapping of user address {@code addr} in {@code pid}: a program image first, since it is the code that ran. */
    private Optional<Mapping> userMapping(int pid, long addr) {
        Optional<Mapping> m = lookup(images, addr);
        return m.isPresent() ? m : lookup(byPid.get(pid), addr);
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
        tables.clear();
    }
}
