/**
 * hwtool's contract: what a program asks of a machine's debug and performance-monitoring
 * hardware, whichever backend answers. Start with {@link dev.hwtool.api.Platform}: opened on the
 * host ({@code Platform.open()}, the Linux backend found through {@link dev.hwtool.api.PlatformProvider})
 * or on the simulator, it gives MSR access with careful writes ({@link dev.hwtool.api.MsrAccess},
 * {@link dev.hwtool.api.WriteRequest}), in-process counting ({@link dev.hwtool.api.Counters}),
 * recording ({@link dev.hwtool.api.Recorder}) and a capability report
 * ({@link dev.hwtool.api.Capabilities}) in which every facility has a {@link dev.hwtool.api.Verdict}.
 *
 * <p>Failures are {@link dev.hwtool.api.HwException}s with a {@link dev.hwtool.api.Cause}: a
 * facility that cannot be used is refused with its reason, never answered with zeros.
 */
package dev.hwtool.api;
