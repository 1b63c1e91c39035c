package dev.hwtool.bind;

import java.util.Arrays;

/**
 * The x86-64 machine-code stubs both bindings execute, as data, and the image of the one code
 * page that holds them. Each binding maps the page read-write, copies {@link #pageImage()} into
 * it, then makes it read+execute, and never writes it again (W^X).
 *
 * <p>All stubs follow the System V AMD64 calling convention: arguments in rdi, rsi, rdx; result
 * in rax; rbx is callee-saved (CPUID clobbers it, so the cpuid stub saves it).
 *
 * <p>Bytes assembled with GNU as (intel syntax) and checked with {@code objdump -d -M intel};
 * the disassembly next to each array is objdump's, offsets relative to the stub.
 */
public final class MachineCode {

    /** x86-64 base page size; the stubs together are far smaller. */
    public static final int PAGE_SIZE = 4096;

    /** Stubs start at multiples of this, so each begins at a fetch-friendly boundary. */
    static final int ALIGNMENT = 16;

    /** Padding between stubs: INT3, so a jump into the gaps traps instead of running on. */
    static final byte INT3 = (byte) 0xCC;

    /** One stub and what it computes. */
    public enum Stub {
        /**
         * {@code void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4])}, leaf in edi, subleaf in
         * esi, out in rdx:
         * out = {eax, ebx, ecx, edx} after CPUID (SDM Vol. 2A, CPUID).
         * <pre>
         *  0: 53                push   rbx            ; rbx is callee-saved, CPUID writes it
         *  1: 49 89 d0          mov    r8,rdx         ; keep out[], CPUID writes edx
         *  4: 89 f8             mov    eax,edi        ; leaf
         *  6: 89 f1             mov    ecx,esi        ; subleaf
         *  8: 0f a2             cpuid
         *  a: 41 89 00          mov    [r8],eax
         *  d: 41 89 58 04       mov    [r8+0x4],ebx
         * 11: 41 89 48 08       mov    [r8+0x8],ecx
         * 15: 41 89 50 0c       mov    [r8+0xc],edx
         * 19: 5b                pop    rbx
         * 1a: c3                ret
         * </pre>
         */
        CPUID(0x53, 0x49, 0x89, 0xd0, 0x89, 0xf8, 0x89, 0xf1, 0x0f, 0xa2,
                0x41, 0x89, 0x00, 0x41, 0x89, 0x58, 0x04, 0x41, 0x89, 0x48, 0x08, 0x41, 0x89, 0x50, 0x0c,
                0x5b, 0xc3),

        /**
         * {@code uint64_t rdtsc(void)}: the time-stamp counter (SDM Vol. 2B, RDTSC).
         * <pre>
         * 0: 0f 31             rdtsc                 ; edx:eax = TSC
         * 2: 48 c1 e2 20       shl    rdx,0x20
         * 6: 48 09 d0          or     rax,rdx
         * 9: c3                ret
         * </pre>
         */
        RDTSC(0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3),

        /**
         * {@code uint64_t rdtscp(uint32_t *aux)}, aux in rdi: the TSC, and IA32_TSC_AUX into *aux
         * (SDM Vol. 2B, RDTSCP; Linux writes cpu | node &lt;&lt; 12 there, arch/x86/kernel/cpu/common.c).
         * <pre>
         * 0: 0f 01 f9          rdtscp                ; edx:eax = TSC, ecx = IA32_TSC_AUX
         * 3: 89 0f             mov    [rdi],ecx
         * 5: 48 c1 e2 20       shl    rdx,0x20
         * 9: 48 09 d0          or     rax,rdx
         * c: c3                ret
         * </pre>
         */
        RDTSCP(0x0f, 0x01, 0xf9, 0x89, 0x0f, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3),

        /**
         * {@code uint64_t rdpmc(uint32_t counter)}, counter in edi: the performance counter ECX
         * selects (SDM Vol. 2B, RDPMC). #GP unless CR4.PCE is set or CPL is 0: execute it only when
         * a perf user page grants cap_user_rdpmc for the event (see NativeBinding#rdpmc).
         * <pre>
         * 0: 89 f9             mov    ecx,edi
         * 2: 0f 33             rdpmc                 ; edx:eax = PMC[ecx]
         * 4: 48 c1 e2 20       shl    rdx,0x20
         * 8: 48 09 d0          or     rax,rdx
         * b: c3                ret
         * </pre>
         */
        RDPMC(0x89, 0xf9, 0x0f, 0x33, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3);

        private final byte[] code;

        Stub(int... bytes) {
            code = new byte[bytes.length];
            for (int i = 0; i < bytes.length; i++) {
                code[i] = (byte) bytes[i];
            }
        }

        /** The stub's bytes (a copy). */
        public byte[] code() {
            return code.clone();
        }

        /** Where the stub starts inside the code page. */
        public int offset() {
            return OFFSETS[ordinal()];
        }
    }

    private static final int[] OFFSETS = new int[Stub.values().length];
    private static final byte[] PAGE_IMAGE = layOut();

    private MachineCode() {
    }

    private static byte[] layOut() {
        byte[] page = new byte[PAGE_SIZE];
        Arrays.fill(page, INT3);
        int at = 0;
        for (Stub s : Stub.values()) {
            OFFSETS[s.ordinal()] = at;
            System.arraycopy(s.code, 0, page, at, s.code.length);
            at = (at + s.code.length + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
        }
        return page;
    }

    /** The whole code page as it must be mapped: every stub at its offset, INT3 elsewhere. */
    public static byte[] pageImage() {
        return PAGE_IMAGE.clone();
    }

    /**
     * Whether the stubs can run in this JVM: they are x86-64 code, and executing them on any
     * other architecture would crash the process rather than fail.
     */
    public static boolean runsHere() {
        String arch = System.getProperty("os.arch", "");
        return arch.equals("amd64") || arch.equals("x86_64");
    }

    /** Throws {@link UnsupportedOperationException} unless {@link #runsHere()}. */
    public static void requireX86_64() {
        if (!runsHere()) {
            throw new UnsupportedOperationException(
                    "the machine-code stubs are x86-64 code; this JVM runs on " + System.getProperty("os.arch"));
        }
    }
}
