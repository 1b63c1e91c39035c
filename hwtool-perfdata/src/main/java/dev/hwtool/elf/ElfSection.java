package dev.hwtool.elf;

/** A section header (Elf32_Shdr or Elf64_Shdr) with its name from the section name table. */
public record ElfSection(String name, int type, long flags, long addr, long offset, long size, int link, long entSize) {

    public static final int SHT_SYMTAB = 2;
    public static final int SHT_NOBITS = 8;
    public static final int SHT_DYNSYM = 11;
    /** sh_flags SHF_ALLOC: the section occupies memory when the program runs. */
    public static final long SHF_ALLOC = 2;
}
