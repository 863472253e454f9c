package dev.memwall.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.spill.SpillDirectory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkConf;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.memory.UnifiedMemoryManager;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * {@link ResultRows} asked to spill by Spark (the lease's {@code spill}, as Spark calls it for another
 * consumer of the task) in the middle of a sorted result held whole: the unread rows go to disk, the memory
 * comes back, and reading goes on from the next row, every row once and in order. A request from another
 * thread gets the memory kept for reuse but writes nothing; after the last row there is nothing to spill;
 * nothing is left behind.
 */
class ResultRowsSpillTest {
  private static final long MB = 1 << 20;
  private static final int ROWS = 50_000;

  @Test
  void aResultAskedToSpillInTheMiddleOfABatchGoesOnFromTheNextRow() throws Exception {
    TaskMemoryManager task = new TaskMemoryManager(new UnifiedMemoryManager(new SparkConf(false), 200 * MB, 100 * MB, 1),
        0);
    MemoryConsumer other = new MemoryConsumer(task, MemoryMode.ON_HEAP) {
      @Override
      public long spill(long size, MemoryConsumer trigger) {
        return 0;
      }
    };
    List<InternalRow> input = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      input.add(new GenericInternalRow(new Object[] {(long) i, UTF8String.fromString("row " + i)}));
    }
    Collections.shuffle(input, new Random(7));
    int directories = SpillDirectory.liveDirectories();
    long requests = TaskResources.spillsOnRequest();

    TaskResources resources = TaskResources.leased("sorted rows", null, task, 64 * MB);
    ResultRows rows = ResultRows.run(resources, new ResultRows.Work("sorted rows", 64 * MB, Long.MAX_VALUE, null),
        input.iterator(), new DataType[] {DataTypes.LongType, DataTypes.StringType},
        batches -> Plan.scan(batches).orderBy(SortKey.asc(RowBatches.name(0))),
        (batch, row) -> new GenericInternalRow(new Object[] {batch.column(0).getLong(row),
            batch.column(1).getObject(row)}), 0);
    List<Long> read = new ArrayList<>();
    for (int i = 0; i < 1234; i++) {
      read.add(rows.next().getLong(0));
    }
    long before = resources.memory().allocatedBytes();
    AtomicLong fromElsewhere = new AtomicLong(-1);
    Thread elsewhere = new Thread(() -> fromElsewhere.set(resources.lease().spill(64 * MB, other)));
    elsewhere.start();
    elsewhere.join();
    assertTrue(fromElsewhere.get() > 0 && resources.memory().allocatedBytes() < before,
        "the memory kept for reuse (the sort's freed batches) is given, from any thread");
    assertEquals(requests, TaskResources.spillsOnRequest(), "nothing written out on another thread than the task's");
    long result = resources.memory().arrow().getAllocatedMemory();
    assertTrue(result > ROWS * 8L, "the sorted rows are held in memory: " + result + " bytes");

    long given = resources.lease().spill(64 * MB, other);
    assertEquals(requests + 1, TaskResources.spillsOnRequest(), "the task's thread, between two rows: honoured");
    assertEquals(0, resources.memory().arrow().getAllocatedMemory(), "the rows are on disk, none in memory");
    assertTrue(given >= result, "gave " + given + " of the " + result + " bytes the rows held");

    rows.forEachRemaining(row -> read.add(row.getLong(0)));
    List<Long> expected = new ArrayList<>();
    for (long i = 0; i < ROWS; i++) {
      expected.add(i);
    }
    assertEquals(expected, read, "every row once, in order");
    assertFalse(rows.hasNext());
    assertEquals(0, resources.lease().spill(64 * MB, other), "nothing left to spill");
    assertEquals(requests + 1, TaskResources.spillsOnRequest());
    assertEquals(directories, SpillDirectory.liveDirectories(), "the spill directory went with the result");
    assertEquals(0, resources.lease().getUsed(), "everything given back to Spark");
    assertEquals(0, task.cleanUpAllAllocatedMemory());
  }
}
