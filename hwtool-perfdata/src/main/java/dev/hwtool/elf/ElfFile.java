package dev.hwtool.elf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;


import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * An ELF file of either class, little-endian (System V gABI, include/uapi/linux/elf.h): ELF32
 * (i686, ARM) and ELF64 (x86-64, AArch64), mapped read-only: program headers, section headers,
 * the symbols of .symtab and .dynsym that perf keeps, and the file bytes behind a virtual
 * address. Pure Java, no external tools. A file that is not such an ELF, or whose tables point
 * outside it, is {@link HwException} BAD_INPUT naming the file; a big-endian one is refused so
 * (perf reads them with byte swaps; no recording here comes from such a host).
 */
public final class ElfFile implements AutoCloseable {

    /** e_type. */
    public enum Type {
        NONE, REL, EXEC, DYN, CORE, OTHER
    }

    /** e_machine values perf treats specially (symbol-elf.c: mapping symbols, the thumb bit). */
    public static final int EM_386 = 3;
    public static final int EM_ARM = 40;
    public static final int EM_X86_64 = 62;
    public static final int EM_AARCH64 = 183;
    private static final int EM_SPARC = 2;
    private static final int EM_SPARCV9 = 43;
    private static final int SHT_RELA = 4;
    private static final int SHT_REL = 9;

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static final int EI_CLASS = 4;
    private static final int EI_DATA = 5;
    private static final int ELFCLASS32 = 1;
    private static final int ELFCLASS64 = 2;
    private static final int ELFDATA2LSB = 1;
    private static final int ELFDATA2MSB = 2;
    private static final int E_TYPE = 16;
    private static final int E_MACHINE = 18;
    /** SHN_XINDEX: the real e_shstrndx is in section 0's sh_link (extended numbering). */
    private static final int SHN_XINDEX = 0xFFFF;
    private static final int SHN_ABS = 0xFFF1;
    private static final int SHN_LORESERVE = 0xFF00;
    private static final int STT_NOTYPE = 0;
    private static final int STT_OBJECT = 1;
    private static final int STT_FUNC = 2;
    private static final int STT_GNU_IFUNC = 10;
    private static final int STV_INTERNAL = 1;
    private static final int STV_HIDDEN = 2;
    private static final int SHT_NOTE = 7;
    private static final int NT_GNU_BUILD_ID = 3;

    /**
     * Where the fields of one ELF class lie (gABI "ELF Header", "Program Header", "Sections",
     * "Symbol Table"): ELF32 packs 4-byte addresses and orders Phdr and Sym fields differently.
     */
    private record Layout(int word, int phoff, int shoff, int phentsize, int phnum, int shentsize, int shnum,
                          int shstrndx, int ehdrSize, int phdrSize, int shdrSize, int symSize,
                          int pFlags, int pOffset, int pVaddr, int pFilesz, int pMemsz,
                          int shFlags, int shAddr, int shOffset, int shSize, int shLink, int shEntsize,
                          int stValue, int stSize, int stInfo, int stOther, int stShndx) {
        static final Layout ELF32 = new Layout(4, 28, 32, 42, 44, 46, 48, 50, 52, 32, 40, 16,
                24, 4, 8, 16, 20, 8, 12, 16, 20, 24, 36, 4, 8, 12, 13, 14);
        static final Layout ELF64 = new Layout(8, 32, 40, 54, 56, 58, 60, 62, 64, 56, 64, 24,
                4, 8, 16, 32, 40, 8, 16, 24, 32, 40, 56, 8, 16, 4, 5, 6);
    }

    private final Path path;
    private final Arena arena;
    private final MemorySegment file;
    private final Layout layout;
    private final Type type;
    private final int machine;
    private final List<ElfSegment> segments;
    private final List<ElfSection> sections;
    private final List<ElfSymbol> symtab;
    private final List<ElfSymbol> dynsym;
    private final ElfSymbol[] symbols;
    private final long maxSymbolSize;
    private SymbolTable perfSymbols;

    private ElfFile(Path path, Arena arena, MemorySegment file) {
        this.path = path;
        this.arena = arena;
        this.file = file;
        if (file.byteSize() < 6 || file.get(U32, 0) != 0x464C457F) { // \x7fELF
            throw bad("not an ELF file");
        }
        int cls = file.get(ValueLayout.JAVA_BYTE, EI_CLASS);
        int data = file.get(ValueLayout.JAVA_BYTE, EI_DATA);
        if (cls != ELFCLASS32 && cls != ELFCLASS64) {
            throw bad("ELF class " + cls + " is neither ELFCLASS32 nor ELFCLASS64");
        }
        if (data == ELFDATA2MSB) {
            throw bad("a big-endian ELF file, which hwtool does not read");
        }
        if (data != ELFDATA2LSB) {
            throw bad("ELF data encoding " + data + " is neither little- nor big-endian");
        }
        layout = cls == ELFCLASS32 ? Layout.ELF32 : Layout.ELF64;
        need(0, layout.ehdrSize(), "the ELF header");
        int t = Short.toUnsignedInt(file.get(U16, E_TYPE));
        type = t < Type.OTHER.ordinal() ? Type.values()[t] : Type.OTHER;
        machine = Short.toUnsignedInt(file.get(U16, E_MACHINE));
        segments = readSegments();
        sections = readSections();
        symtab = readSymbols(ElfSection.SHT_SYMTAB);
        dynsym = readSymbols(ElfSection.SHT_DYNSYM);
        Set<ElfSymbol> all = new LinkedHashSet<>(symtab);
        all.addAll(dynsym);
        List<ElfSymbol> sorted = new ArrayList<>(all);
        sorted.sort(Comparator.comparing(ElfSymbol::value, Long::compareUnsigned));
        symbols = sorted.toArray(ElfSymbol[]::new);
        long max = 0;
        for (ElfSymbol s : symbols) {
            max = Math.max(max, s.size());
        }
        maxSymbolSize = max;
    }

    /**
     * Maps and parses {@code path}.
     *
     * @throws HwException BAD_INPUT when it cannot be read or is not a well-formed little-endian ELF file
     */
    public static ElfFile open(Path path) {
        return MappedFiles.open(path, (arena, seg) -> new ElfFile(path, arena, seg));
    }

    /**
     * Parses an ELF file held in memory ({@code bytes}, not copied: do not change them), named
     * {@code name} in messages and {@link #path()}: a program image built rather than read.
     *
     * @throws HwException BAD_INPUT when it is not a well-formed ELF64 LE file
     */
    public static ElfFile of(String name, byte[] bytes) {
        return new ElfFile(Path.of(name), Arena.ofShared(), MemorySegment.ofArray(bytes));
    }

    public Path path() {
        return path;
    }

    public Type type() {
        return type;
    }

    /** ET_DYN (shared objects and PIE executables: loaded at a chosen base) rather than ET_EXEC. */
    public boolean positionIndependent() {
        return type == Type.DYN;
    }

    /** e_machine (EM_386 3, EM_ARM 40, EM_X86_64 62, EM_AARCH64 183, ...). */
    public int machine() {
        return machine;
    }

    /** ELFCLASS64 rather than ELFCLASS32. */
    public boolean is64Bit() {
        return layout == Layout.ELF64;
    }

    public List<ElfSegment> segments() {
        return segments;
    }

    public List<ElfSection> sections() {
        return sections;
    }

    /** The symbols perf keeps of .symtab and .dynsym together (one of each identical pair), by address. */
    public List<ElfSymbol> symbols() {
        return List.of(symbols);
    }

    /** The kept symbols of .symtab, in table order. */
    public List<ElfSymbol> symtab() {
        return symtab;
    }

    /** The kept symbols of .dynsym, in table order. */
    public List<ElfSymbol> dynsym() {
        return dynsym;
    }

    /**
     * The file's functions as perf report finds them: .symtab, then .dynsym, at file offsets, with
     * sizeless symbols extended and aliases chosen as perf does (see {@link SymbolTable}). Built
     * on first use.
     */
    public synchronized SymbolTable perfSymbols() {
        if (perfSymbols == null) {
            perfSymbols = perfSymbols(this);
        }
        return perfSymbols;
    }

    /**
     * This file's functions named from the symbol tables of {@code syms}, a separate debug file of
     * it (perf's syms_ss and runtime_ss: the debug file's symbols, this file's program headers).
     */
    public SymbolTable perfSymbols(ElfFile syms) {
        // the PLT's names come from this file, never a debug file (perf's runtime_ss): debuginfo
        // packages strip the PLT's contents
        return SymbolTable.ofElf(List.of(entries(syms.symtab, syms), entries(syms.dynsym, syms)), pltSymbols());
    }

    /**
     * The {@code NAME@plt} symbols perf 6.1 synthesizes for the procedure linkage table
     * (tools/perf/util/symbol-elf.c {@code dso__synthesize_plt_symbols}, {@code get_plt_sizes}):
     * the PLT holds a header and then one entry per relocation of .rela.plt (or .rel.plt), in
     * relocation order, each named after the .dynsym symbol its relocation refers to. Sizes are
     * perf's: ARM 20/12 (header/entry), AArch64 32/16, SPARC 48/12, SPARCV9 128/32, otherwise
     * (x86) .plt's sh_entsize for both. Nothing when there is no .dynsym, the relocations do not
     * link to it, there is no .plt, or a size is zero. perf 6.1 knows neither .plt.sec (IBT) nor
     * .plt.got: addresses there stay unnamed, as with perf 6.1. At file offsets, as every entry here.
     */
    List<SymbolTable.Entry> pltSymbols() {
        int dynsymIndex = sectionIndex(".dynsym");
        if (dynsymIndex < 0 || sections.get(dynsymIndex).type() != ElfSection.SHT_DYNSYM) {
            return List.of();
        }
        int relIndex = sectionIndex(".rela.plt");
        if (relIndex < 0) {
            relIndex = sectionIndex(".rel.plt");
        }
        int pltIndex = sectionIndex(".plt");
        if (relIndex < 0 || pltIndex < 0) {
            return List.of();
        }
        ElfSection rel = sections.get(relIndex);
        ElfSection plt = sections.get(pltIndex);
        ElfSection dynsymSection = sections.get(dynsymIndex);
        if (rel.link() != dynsymIndex || rel.entSize() == 0 || rel.type() == ElfSection.SHT_NOBITS
                || dynsymSection.link() <= 0 || dynsymSection.link() >= sections.size()) {
            return List.of();
        }
        ElfSection strtab = sections.get(dynsymSection.link());
        if (strtab.size() == 0) {
            return List.of();
        }
        long header;
        long entry;
        switch (machine) {
            case EM_ARM -> { header = 20; entry = 12; }
            case EM_AARCH64 -> { header = 32; entry = 16; }
            case EM_SPARC -> { header = 48; entry = 12; }
            case EM_SPARCV9 -> { header = 128; entry = 32; }
            default -> { header = plt.entSize(); entry = plt.entSize(); }
        }
        boolean rela = rel.type() == SHT_RELA;
        if (entry == 0 || !rela && rel.type() != SHT_REL) {
            return List.of();
        }
        // gelf_getrela/gelf_getrel step by the structure's size (Elf64_Rela 24, Elf64_Rel 16,
        // Elf32_Rela 12, Elf32_Rel 8); r_info follows r_offset
        int stride = is64Bit() ? (rela ? 24 : 16) : (rela ? 12 : 8);
        long count = rel.size() / rel.entSize();
        List<SymbolTable.Entry> out = new ArrayList<>();
        long offset = plt.offset() + header;
        String name = "";
        for (long i = 0; i < count; i++) {
            long p = rel.offset() + i * stride;
            if (p + stride > file.byteSize()) {
                break;
            }
            long info = word(p + layout.word());
            long symIndex = is64Bit() ? info >>> 32 : (info & 0xFFFFFFFFL) >>> 8; // ELF64_R_SYM, ELF32_R_SYM
            long sym = dynsymSection.offset() + symIndex * layout.symSize();
            if (sym + layout.symSize() <= dynsymSection.offset() + dynsymSection.size()) {
                // out of the table, gelf_getsym fails and perf keeps the symbol it had
                name = string(strtab.offset(), strtab.size(), Integer.toUnsignedLong(file.get(U32, sym)));
            }
            out.add(SymbolTable.Entry.sized(name + "@plt", ElfSymbol.Kind.FUNC, ElfSymbol.STB_GLOBAL, offset, entry, ""));
            offset += entry;
        }
        return out;
    }

    /** The index of the first section named {@code name} (perf's elf_section_by_name), or -1. */
    private int sectionIndex(String name) {
        for (int i = 0; i < sections.size(); i++) {
            if (sections.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** Whether the file has a .symtab (perf takes its symbols from the first candidate file that does). */
    public boolean hasSymtab() {
        return sections.stream().anyMatch(s -> s.type() == ElfSection.SHT_SYMTAB);
    }

    /** The GNU build ID (an NT_GNU_BUILD_ID note of a SHT_NOTE section) as lower-case hex. */
    public Optional<String> buildId() {
        for (ElfSection s : sections) {
            if (s.type() != SHT_NOTE) {
                continue;
            }
            long p = s.offset();
            long end = s.offset() + s.size();
            while (p + 12 <= end) {
                long namesz = Integer.toUnsignedLong(file.get(U32, p));
                long descsz = Integer.toUnsignedLong(file.get(U32, p + 4));
                int ntype = file.get(U32, p + 8);
                long name = p + 12;
                long desc = name + ((namesz + 3) & ~3L);
                long next = desc + ((descsz + 3) & ~3L);
                if (next > end || next <= p) {
                    break;
                }
                if (ntype == NT_GNU_BUILD_ID && namesz == 4 && file.get(U32, name) == 0x00554E47) { // "GNU\0"
                    StringBuilder b = new StringBuilder();
                    for (long i = 0; i < descsz; i++) {
                        b.append(String.format("%02x", file.get(ValueLayout.JAVA_BYTE, desc + i) & 0xFF));
                    }
                    return Optional.of(b.toString());
                }
                p = next;
            }
        }
        return Optional.empty();
    }

    /** The file name .gnu_debuglink names (the separate debug file), if any. */
    public Optional<String> debugLink() {
        return sections.stream().filter(s -> s.name().equals(".gnu_debuglink") && s.type() != ElfSection.SHT_NOBITS
                && s.size() > 0).findFirst().map(s -> string(s.offset(), s.size(), 0));
    }

    /**
     * The symbols at the file offsets their code lies at, as tools/perf/util/symbol-elf.c
     * dso__load_sym_internal adjusts user-space symbols (symsrc__init sets adjust_symbols for every
     * user DSO, ET_EXEC and ET_DYN alike): st_value less p_vaddr - p_offset of the PT_LOAD holding
     * it (elf_read_program_header, which sizes a segment by the larger of p_memsz and p_filesz),
     * else less sh_addr - sh_offset of its section.
     */
    private List<SymbolTable.Entry> entries(List<ElfSymbol> syms, ElfFile from) {
        List<SymbolTable.Entry> out = new ArrayList<>(syms.size());
        for (ElfSymbol s : syms) {
            long bias = 0;
            boolean found = false;
            for (ElfSegment g : segments) {
                long sz = Math.max(g.memSize(), g.fileSize());
                if (g.load() && sz != 0 && Long.compareUnsigned(s.value() - g.vaddr(), sz) < 0
                        && Long.compareUnsigned(s.value(), g.vaddr()) >= 0) {
                    bias = g.vaddr() - g.offset();
                    found = true;
                    break;
                }
            }
            if (!found && s.shndx() > 0 && s.shndx() < from.sections.size()) {
                ElfSection sec = from.sections.get(s.shndx());
                bias = sec.addr() - sec.offset();
            }
            out.add(SymbolTable.Entry.sized(s.name(), s.kind(), s.binding(), s.value() - bias, s.size(), ""));
        }
        return out;
    }

    /**
     * The symbol covering {@code vaddr} with the sizes the file gives (for perf's view, with sizeless
     * symbols extended, see {@link #perfSymbols()}): FUNC before OBJECT before a label, then the
     * nearest start.
     */
    public Optional<ElfSymbol> symbolAt(long vaddr) {
        int lo = 0;
        int hi = symbols.length;
        while (lo < hi) { // first symbol with value > vaddr
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(symbols[mid].value(), vaddr) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        ElfSymbol best = null;
        for (int i = lo - 1; i >= 0; i--) {
            ElfSymbol s = symbols[i];
            if (Long.compareUnsigned(vaddr - s.value(), maxSymbolSize) > 0) {
                break;
            }
            if (s.contains(vaddr) && (best == null || rank(s) > rank(best))) {
                best = s;
            }
        }
        return Optional.ofNullable(best);
    }

    private static int rank(ElfSymbol s) {
        return switch (s.kind()) {
            case FUNC -> 2;
            case OBJECT -> 1;
            case NOTYPE -> 0;
        };
    }

    /** Up to {@code n} bytes of the file behind {@code vaddr} (a PT_LOAD's file part); empty outside them. */
    public Optional<byte[]> bytesAt(long vaddr, int n) {
        for (ElfSegment s : segments) {
            long off = vaddr - s.vaddr();
            if (s.load() && off >= 0 && off < s.fileSize()) {
                long len = Math.min(n, s.fileSize() - off);
                return Optional.of(file.asSlice(s.offset() + off, len).toArray(ValueLayout.JAVA_BYTE));
            }
        }
        return Optional.empty();
    }

    /** The virtual address the loader gives file offset {@code off} (before any load bias), if a PT_LOAD maps it. */
    public OptionalLong vaddrOfFileOffset(long off) {
        for (ElfSegment s : segments) {
            long d = off - s.offset();
            if (s.load() && d >= 0 && d < s.fileSize()) {
                return OptionalLong.of(s.vaddr() + d);
            }
        }
        return OptionalLong.empty();
    }

    @Override
    public void close() {
        arena.close();
    }

    // ---- tables -----------------------------------------------------------------------------------

    /** An address-sized field (4 bytes in ELF32, 8 in ELF64), unsigned. */
    private long word(long off) {
        return layout.word() == 8 ? file.get(U64, off) : Integer.toUnsignedLong(file.get(U32, off));
    }

    private List<ElfSegment> readSegments() {
        long off = word(layout.phoff());
        int num = Short.toUnsignedInt(file.get(U16, layout.phnum()));
        int ent = Short.toUnsignedInt(file.get(U16, layout.phentsize()));
        if (num == 0) {
            return List.of();
        }
        if (ent < layout.phdrSize()) {
            throw bad("e_phentsize " + ent + " is smaller than a program header (" + layout.phdrSize() + " bytes)");
        }
        need(off, (long) num * ent, "the program headers");
        List<ElfSegment> out = new ArrayList<>();
        for (int i = 0; i < num; i++) {
            long p = off + (long) i * ent;
            ElfSegment s = new ElfSegment(file.get(U32, p), file.get(U32, p + layout.pFlags()), word(p + layout.pOffset()),
                    word(p + layout.pVaddr()), word(p + layout.pFilesz()), word(p + layout.pMemsz()));
            if (s.load()) {
                need(s.offset(), s.fileSize(), "PT_LOAD " + i);
            }
            out.add(s);
        }
        return List.copyOf(out);
    }

    private List<ElfSection> readSections() {
        long off = word(layout.shoff());
        int ent = Short.toUnsignedInt(file.get(U16, layout.shentsize()));
        long num = Short.toUnsignedInt(file.get(U16, layout.shnum()));
        int strndx = Short.toUnsignedInt(file.get(U16, layout.shstrndx()));
        if (off == 0) {
            return List.of();
        }
        if (ent < layout.shdrSize()) {
            throw bad("e_shentsize " + ent + " is smaller than a section header (" + layout.shdrSize() + " bytes)");
        }
        need(off, layout.shdrSize(), "section header 0");
        if (num == 0) { // extended numbering: the count is section 0's sh_size
            num = word(off + layout.shSize());
        }
        if (strndx == SHN_XINDEX) {
            strndx = file.get(U32, off + layout.shLink());
        }
        if (num < 0 || num > file.byteSize() / layout.shdrSize()) {
            throw bad("section count " + Long.toUnsignedString(num) + " cannot fit in the file");
        }
        need(off, num * ent, "the section headers");
        long[][] raw = new long[(int) num][];
        for (int i = 0; i < num; i++) {
            long p = off + (long) i * ent;
            raw[i] = new long[] {Integer.toUnsignedLong(file.get(U32, p)), file.get(U32, p + 4), word(p + layout.shFlags()),
                    word(p + layout.shAddr()), word(p + layout.shOffset()), word(p + layout.shSize()),
                    file.get(U32, p + layout.shLink()), word(p + layout.shEntsize())};
        }
        long strOff = 0;
        long strSize = 0;
        if (strndx > 0 && strndx < num) {
            strOff = raw[strndx][4];
            strSize = raw[strndx][5];
            need(strOff, strSize, "the section name table");
        }
        List<ElfSection> out = new ArrayList<>();
        for (long[] r : raw) {
            int t = (int) r[1];
            if (t != ElfSection.SHT_NOBITS && t != 0) {
                need(r[4], r[5], "a section");
            }
            String name = strSize == 0 ? "" : string(strOff, strSize, r[0]);
            out.add(new ElfSection(name, t, r[2], r[3], r[4], r[5], (int) r[6], r[7]));
        }
        return List.copyOf(out);
    }

    /**
     * The symbols of the tables of {@code tableType} that perf's dso__load_sym_internal keeps
     * (tools/perf/util/symbol-elf.c): named functions (STT_FUNC, STT_GNU_IFUNC) and objects with a
     * section (elf_sym__filter), and labels (elf_sym__is_label: STT_NOTYPE, named, not SHN_UNDEF or
     * SHN_ABS, not hidden or internal) in a section whose name holds "text" or "data"
     * (elf_sec__filter); never SHN_ABS ones or those of a section that is not SHF_ALLOC; on ARM and
     * AArch64 never the mapping symbols $a, $d, $t, $x (and "$x.*"); on ARM a function's thumb bit
     * is cleared.
     */
    private List<ElfSymbol> readSymbols(int tableType) {
        List<ElfSymbol> out = new ArrayList<>();
        boolean arm = machine == EM_ARM || machine == EM_AARCH64;
        for (ElfSection s : sections) {
            if (s.type() != tableType) {
                continue;
            }
            if (s.link() <= 0 || s.link() >= sections.size()) {
                throw bad("symbol table " + s.name() + " links to no string table (sh_link " + s.link() + ")");
            }
            ElfSection strtab = sections.get(s.link());
            int size = layout.symSize();
            for (long p = s.offset(); p + size <= s.offset() + s.size(); p += size) {
                int info = file.get(ValueLayout.JAVA_BYTE, p + layout.stInfo()) & 0xFF;
                int kind = info & 0xF;
                int visibility = file.get(ValueLayout.JAVA_BYTE, p + layout.stOther()) & 0x3;
                int shndx = Short.toUnsignedInt(file.get(U16, p + layout.stShndx()));
                long nameIndex = Integer.toUnsignedLong(file.get(U32, p));
                if (nameIndex == 0 || shndx == 0 || shndx == SHN_ABS) {
                    continue;
                }
                boolean label = kind == STT_NOTYPE && visibility != STV_HIDDEN && visibility != STV_INTERNAL;
                if (!label && kind != STT_FUNC && kind != STT_GNU_IFUNC && kind != STT_OBJECT) {
                    continue;
                }
                if (shndx < SHN_LORESERVE && shndx < sections.size()) {
                    ElfSection home = sections.get(shndx);
                    if ((home.flags() & ElfSection.SHF_ALLOC) == 0
                            || label && !home.name().contains("text") && !home.name().contains("data")) {
                        continue;
                    }
                } else if (label) {
                    continue;
                }
                String name = string(strtab.offset(), strtab.size(), nameIndex);
                if (arm && isMappingSymbol(name)) {
                    continue;
                }
                long value = word(p + layout.stValue());
                if (machine == EM_ARM && kind == STT_FUNC && (value & 1) != 0) {
                    value--; // a thumb function's address has bit 0 set as a flag
                }
                ElfSymbol.Kind k = label ? ElfSymbol.Kind.NOTYPE : kind == STT_OBJECT ? ElfSymbol.Kind.OBJECT
                        : ElfSymbol.Kind.FUNC;
                out.add(new ElfSymbol(name, k, value, word(p + layout.stSize()), info >>> 4, shndx));
            }
        }
        return List.copyOf(out);
    }

    /** ARM ELF mapping symbols (AAELF "Mapping symbols"): $a, $d, $t, $x, alone or followed by '.'. */
    static boolean isMappingSymbol(String name) {
        return name.length() >= 2 && name.charAt(0) == '$' && "adtx".indexOf(name.charAt(1)) >= 0
                && (name.length() == 2 || name.charAt(2) == '.');
    }

    private String string(long tableOff, long tableSize, long index) {
        if (index < 0 || index >= tableSize) {
            throw bad("string index " + index + " outside its table of " + tableSize + " bytes");
        }
        long p = tableOff + index;
        long end = tableOff + tableSize;
        long q = p;
        while (q < end && file.get(ValueLayout.JAVA_BYTE, q) != 0) {
            q++;
        }
        return new String(file.asSlice(p, q - p).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    private void need(long off, long len, String what) {
        if (off < 0 || len < 0 || off > file.byteSize() || len > file.byteSize() - off) {
            throw bad("truncated: " + what + " [" + Long.toUnsignedString(off) + ", +" + Long.toUnsignedString(len)
                    + ") lies outside the file's " + file.byteSize() + " bytes");
        }
    }

    private HwException bad(String message) {
        return new HwException(Cause.BAD_INPUT, path + ": " + message);
    }
}
