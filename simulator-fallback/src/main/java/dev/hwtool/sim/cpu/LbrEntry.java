package dev.hwtool.sim.cpu;

import dev.hwtool.api.BranchType;

/**
 * One valid entry of a simulated LBR stack, decoded, with the raw register values it came from.
 *
 * @param position     0 = most recent, then older
 * @param from         branch source address
 * @param to           branch target address
 * @param mispredicted the entry's MISPRED flag (false where the format has none)
 * @param cycles       the stored cycle count, or -1 where the format has none
 * @param type         the branch type architectural LBR stores (INFO.BR_TYPE), or null for legacy LBR
 * @param fromMsr      the FROM register's address
 * @param fromRaw      raw FROM value
 * @param toRaw        raw TO value
 * @param infoRaw      raw INFO value (0 where there is no INFO register)
 */
public record LbrEntry(int position, long from, long to, boolean mispredicted, int cycles, BranchType type,
                       long fromMsr, long fromRaw, long toRaw, long infoRaw) {
}
