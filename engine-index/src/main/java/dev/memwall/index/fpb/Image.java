package dev.memwall.index.fpb;

import java.lang.foreign.MemorySegment;

/**
 * The writer's heap copy of one logical page, changed by an update and installed only when the
 * update has succeeded (so a failing update changes nothing readers or the file can see).
 * Owned by the writer's {@link WorkingTree}; writer thread only.
 */
final class Image {
  final int logical;
  final MemorySegment s;
  boolean dirty;

  Image(int logical, MemorySegment s) {
    this.logical = logical;
    this.s = s;
  }
}
