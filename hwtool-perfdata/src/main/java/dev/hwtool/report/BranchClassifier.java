package dev.hwtool.report;

import java.util.Optional;

/**
 * Tells calls and returns apart in a branch trace: BTS records carry no branch type (SDM Vol. 3B
 * 17.4.8), so the kind comes from the instruction at the branch's source, decoded from the
 * program's code. Empty when that code is unknown (no mapping, no readable ELF).
 */
@FunctionalInterface
public interface BranchClassifier {

    /** Nothing can be classified. */
    BranchClassifier NONE = (pid, from) -> Optional.empty();

    Optional<BranchFlow> classify(int pid, long from);
}
