/**
 * The hwtool command line. Compiled as a module so that javac checks what it reaches in the
 * library modules; it ships as a class-path fat jar (the shade plugin leaves every module-info
 * out), and the launcher runs it with {@code -jar}.
 */
module dev.hwtool.cli {
    requires dev.hwtool.simulator;
    requires dev.hwtool.nativeaccess;
    requires dev.hwtool.perfdata;
    requires com.fasterxml.jackson.jr.ob;
    // hwtool exporter: the Prometheus client (automatic modules) and the web configuration
    requires io.prometheus.metrics.core;
    requires io.prometheus.metrics.model;
    requires io.prometheus.metrics.exporter.common;
    requires io.prometheus.metrics.exporter.httpserver;
    requires org.snakeyaml.engine;
    requires spring.security.crypto;
    // BackendOptions quiets java.util.logging (the JDK's own loggers)
    requires java.logging;
    // the flame graph renderer hwtool-perfdata's report package calls (optional there)
    requires jfr.converter;
}
