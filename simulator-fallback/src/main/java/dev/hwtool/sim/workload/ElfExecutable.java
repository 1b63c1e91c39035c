package dev.hwtool.sim.workload;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Writes a {@link ProgramImage} as a minimal ELF64 little-endian executable, as the System V gABI
 * and include/uapi/linux/elf.h lay it out: the ELF header, one PT_LOAD (R+X) of the code at its
 * address, the code, then .symtab (one global STT_FUNC symbol with its size per function),
 * .strtab, .shstrtab and the section headers. ET_EXEC for EM_X86_64, so the addresses in the
 * file are the addresses the simulator ran the code at (no load bias).
 */
final class ElfExecutable {

    /** The most bytes of padding one image puts between two workloads' code. */
    static final long MAX_GAP = 64L << 20;

    private static final int EHDR_SIZE = 64;
    private static final int PHDR_SIZE = 56;
    private static final int SHDR_SIZE = 64;
    private static final int SYM_SIZE = 24;
    private static final long PAGE = 0x1000;
    private static final short ET_EXEC = 2;
    private static final short EM_X86_64 = 62;
    private static final int PT_LOAD = 1;
    private static final int PF_R_X = 4 | 1;
    private static final int SHT_PROGBITS = 1;
    private static final int SHT_SYMTAB = 2;
    private static final int SHT_STRTAB = 3;
    private static final long SHF_ALLOC_EXECINSTR = 0x2 | 0x4;
    /** STB_GLOBAL << 4 | STT_FUNC. */
    private static final byte GLOBAL_FUNC = 0x12;
    private static final short TEXT_SECTION = 1;

    private ElfExecutable() {
    }

    /** Where the code sits in the file: after the headers, at the same offset in its page as its address (p_offset ≡ p_vaddr mod p_align). */
    static long textOffset(long start) {
        long inPage = start & (PAGE - 1);
        return inPage >= EHDR_SIZE + PHDR_SIZE ? inPage : inPage + PAGE;
    }

    static byte[] write(ProgramImage image) {
        byte[] text = image.text();
        long textOff = textOffset(image.start());

        ByteArrayOutputStream strtab = new ByteArrayOutputStream();
        strtab.write(0);
        ByteBuffer symtab = le(SYM_SIZE * (1 + image.functions().size()));
        symtab.put(new byte[SYM_SIZE]); // index 0: the undefined symbol
        for (ProgramImage.Function f : image.functions()) {
            symtab.putInt(strtab.size()).put(GLOBAL_FUNC).put((byte) 0).putShort(TEXT_SECTION)
                    .putLong(f.start()).putLong(f.size());
            strtab.writeBytes((f.name() + "\0").getBytes(StandardCharsets.UTF_8));
        }
        byte[] shstrtab = "\0.text\0.symtab\0.strtab\0.shstrtab\0".getBytes(StandardCharsets.US_ASCII);
        int nameText = 1;
        int nameSymtab = nameText + ".text".length() + 1;
        int nameStrtab = nameSymtab + ".symtab".length() + 1;
        int nameShstrtab = nameStrtab + ".strtab".length() + 1;

        long symOff = align(textOff + text.length, 8);
        long strOff = symOff + symtab.capacity();
        long shstrOff = strOff + strtab.size();
        long shOff = align(shstrOff + shstrtab.length, 8);
        long size = shOff + 5L * SHDR_SIZE;
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("program image of " + size + " bytes");
        }

        ByteBuffer b = le((int) size);
        b.put(new byte[] {0x7F, 'E', 'L', 'F', 2 /* ELFCLASS64 */, 1 /* ELFDATA2LSB */, 1 /* EV_CURRENT */, 0 /* ELFOSABI_SYSV */});
        b.position(16);
        b.putShort(ET_EXEC).putShort(EM_X86_64).putInt(1).putLong(image.entry()).putLong(EHDR_SIZE).putLong(shOff)
                .putInt(0).putShort((short) EHDR_SIZE).putShort((short) PHDR_SIZE).putShort((short) 1)
                .putShort((short) SHDR_SIZE).putShort((short) 5).putShort((short) 4);
        b.putInt(PT_LOAD).putInt(PF_R_X).putLong(textOff).putLong(image.start()).putLong(image.start())
                .putLong(text.length).putLong(text.length).putLong(PAGE);
        b.put((int) textOff, text);
        b.put((int) symOff, symtab.array());
        b.put((int) strOff, strtab.toByteArray());
        b.put((int) shstrOff, shstrtab);
        b.position((int) shOff);
        b.put(new byte[SHDR_SIZE]);
        section(b, nameText, SHT_PROGBITS, SHF_ALLOC_EXECINSTR, image.start(), textOff, text.length, 0, 0, 16, 0);
        // sh_info of .symtab: the index of the first non-local symbol (all but the undefined one are global)
        section(b, nameSymtab, SHT_SYMTAB, 0, 0, symOff, symtab.capacity(), 3, 1, 8, SYM_SIZE);
        section(b, nameStrtab, SHT_STRTAB, 0, 0, strOff, strtab.size(), 0, 0, 1, 0);
        section(b, nameShstrtab, SHT_STRTAB, 0, 0, shstrOff, shstrtab.length, 0, 0, 1, 0);
        return b.array();
    }

    private static void section(ByteBuffer b, int name, int type, long flags, long addr, long off, long size, int link,
                                int info, long align, long entsize) {
        b.putInt(name).putInt(type).putLong(flags).putLong(addr).putLong(off).putLong(size).putInt(link).putInt(info)
                .putLong(align).putLong(entsize);
    }

    private static ByteBuffer le(int n) {
        return ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static long align(long v, long a) {
        return (v + a - 1) & -a;
    }
}
