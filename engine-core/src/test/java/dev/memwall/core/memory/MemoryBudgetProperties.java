package dev.memwall.core.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/** Random sequences of reservations against a parent/child pair of budgets and a plain model. */
@AddLifecycleHook(PropertyLeakCheck.class)
class MemoryBudgetProperties {
  /** One step: reserve {@code bytes} on the child (true) or parent (false), or release the latest hold. */
  record Step(boolean release, boolean onChild, long bytes) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    Arbitrary<Step> step = net.jqwik.api.Combinators.combine(
            Arbitraries.integers().between(0, 2).map(i -> i == 0),
            Arbitraries.of(true, false),
            Arbitraries.oneOf(Arbitraries.longs().between(0, 400), Arbitraries.of(0L, 1L, 1000L)))
        .as(Step::new);
    return step.list().ofMaxSize(200);
  }

  @Property(tries = 300)
  void sequentialStepsMatchTheModel(@ForAll("steps") List<Step> steps,
      @ForAll @LongRange(min = 0, max = 1500) long parentLimit,
      @ForAll @LongRange(min = 0, max = 1500) long childLimit, EngineMemory unused) {
    MemoryBudget parent = MemoryBudget.of("parent", parentLimit);
    MemoryBudget child = parent.child("child", childLimit);
    long modelParent = 0;
    long modelChild = 0;
    long modelPeakParent = 0;
    long modelPeakChild = 0;
    Deque<long[]> holds = new ArrayDeque<>(); // {bytes, onChild ? 1 : 0}
    for (Step step : steps) {
      if (step.release()) {
        if (holds.isEmpty()) {
          continue;
        }
        long[] hold = holds.pop();
        (hold[1] == 1 ? child : parent).release(hold[0]);
        modelParent -= hold[0];
        modelChild -= hold[1] == 1 ? hold[0] : 0;
      } else {
        long bytes = step.bytes();
        String refusedBy = null;
        if (step.onChild() && modelChild + bytes > childLimit) {
          refusedBy = "child";
        } else if (modelParent + bytes > parentLimit) {
          refusedBy = "parent";
        }
        MemoryBudget target = step.onChild() ? child : parent;
        try {
          target.reserve(bytes);
          assertEquals(null, refusedBy, "reservation of " + bytes + " should have been refused");
          holds.push(new long[] {bytes, step.onChild() ? 1 : 0});
          modelParent += bytes;
          modelChild += step.onChild() ? bytes : 0;
          modelPeakParent = Math.max(modelPeakParent, modelParent);
          modelPeakChild = Math.max(modelPeakChild, modelChild);
        } catch (BudgetExceededException e) {
          assertEquals(refusedBy, e.budgetName());
        }
      }
      assertEquals(modelParent, parent.reservedBytes());
      assertEquals(modelChild, child.reservedBytes());
      assertEquals(modelPeakParent, parent.peakBytes());
      assertEquals(modelPeakChild, child.peakBytes(), "peak counts only granted reservations");
      assertTrue(parent.reservedBytes() <= parentLimit && child.reservedBytes() <= childLimit);
    }
    while (!holds.isEmpty()) {
      long[] hold = holds.pop();
      (hold[1] == 1 ? child : parent).release(hold[0]);
    }
    assertEquals(0, parent.reservedBytes());
    assertEquals(0, child.reservedBytes());
  }

  @Property(tries = 30)
  void concurrentReservationsNeverExceedTheLimitAndReturnToZero(
      @ForAll @IntRange(min = 2, max = 4) int threads,
      @ForAll @Size(min = 1, max = 8) List<@LongRange(min = 1, max = 300) Long> sizes,
      @ForAll @LongRange(min = 100, max = 2000) long limit, EngineMemory unused) throws InterruptedException {
    MemoryBudget parent = MemoryBudget.of("parent", limit);
    MemoryBudget child = parent.child("child", limit / 2 + 1);
    AtomicLong observedMax = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      MemoryBudget target = t % 2 == 0 ? parent : child;
      workers.add(Thread.ofPlatform().start(() -> {
        try {
          start.await();
          Deque<Long> held = new ArrayDeque<>();
          for (int round = 0; round < 2_000; round++) {
            long bytes = sizes.get(round % sizes.size());
            try {
              target.reserve(bytes);
              held.push(bytes);
            } catch (BudgetExceededException e) {
              // refused: nothing to release
            }
            observedMax.accumulateAndGet(parent.reservedBytes(), Math::max);
            if (held.size() > 3 || (round & 1) == 1 && !held.isEmpty()) {
              target.release(held.pop());
            }
          }
          while (!held.isEmpty()) {
            target.release(held.pop());
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }));
    }
    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }
    assertEquals(null, failure.get());
    assertTrue(observedMax.get() <= limit, "observed " + observedMax.get() + " > " + limit);
    assertTrue(parent.peakBytes() <= limit, "peak " + parent.peakBytes() + " > " + limit);
    assertTrue(child.peakBytes() <= child.limitBytes());
    assertEquals(0, parent.reservedBytes());
    assertEquals(0, child.reservedBytes());
  }
}
