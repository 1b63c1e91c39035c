package dev.hwtool.elf;

/**
 * A defined symbol of .symtab or .dynsym (Elf32_Sym/Elf64_Sym) of a kind perf keeps: functions
 * (STT_FUNC, STT_GNU_IFUNC), data (STT_OBJECT) and labels (STT_NOTYPE in a text or data section),
 * as tools/perf/util/symbol-elf.c elf_sym__filter and elf_sym__is_label choose them.
 *
 * @param value   st_value: the symbol's virtual address in the file's address space (on ARM with the
 *                thumb bit cleared, as perf clears it)
 * @param size    st_size in bytes (0 when the assembler did not say)
 * @param binding st_info's binding: STB_LOCAL 0, STB_GLOBAL 1, STB_WEAK 2
 * @param shndx   st_shndx: the section it is defined in
 */
public record ElfSymbol(String name, Kind kind, long value, long size, int binding, int shndx) {

    public static final int STB_LOCAL = 0;
    public static final int STB_GLOBAL = 1;
    public static final int STB_WEAK = 2;

    /** STT_OBJECT 1, STT_FUNC 2 (and STT_GNU_IFUNC 10), STT_NOTYPE 0: the gABI's types hwtool keeps. */
    public enum Kind {
        OBJECT, FUNC, NOTYPE
    }

    /** A global symbol of no particular section (tests and tables built by hand). */
    public ElfSymbol(String name, Kind kind, long value, long size) {
        this(name, kind, value, size, STB_GLOBAL, 0);
    }

    /** Whether {@code vaddr} lies inside the symbol as the ELF file sizes it (a sizeless symbol covers only its own address). */
    public boolean contains(long vaddr) {
        long off = vaddr - value;
        return size == 0 ? off == 0 : off >= 0 && Long.compareUnsigned(off, size) < 0;
    }
}
