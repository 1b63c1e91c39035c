/**
 * CPUID as data: a snapshot of every leaf and subleaf a processor reports, read through a
 * {@link dev.hwtool.arch.cpuid.CpuidReader} (Intel SDM Vol. 2A, CPUID; the subleaf enumeration
 * rules of each leaf) or parsed from the dump formats of other tools (the {@code cpuid} utility's
 * raw output, AIDA64 and InstLatx64 dumps), with a one-line {@link dev.hwtool.arch.cpuid.CpuidDumpException}
 * for a file that is not one.
 */
package dev.hwtool.arch.cpuid;
