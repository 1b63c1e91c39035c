/**
 * A JMH profiler, {@code -prof dev.hwtool.jmh.HwtoolProfiler[:events=EVENT,...]}: hardware and
 * software events per benchmark operation, counted in the benchmark's own JVM through
 * {@link dev.hwtool.api.Platform#counters} (no {@code perf} binary). It gives JMH's forks the
 * {@code --enable-native-access} option it needs; see {@link dev.hwtool.jmh.HwtoolProfiler}.
 */
package dev.hwtool.jmh;
