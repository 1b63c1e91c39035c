/** {@code -prof dev.hwtool.jmh.HwtoolProfiler}: events per benchmark operation, counted in process. */
module dev.hwtool.jmh {
    requires transitive dev.hwtool.api;
    // HwtoolProfiler implements JMH's profiler interfaces; both automatic modules
    requires transitive jmh.core;
    requires jopt.simple;

    exports dev.hwtool.jmh;

    provides org.openjdk.jmh.profile.Profiler with dev.hwtool.jmh.HwtoolProfiler;
}
