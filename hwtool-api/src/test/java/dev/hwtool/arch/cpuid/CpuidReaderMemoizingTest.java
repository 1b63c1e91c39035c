package dev.hwtool.arch.cpuid;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CpuidReaderMemoizingTest {

    @Test
    void eachLeafAndSubleafIsAskedOnceAndAnsweredAsTheSourceDid() {
        List<String> asked = new ArrayList<>();
        CpuidReader source = (leaf, subleaf) -> {
            asked.add(Integer.toHexString(leaf) + "/" + subleaf);
            return new CpuidRegs(leaf, subleaf, asked.size(), 0);
        };
        CpuidReader memo = CpuidReader.memoizing(source);
        CpuidRegs first = memo.cpuid(0x8000_0000, 0);
        assertEquals(first, memo.cpuid(0x8000_0000));
        assertEquals(new CpuidRegs(7, 1, 2, 0), memo.cpuid(7, 1));
        assertEquals(new CpuidRegs(7, 0, 3, 0), memo.cpuid(7, 0), "a subleaf is its own question");
        assertEquals(new CpuidRegs(0, -1, 4, 0), memo.cpuid(0, -1), "an all-ones subleaf does not alias another leaf");
        memo.cpuid(7, 1);
        assertEquals(List.of("80000000/0", "7/1", "7/0", "0/-1"), asked);
    }

    @Test
    void aFailedReadIsAskedAgain() {
        int[] calls = {0};
        CpuidReader memo = CpuidReader.memoizing((leaf, subleaf) -> {
            if (calls[0]++ == 0) {
                throw new IllegalStateException("busy");
            }
            return new CpuidRegs(1, 2, 3, 4);
        });
        assertThrows(IllegalStateException.class, () -> memo.cpuid(1));
        assertEquals(new CpuidRegs(1, 2, 3, 4), memo.cpuid(1));
        assertEquals(2, calls[0]);
    }
}
