package dev.hwtool.elf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import dev.hwtool.io.MappedFiles;

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
 * An ELF64 little-endian file (System V gABI, include/uapi/linux/elf.h), mapped read-only:
 * program headers, section headers, the FUNC and OBJECT symbols of .symtab and .dynsym, and the
 * file bytes behind a virtual address. Pure Java, no external tools. A file that is not such an
 * ELF, or whose tables point outside it, is {@link HwException} BAD_INPUT naming the file.
 */
public final class ElfFile implements AutoCloseable {

    /** e_type. */
    public enum Type {
        NONE, REL, EXEC, DYN, CORE, OTHER
    }

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    // Elf64_Ehdr layout
    private static final int EI_CLASS = 4;
    private static final int EI_DATA = 5;
    private static final int ELFCLASS64 = 2;
    private static final int ELFDATA2LSB = 1;
    private static final int E_TYPE = 16;
    private static final int E_MACHINE = 18;
    private static final int E_PHOFF = 32;
    private static final int E_SHOFF = 40;
    private static final int E_PHENTSIZE = 54;
    private static final int E_PHNUM = 56;
    private static final int E_SHENTSIZE = 58;
    private static final int E_SHNUM = 60;
    private static final int E_SHSTRNDX = 62;
    private static final int EHDR_SIZE = 64;
    private static final int PHDR_SIZE = 56;
    private static final int SHDR_SIZE = 64;
    private static final int SYM_SIZE = 24;
    /** SHN_XINDEX: the real e_shstrndx is in section 0's sh_link (extended numbering). */
    private static final int SHN_XINDEX = 0xFFFF;
    private static final int STT_OBJECT = 1;
    private static final int STT_FUNC = 2;

    private final Path path;
    private final Arena arena;
    private final MemorySegment file;
    private final Type type;
    private final int machine;
    private final List<ElfSegment> segments;
    private final List<ElfSection> sections;
    private final ElfSymbol[] symbols;
    private final long maxSymbolSize;

    private ElfFile(Path path, Arena arena, MemorySegment file) {
        this.path = path;
        this.arena = arena;
        this.file = file;
        if (file.byteSize() < 4 || file.get(U32, 0) != 0x464C457F) { // \x7fELF
            throw bad("not an ELF file");
        }
        need(0, EHDR_SIZE, "the ELF header");
        if (file.get(ValueLayout.JAVA_BYTE, EI_CLASS) != ELFCLASS64 || file.get(ValueLayout.JAVA_BYTE, EI_DATA) != ELFDATA2LSB) {
            throw bad("not a 64-bit little-endian ELF file");
        }
        int t = Short.toUnsignedInt(file.get(U16, E_TYPE));
        type = t < Type.OTHER.ordinal() ? Type.values()[t] : Type.OTHER;
        machine = Short.toUnsignedInt(file.get(U16, E_MACHINE));
        segments = readSegments();
        sections = readSections();
        List<ElfSymbol> syms = readSymbols();
        symbols = syms.toArray(ElfSymbol[]::new);
        long max = 0;
        for (ElfSymbol s : symbols) {
            max = Math.max(max, s.size());
        }
        maxSymbolSize = max;
    }

    /**
     * Maps and parses {@code path}.
     *
     * @throws HwException BAD_INPUT when it cannot be read or is not a well-formed ELF64 LE file
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

    /** e_machine (EM_X86_64 62). */
    public int machine() {
        return machine;
    }

    public List<ElfSegment> segments() {
        return segments;
    }

    public List<ElfSection> sections() {
        return sections;
    }

    /** FUNC and OBJECT symbols of .symtab and .dynsym, defined, by address. */
    public List<ElfSymbol> symbols() {
        return List.of(symbols);
    }

    /** The symbol covering {@code vaddr}: FUNC before OBJECT, then the nearest start. */
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
            if (s.contains(vaddr) && (best == null || best.kind() != ElfSymbol.Kind.FUNC && s.kind() == ElfSymbol.Kind.FUNC)) {
                best = s;
            }
        }
        return Optional.ofNullable(best);
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

    private List<ElfSegment> readSegments() {
        long off = file.get(U64, E_PHOFF);
        int num = Short.toUnsignedInt(file.get(U16, E_PHNUM));
        int ent = Short.toUnsignedInt(file.get(U16, E_PHENTSIZE));
        if (num == 0) {
            return List.of();
        }
        if (ent < PHDR_SIZE) {
            throw bad("e_phentsize " + ent + " is smaller than an Elf64_Phdr");
        }
        need(off, (long) num * ent, "the program headers");
        List<ElfSegment> out = new ArrayList<>();
        for (int i = 0; i < num; i++) {
            long p = off + (long) i * ent;
            ElfSegment s = new ElfSegment(file.get(U32, p), file.get(U32, p + 4), file.get(U64, p + 8),
                    file.get(U64, p + 16), file.get(U64, p + 32), file.get(U64, p + 40));
            if (s.load()) {
                need(s.offset(), s.fileSize(), "PT_LOAD " + i);
            }
            out.add(s);
        }
        return List.copyOf(out);
    }

    private List<ElfSection> readSections() {
        long off = file.get(U64, E_SHOFF);
        int ent = Short.toUnsignedInt(file.get(U16, E_SHENTSIZE));
        long num = Short.toUnsignedInt(file.get(U16, E_SHNUM));
        int strndx = Short.toUnsignedInt(file.get(U16, E_SHSTRNDX));
        if (off == 0) {
            return List.of();
        }
        if (ent < SHDR_SIZE) {
            throw bad("e_shentsize " + ent + " is smaller than an Elf64_Shdr");
        }
        need(off, SHDR_SIZE, "section header 0");
        if (num == 0) { // extended numbering: the count is section 0's sh_size
            num = file.get(U64, off + 32);
        }
        if (strndx == SHN_XINDEX) {
            strndx = file.get(U32, off + 40);
        }
        if (num < 0 || num > file.byteSize() / SHDR_SIZE) {
            throw bad("section count " + Long.toUnsignedString(num) + " cannot fit in the file");
        }
        need(off, num * ent, "the section headers");
        long[][] raw = new long[(int) num][];
        for (int i = 0; i < num; i++) {
            long p = off + (long) i * ent;
            raw[i] = new long[] {Integer.toUnsignedLong(file.get(U32, p)), file.get(U32, p + 4), file.get(U64, p + 8),
                    file.get(U64, p + 16), file.get(U64, p + 24), file.get(U64, p + 32), file.get(U32, p + 40),
                    file.get(U64, p + 56)};
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

    private List<ElfSymbol> readSymbols() {
        Set<ElfSymbol> out = new LinkedHashSet<>();
        for (ElfSection s : sections) {
            if (s.type() != ElfSection.SHT_SYMTAB && s.type() != ElfSection.SHT_DYNSYM) {
                continue;
            }
            if (s.link() <= 0 || s.link() >= sections.size()) {
                throw bad("symbol table " + s.name() + " links to no string table (sh_link " + s.link() + ")");
            }
            ElfSection strtab = sections.get(s.link());
            for (long p = s.offset(); p + SYM_SIZE <= s.offset() + s.size(); p += SYM_SIZE) {
                int kind = file.get(ValueLayout.JAVA_BYTE, p + 4) & 0xF;
                int shndx = Short.toUnsignedInt(file.get(U16, p + 6));
                if ((kind != STT_FUNC && kind != STT_OBJECT) || shndx == 0) {
                    continue;
                }
                String name = string(strtab.offset(), strtab.size(), Integer.toUnsignedLong(file.get(U32, p)));
                out.add(new ElfSymbol(name, kind == STT_FUNC ? ElfSymbol.Kind.FUNC : ElfSymbol.Kind.OBJECT,
                        file.get(U64, p + 8), file.get(U64, p + 16)));
            }
        }
        List<ElfSymbol> sorted = new ArrayList<>(out);
        sorted.sort(Comparator.comparing(ElfSymbol::value, Long::compareUnsigned));
        return sorted;
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
