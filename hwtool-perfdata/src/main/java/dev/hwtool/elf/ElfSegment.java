package dev.hwtool.elf;

/** A program header (Elf32_Phdr or Elf64_Phdr); {@link #flags()} are PF_X 1, PF_W 2, PF_R 4. */
public record ElfSegment(int type, int flags, long offset, long vaddr, long fileSize, long memSize) {

    public static final int PT_LOAD = 1;
    public static final int PF_X = 1;

    public boolean load() {
        return type == PT_LOAD;
    }

    public boolean executable() {
        return (flags & PF_X) != 0;
    }
}
