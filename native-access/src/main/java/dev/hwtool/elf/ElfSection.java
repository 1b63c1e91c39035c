package dev.hwtool.elf;

/** A section header (Elf64_Shdr) with its name from .shstrtab. */
public record ElfSection(String name, int type, long flags, long addr, long offset, long size, int link, long entSize) {

    public static final int SHT_SYMTAB = 2;
    public static final int SHT_NOBITS = 8;
    public static final int SHT_DYNSYM = 11;
}
