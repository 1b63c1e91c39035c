/**
 * What the running Linux kernel offers, and the judgement on it: {@link dev.hwtool.caps.LinuxFacts}
 * (read from /proc, /sys and /dev, each {@link dev.hwtool.caps.Fact} with how its reading went),
 * {@link dev.hwtool.caps.Probe}s (what happened when a facility was really tried), and
 * {@link dev.hwtool.caps.Verdicts}, the pure function from CPUID and facts to a verdict per
 * facility, each rule citing the kernel code it mirrors.
 */
package dev.hwtool.caps;
