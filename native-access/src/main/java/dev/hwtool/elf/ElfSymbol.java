package dev.hwtool.elf;

/**
 * A defined function or data symbol of .symtab or .dynsym (Elf64_Sym).
 *
 * @param value st_value: the symbol's virtual address in the file's address space
 * @param size  st_size in bytes (0 when the assembler did not say)
 */
public record ElfSymbol(String name, Kind kind, long value, long size) {

    /** STT_OBJECT 1, STT_FUNC 2 (the ELF gABI's symbol types hwtool keeps). */
    public enum Kind {
        OBJECT, FUNC
    }

    /** Whether {@code vaddr} lies inside the symbol (a sizeless symbol covers only its own address). */
    public boolean contains(long vaddr) {
        long off = vaddr - value;
        return size == 0 ? off == 0 : off >= 0 && Long.compareUnsigned(off, size) < 0;
    }
}
