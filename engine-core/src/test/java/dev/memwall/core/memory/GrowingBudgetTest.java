package dev.memwall.core.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** A {@linkplain MemoryBudget#growing growing} budget against a host's pool of memory: grows, refuses, shrinks. */
class GrowingBudgetTest {
  /** A host's memory manager: grants what it has left, up to what is asked (or {@code extra} more). */
  static final class Pool implements MemoryBudget.Growth {
    final long capacity;
    final long extra;
    final AtomicLong granted = new AtomicLong();
    final AtomicLong asks = new AtomicLong();

    Pool(long capacity, long extra) {
      this.capacity = capacity;
      this.extra = extra;
    }

    @Override
    public long grant(long bytes) {
      asks.incrementAndGet();
      while (true) {
        long before = granted.get();
        long give = Math.min(bytes + extra, capacity - before);
        if (give <= 0) {
          return 0;
        }
        if (granted.compareAndSet(before, before + give)) {
          return give;
        }
      }
    }

    void giveBack(long bytes) {
      granted.addAndGet(-bytes);
    }

    @Override
    public long growableBytes() {
      return capacity - granted.get();
    }
  }

  @Test
  void theRoomCountsWhatTheHostMayStillGrant() {
    Pool pool = new Pool(1000, 0);
    MemoryBudget budget = MemoryBudget.growing("task", 0, pool);
    assertEquals(1000, budget.availableBytes(), "an operator sizing its share sees the room it may grow into");
    budget.reserve(300);
    assertEquals(700, budget.availableBytes());
    MemoryBudget child = budget.child("operator", 500);
    assertEquals(500, child.availableBytes());
    assertEquals(1000, MemoryBudget.growing("unpromised", 1000, bytes -> 0).availableBytes(),
        "a growth that promises nothing leaves the limit's room");
    budget.release(300);
  }

  @Test
  void aReservationThatDoesNotFitAsksForTheRestAndIsRefusedWhenTheHostHasTooLittle() {
    Pool pool = new Pool(1000, 0);
    MemoryBudget budget = MemoryBudget.growing("task", 100, pool);
    budget.reserve(60);
    assertEquals(0, pool.asks.get(), "what fits asks nothing");
    budget.reserve(240);
    assertEquals(300, budget.limitBytes(), "asked for the 200 missing");
    assertEquals(200, pool.granted.get());
    var refused = assertThrows(BudgetExceededException.class, () -> budget.reserve(900));
    assertEquals("task", refused.budgetName());
    assertEquals(300, budget.reservedBytes(), "a refused reservation charges nothing");
    assertEquals(1100, budget.limitBytes(), "a partial grant (the pool's last 800) is kept");
    assertEquals(1000, pool.granted.get());
    budget.reserve(800);
    assertEquals(2, pool.asks.get(), "the kept grant serves the next reservation without asking");
    budget.release(1100);
    assertEquals(1100, budget.peakBytes());
  }

  @Test
  void aHostGrantingMoreThanAskedKeepsTheRestForLaterReservations() {
    Pool pool = new Pool(10_000, 500);
    MemoryBudget budget = MemoryBudget.growing("task", 0, pool);
    budget.reserve(100);
    assertEquals(600, budget.limitBytes());
    budget.reserve(400);
    assertEquals(1, pool.asks.get());
    budget.release(500);
  }

  @Test
  void shrinkingGivesBackOnlyTheRoomNoReservationHolds() {
    Pool pool = new Pool(1000, 0);
    MemoryBudget budget = MemoryBudget.growing("task", 1000, pool);
    budget.reserve(300);
    assertEquals(700, budget.shrink(900));
    assertEquals(300, budget.limitBytes());
    assertEquals(0, budget.shrink(1));
    budget.reserve(50); // grows again
    assertEquals(350, budget.limitBytes());
    budget.release(350);
    assertEquals(350, budget.shrink(Long.MAX_VALUE));
    assertEquals(0, budget.limitBytes());
  }

  @Test
  void aNegativeGrantIsTheHostsBug() {
    MemoryBudget budget = MemoryBudget.growing("task", 0, bytes -> -1);
    var e = assertThrows(IllegalStateException.class, () -> budget.reserve(1));
    assertTrue(e.getMessage().contains("negative"), e.getMessage());
    assertEquals(0, budget.reservedBytes());
  }

  @Test
  void aFixedBudgetDoesNotGrowAndCanStillShrink() {
    MemoryBudget budget = MemoryBudget.of("fixed", 100);
    assertThrows(BudgetExceededException.class, () -> budget.reserve(101));
    assertEquals(40, budget.shrink(40));
    assertThrows(BudgetExceededException.class, () -> budget.reserve(61));
  }

  @Property(tries = 25)
  void reservationsRacingAShrinkingHostNeverHoldMoreThanThePool(
      @ForAll @IntRange(min = 2, max = 4) int threads,
      @ForAll @LongRange(min = 200, max = 3000) long capacity,
      @ForAll @LongRange(min = 0, max = 200) long extra) throws InterruptedException {
    Pool pool = new Pool(capacity, extra);
    MemoryBudget budget = MemoryBudget.growing("task", 0, pool);
    AtomicLong held = new AtomicLong();
    AtomicLong observedMax = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicBoolean done = new AtomicBoolean();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      long size = 1 + (t * 37L) % 150;
      workers.add(Thread.ofPlatform().start(() -> {
        try {
          start.await();
          Deque<Long> mine = new ArrayDeque<>();
          for (int round = 0; round < 2_000; round++) {
            try {
              budget.reserve(size);
              mine.push(size);
              observedMax.accumulateAndGet(held.addAndGet(size), Math::max);
            } catch (BudgetExceededException e) {
              // the pool is short: nothing charged
            }
            if (mine.size() > 4 || (round & 1) == 1 && !mine.isEmpty()) {
              long bytes = mine.pop();
              held.addAndGet(-bytes);
              budget.release(bytes);
            }
          }
          while (!mine.isEmpty()) {
            long bytes = mine.pop();
            held.addAndGet(-bytes);
            budget.release(bytes);
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }));
    }
    Thread host = Thread.ofPlatform().start(() -> { // the host takes room back now and then
      while (!done.get()) {
        pool.giveBack(budget.shrink(capacity / 3));
        Thread.onSpinWait();
      }
    });
    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }
    done.set(true);
    host.join();
    assertEquals(null, failure.get());
    assertTrue(observedMax.get() <= capacity, "held " + observedMax.get() + " > pool " + capacity);
    assertTrue(budget.peakBytes() <= capacity, "peak " + budget.peakBytes() + " > pool " + capacity);
    assertEquals(0, budget.reservedBytes());
    assertEquals(pool.granted.get(), budget.limitBytes(), "the budget's limit is what the host granted and did not take back");
  }
}
