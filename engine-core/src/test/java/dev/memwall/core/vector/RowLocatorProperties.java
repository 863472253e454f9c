package dev.memwall.core.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** {@link RowLocator} against a linear walk over the batches, with empty, tiny and block-sized batches. */
class RowLocatorProperties {
  @Property(tries = 300)
  void everyRowIsInTheBatchALinearWalkFinds(
      @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 3000) Integer> sizes) {
    int[] rows = sizes.stream().mapToInt(size -> size % 7 == 0 ? 0 : size % 5 == 0 ? 1024 : size).toArray();
    RowLocator locator = RowLocator.ofBatchRows(rows);
    int global = 0;
    for (int b = 0; b < rows.length; b++) {
      assertEquals(global, locator.start(b));
      for (int r = 0; r < rows[b]; r++, global++) {
        int batch = locator.batchOf(global);
        assertEquals(b, batch, "row " + global);
        assertTrue(rows[batch] > 0, "an empty batch holds no row");
      }
    }
    assertEquals(global, locator.rows());
  }

  @Test
  void negativeAndTooManyRowsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> RowLocator.ofBatchRows(3, -1));
    assertThrows(IllegalArgumentException.class, () -> RowLocator.ofBatchRows(Integer.MAX_VALUE, 1));
  }
}
