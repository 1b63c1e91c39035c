/**
 * The catalog of model-specific registers as data: each MSR's address, fields and access rules
 * as the Intel SDM Vol. 4 and Vol. 3B chapter 17-20 tables give them (and AMD's APM for AMD
 * MSRs), with the CPUID conditions under which it exists. The one catalog serves the decoder
 * ({@link dev.hwtool.arch.msr.MsrDecoder}), the checks a careful write passes
 * ({@link dev.hwtool.arch.msr.WriteCheck}), the simulator and the documentation alike.
 */
package dev.hwtool.arch.msr;
