package dev.hwtool.devcpu;

import dev.hwtool.api.CpuidResult;

import java.time.Instant;

/**
 * One access to a node of a served /dev/cpu tree ({@link DevCpuTree}), as its trace records it.
 *
 * @param time     wall-clock time of the access
 * @param pid      the thread that made it, as FUSE reports it (the process id of a single-threaded
 *                 program), 0 when unknown
 * @param cpu      the CPU directory of the node
 * @param kind     msr or cpuid
 * @param op       read or write
 * @param register the MSR number (the file offset truncated to 32 bits, as msr.c does), or for
 *                 cpuid the leaf (low 32 bits of the offset)
 * @param subleaf  cpuid's subleaf (high 32 bits of the offset); 0 for msr
 * @param value    the MSR value read or written; null for cpuid and for a failed read
 * @param regs     the CPUID registers read; null for msr and for a failed read
 * @param result   "ok", or the errno name the caller got ("EIO", "EINVAL")
 */
public record DevCpuAccess(Instant time, int pid, int cpu, Kind kind, Op op, long register, int subleaf,
                           Long value, CpuidResult regs, String result) {

    /** The node: /dev/cpu/N/msr or /dev/cpu/N/cpuid. */
    public enum Kind { MSR, CPUID }

    /** read(2)/pread(2) or write(2)/pwrite(2). */
    public enum Op { READ, WRITE }

    public boolean ok() {
        return result.equals("ok");
    }
}
