package dev.hwtool.arch.cpuid;

/** One CPUID result: the leaf (EAX in) and subleaf (ECX in) it answers, and the registers out. */
public record CpuidLeaf(int leaf, int subleaf, CpuidRegs regs) {
}
