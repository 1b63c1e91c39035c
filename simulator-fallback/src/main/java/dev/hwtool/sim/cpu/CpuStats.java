package dev.hwtool.sim.cpu;

/**
 * What a simulated CPU has done since it was created.
 *
 * @param instructions    instructions retired (taken branches included)
 * @param cycles          core cycles spent
 * @param branches        taken branches retired
 * @param lbrRecords      branches written into the LBR stack (call-stack pops not subtracted)
 * @param btmGenerated    branch trace messages generated (TR set)
 * @param btsStored       BTMs stored in the BTS buffer
 * @param btsDropped      BTMs BTS should have stored but did not (buffer full with BTINT, or a bad buffer)
 * @param pebsRecords     PEBS records written
 * @param pebsDropped     PEBS assists skipped because the record did not fit the PEBS buffer
 * @param pmis            PMIs delivered (taken)
 * @param pmisMasked      PMI requests dropped because the LVT performance-counter entry was masked
 * @param debugExceptions #DB exceptions delivered (single-step)
 */
public record CpuStats(long instructions, long cycles, long branches, long lbrRecords, long btmGenerated,
                       long btsStored, long btsDropped, long pebsRecords, long pebsDropped, long pmis, long pmisMasked,
                       long debugExceptions) {
}
