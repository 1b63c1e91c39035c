/**
 * How hwtool reads what a user hands it and writes what a user names: text read with bounds
 * ({@link dev.hwtool.io.BoundedText}), output files written whole or not at all
 * ({@link dev.hwtool.io.OutputFile}), descriptors told apart from the runtime's own
 * ({@link dev.hwtool.io.Descriptors}), I/O errors in strerror(3)'s words, and text made safe to
 * print on a terminal.
 */
package dev.hwtool.io;
