/**
 * A JUnit 5 extension that gives tests a {@link dev.hwtool.api.Platform}:
 * {@link dev.hwtool.junit.SimulatedCpu @SimulatedCpu} runs a test on a simulated CPU (a
 * {@code Platform} or {@code SimulatedPlatform} parameter, each test with its own journal), and
 * {@link dev.hwtool.junit.RealCpu @RealCpu} on this host's hardware where every facility the test
 * needs is usable, skipping it with each facility's reason and fix where it is not.
 */
package dev.hwtool.junit;
