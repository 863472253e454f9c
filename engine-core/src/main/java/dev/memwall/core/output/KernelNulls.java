package dev.memwall.core.output;

import dev.memwall.core.vector.ScratchBatch;

/** Marks a kernel's null rows in a scratch batch column, for the kernels' outputs. */
final class KernelNulls {
  private KernelNulls() {}

  /**
   * Marks row {@code i} of {@code out}'s column {@code column} null where {@code nulls[positions[i]]},
   * for {@code i < count}; nothing when {@code nulls} is null (the kernel had no null).
   */
  static void mark(boolean[] nulls, int[] positions, int count, ScratchBatch out, int column) {
    if (nulls != null) {
      for (int i = 0; i < count; i++) {
        if (nulls[positions[i]]) {
          out.setNull(column, i);
        }
      }
    }
  }
}
