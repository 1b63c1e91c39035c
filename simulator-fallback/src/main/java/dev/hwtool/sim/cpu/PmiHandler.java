package dev.hwtool.sim.cpu;

/**
 * The model of the DS interrupt service routine: called when a simulated CPU takes a PMI,
 * after the branch or instruction that caused it has been recorded and the freeze rules
 * applied. It runs "at CPL 0" — it may read and write the CPU's MSRs and memory — but must
 * not retire anything on that CPU. Delivering the PMI masked the local APIC's LVT
 * performance-counter entry (SDM Vol. 3A 11.5.1): a handler that wants the next PMI unmasks it
 * before returning, as {@link DsInterruptRoutine} and Linux's intel_pmu_handle_irq do
 * (IA32_X2APIC_LVT_PMI, or {@link LogicalProcessor#writeApicLvtPerfmon} without x2APIC); until then
 * further PMI requests are dropped. {@code pmi} is the CPU's log slot for this interrupt, valid
 * during the call ({@link Pmi#copy()} keeps it).
 */
@FunctionalInterface
public interface PmiHandler {
    void onPmi(LogicalProcessor cpu, Pmi pmi);
}
