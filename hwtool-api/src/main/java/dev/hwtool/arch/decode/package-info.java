/**
 * What a CPUID snapshot says about a processor, decoded as pure functions: its identity (vendor,
 * SDM display family and model, brand, microarchitecture), features, architectural performance
 * monitoring (leaf 0AH), architectural LBR (leaf 1CH), hybrid cores (leaf 1AH), SMT topology, the
 * hypervisor it runs under and AMD's performance-monitoring extensions. Every field names the
 * leaf, register and bits it comes from ({@link dev.hwtool.arch.decode.CpuidField}).
 */
package dev.hwtool.arch.decode;
