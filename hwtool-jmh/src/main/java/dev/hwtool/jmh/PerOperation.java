package dev.hwtool.jmh;

import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.Aggregator;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ResultRole;
import org.openjdk.jmh.util.ListStatistics;
import org.openjdk.jmh.util.Statistics;

import java.util.Collection;

/**
 * One event per operation in one iteration, averaged over the iterations that have it. For a
 * result without a row in some iteration JMH averages in the result's zero
 * (jmh-core BenchmarkResult.getSecondaryResults), which for a ScalarResult is 0 and whose
 * aggregates are plain ScalarResults again; so the fork's uncounted first iteration would read as
 * 0 ns/op. This result has no zero (Result.getZeroResult's null) and aggregates to itself.
 */
final class PerOperation extends Result<PerOperation> {

    private static final long serialVersionUID = 1L;

    PerOperation(String label, double value, String unit) {
        this(label, of(value), unit);
    }

    private PerOperation(String label, Statistics statistics, String unit) {
        super(ResultRole.SECONDARY, label, statistics, unit, AggregationPolicy.AVG);
    }

    @Override
    protected Aggregator<PerOperation> getThreadAggregator() {
        return PerOperation::average;
    }

    @Override
    protected Aggregator<PerOperation> getIterationAggregator() {
        return PerOperation::average;
    }

    private static PerOperation average(Collection<PerOperation> results) {
        ListStatistics stats = new ListStatistics();
        results.forEach(r -> stats.addValue(r.getScore()));
        PerOperation first = results.iterator().next();
        return new PerOperation(first.getLabel(), stats, first.getScoreUnit());
    }
}
