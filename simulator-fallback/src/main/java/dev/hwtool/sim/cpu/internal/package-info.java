/**
 * What the simulator's own packages read of a simulated CPU that its exported classes keep from
 * their users, because its types are the api module's qualified exports (the catalog's view of a
 * CPU). Exported to no module; it names no type of {@code dev.hwtool.sim.cpu}, so that no package
 * cycle comes of it.
 */
package dev.hwtool.sim.cpu.internal;
