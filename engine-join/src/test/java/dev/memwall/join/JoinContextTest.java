package dev.memwall.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.concurrent.CancellationToken;
import dev.memwall.core.concurrent.QueryCancelledException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.join.JoinTestData.Distribution;
import dev.memwall.join.JoinTestData.KeyType;
import dev.memwall.join.common.JoinAlgorithm;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A join made with the host's context runs on its threads and stops when it says so. */
@ExtendWith(LeakCheck.class)
class JoinContextTest {

  @Test
  void aJoinRunsOnTheHostsExecutorAndStopsOnItsToken(EngineMemory memory) {
    Random random = new Random(3);
    var side = JoinTestData.generate(random, List.of(KeyType.INT32), 300_000, Distribution.UNIQUE, 0, 0);
    ExecutorService pool = Executors.newFixedThreadPool(2, r -> Thread.ofPlatform().name("host").unstarted(r));
    try (Table left = JoinTestData.table(memory, side, "l"); Table right = JoinTestData.table(memory, side, "r")) {
      long tables = memory.allocatedBytes();
      Set<String> threads = ConcurrentHashMap.newKeySet();
      ExecutionContext context = ExecutionContext.builder(memory).threads(2).executor(task -> pool.execute(() -> {
        threads.add(Thread.currentThread().getName());
        task.run();
      })).build();
      for (JoinAlgorithm algorithm : List.of(JoinAlgorithm.PHASH, JoinAlgorithm.OPEN_ADDRESSING)) {
        assertEquals(300_000, Join.of(context, left, right).on("k0").algorithm(algorithm).count(), algorithm.name());
      }
      assertEquals(Set.of("host"), threads, "the parallel steps ran on the host's pool");

      CancellationToken token = new CancellationToken();
      token.cancel();
      ExecutionContext cancelled = context.toBuilder().cancellation(token).build();
      var e = assertThrows(QueryCancelledException.class,
          () -> Join.of(cancelled, left, right).on("k0").algorithm(JoinAlgorithm.PHASH).materialize(List.of("k0"), List.of()));
      assertTrue(e.getMessage().contains("cancelled"), e.getMessage());
      assertEquals(tables, memory.allocatedBytes(), "the cancelled join freed its memory");
    } finally {
      pool.shutdownNow();
    }
  }
}
