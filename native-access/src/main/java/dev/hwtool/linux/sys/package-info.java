/**
 * The host's system interfaces, below both halves of the Linux backend (the platform in
 * {@code dev.hwtool.linux}, perf_event_open in {@code dev.hwtool.linux.perf}), so that neither
 * half needs the other's: the native binding chosen ({@link dev.hwtool.linux.sys.Bindings}), the
 * kernel's facts read from /proc and /sys ({@link dev.hwtool.linux.sys.LinuxProbe}), the shutdown
 * signals ({@link dev.hwtool.linux.sys.ShutdownSignals}) and a command held before its exec
 * ({@link dev.hwtool.linux.sys.HeldChild}).
 */
package dev.hwtool.linux.sys;
