/**
 * A simulated platform's CPUs served as a /dev/cpu tree through FUSE: {@code DIR/N/msr} and
 * {@code DIR/N/cpuid} with the kernel drivers' rules (arch/x86/kernel/msr.c and cpuid.c), so that
 * programs written for /dev/cpu (msr-tools' rdmsr and wrmsr, cpuid, a C program of one's own) run
 * unchanged against the simulator. {@link dev.hwtool.devcpu.DevCpuTree} mounts one;
 * {@link dev.hwtool.devcpu.DevCpuAccess} is what its trace sees. Needs /dev/fuse and libfuse3.
 */
package dev.hwtool.devcpu;
