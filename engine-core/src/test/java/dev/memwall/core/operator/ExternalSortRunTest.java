package dev.memwall.core.operator;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.spill.SpillSettings;
import dev.memwall.core.spill.WorkingMemory;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A run that fills a worker's share, collected row by row up to the last row {@link ExternalSort#runFull}
 * allows, can be sorted (its references charged to the working memory) and written while the other
 * worker holds a full run too. The rows are one boolean column, a bit or two each against their
 * references' 16.
 */
@ExtendWith(LeakCheck.class)
class ExternalSortRunTest {
  @TempDir
  Path root;

  @ParameterizedTest
  @ValueSource(longs = {64 << 10, 1 << 20, 16 << 20})
  void aRunThatFillsItsShareIsSortedAndWritten(long limit, EngineMemory memory) {
    int threads = 2;
    List<String> names = List.of("v");
    List<ColumnType> types = List.of(ColumnType.BOOLEAN);
    EngineMemory working = memory.child("sort working", limit, 0);
    try (ExternalSort sort = new ExternalSort(memory, WorkingMemory.owned(working), new SpillSettings(root, Long.MAX_VALUE),
        names, types, List.of(SortKey.asc("v")), Long.MAX_VALUE, threads, null)) {
      Random random = new Random(limit);
      EngineMemory[] mine = new EngineMemory[threads];
      Table[] runs = new Table[threads];
      try {
        for (int worker = 0; worker < threads; worker++) {
          mine[worker] = working.child("worker " + worker, Long.MAX_VALUE, 0);
          try (TableBuilder rows = new TableBuilder(names, types, null, mine[worker].arrow())) {
            rows.batchRows(sort.batchRows());
            long count = 0;
            while (!sort.runFull(mine[worker].allocatedBytes(), count)) { // a chunk of a batch at a time
              for (int r = 0; r < sort.batchRows(); r++) {
                rows.appendLong(random.nextInt(2)).endRow();
              }
              count += sort.batchRows();
            }
            assertTrue(count > 0);
            runs[worker] = rows.build();
          }
        }
        for (int worker = 0; worker < threads; worker++) {
          Table run = runs[worker];
          runs[worker] = null;
          sort.spill(worker, 0, run); // closes the run, while the next worker's is held
        }
      } finally {
        for (int worker = 0; worker < threads; worker++) {
          if (runs[worker] != null) {
            runs[worker].close();
          }
          if (mine[worker] != null) {
            mine[worker].close();
          }
        }
      }
    }
  }
}
