package dev.memwall.core.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Example-based checks of {@link MemoryBudget} accounting; see MemoryBudgetProperties for random ones. */
@ExtendWith(LeakCheck.class)
class MemoryBudgetTest {
  @Test
  void reserveAndReleaseAreCountedWithPeak(EngineMemory unused) {
    MemoryBudget budget = MemoryBudget.of("q1", 1000);
    budget.reserve(300);
    budget.reserve(700);
    assertEquals(1000, budget.reservedBytes());
    budget.release(600);
    budget.reserve(100);
    assertEquals(500, budget.reservedBytes());
    assertEquals(1000, budget.peakBytes());
    budget.release(500);
    assertEquals(0, budget.reservedBytes());
    assertEquals(1000, budget.limitBytes());
    assertEquals("q1", budget.name());
  }

  @Test
  void exceedingTheLimitNamesTheBudgetAndChargesNothing(EngineMemory unused) {
    MemoryBudget budget = MemoryBudget.of("join-build", 1000);
    budget.reserve(900);
    var e = assertThrows(BudgetExceededException.class, () -> budget.reserve(101));
    assertEquals("join-build", e.budgetName());
    assertTrue(e.getMessage().contains("'join-build'") && e.getMessage().contains("101"), e.getMessage());
    assertEquals(900, budget.reservedBytes());
    budget.reserve(100); // exactly up to the limit is allowed
    assertEquals(1000, budget.reservedBytes());
  }

  @Test
  void zeroLimitAdmitsOnlyEmptyReservations(EngineMemory unused) {
    MemoryBudget budget = MemoryBudget.of("none", 0);
    budget.reserve(0);
    assertThrows(BudgetExceededException.class, () -> budget.reserve(1));
    assertEquals(0, budget.reservedBytes());
  }

  @Test
  void overflowIsRefusedNotWrapped(EngineMemory unused) {
    MemoryBudget budget = MemoryBudget.unbounded("big");
    budget.reserve(Long.MAX_VALUE - 10);
    var e = assertThrows(BudgetExceededException.class, () -> budget.reserve(Long.MAX_VALUE));
    assertEquals("big", e.budgetName());
    assertEquals(Long.MAX_VALUE - 10, budget.reservedBytes());
  }

  @Test
  void badArgumentsAreRejected(EngineMemory unused) {
    assertThrows(IllegalArgumentException.class, () -> MemoryBudget.of("neg", -1));
    MemoryBudget budget = MemoryBudget.of("b", 100);
    assertThrows(IllegalArgumentException.class, () -> budget.reserve(-1));
    budget.reserve(10);
    var e = assertThrows(IllegalStateException.class, () -> budget.release(11));
    assertTrue(e.getMessage().contains("'b'"), e.getMessage());
    assertEquals(10, budget.reservedBytes());
  }

  @Test
  void childReservationsChargeEveryAncestor(EngineMemory unused) {
    MemoryBudget process = MemoryBudget.of("process", 10_000);
    MemoryBudget query = process.child("query", 5_000);
    MemoryBudget operator = query.child("operator", 2_000);
    operator.reserve(1_500);
    query.reserve(1_000);
    assertEquals(1_500, operator.reservedBytes());
    assertEquals(2_500, query.reservedBytes());
    assertEquals(2_500, process.reservedBytes());
    operator.release(1_500);
    query.release(1_000);
    assertEquals(0, operator.reservedBytes());
    assertEquals(0, query.reservedBytes());
    assertEquals(0, process.reservedBytes());
  }

  @Test
  void childLimitIsEnforcedOnItsOwn(EngineMemory unused) {
    MemoryBudget parent = MemoryBudget.of("parent", 10_000);
    MemoryBudget child = parent.child("child", 100);
    var e = assertThrows(BudgetExceededException.class, () -> child.reserve(101));
    assertEquals("child", e.budgetName());
    assertEquals(0, child.reservedBytes());
    assertEquals(0, parent.reservedBytes());
  }

  @Test
  void ancestorFailureRollsBackEveryDescendant(EngineMemory unused) {
    MemoryBudget process = MemoryBudget.of("process", 1_000);
    MemoryBudget query = process.child("query", 5_000);
    MemoryBudget operator = query.child("operator", 5_000);
    MemoryBudget sibling = process.child("sibling", 5_000);
    sibling.reserve(600);
    var e = assertThrows(BudgetExceededException.class, () -> operator.reserve(500));
    assertEquals("process", e.budgetName());
    assertEquals(0, operator.reservedBytes());
    assertEquals(0, query.reservedBytes());
    assertEquals(600, process.reservedBytes());
    operator.reserve(400);
    assertEquals(1_000, process.reservedBytes());
    operator.release(400);
    sibling.release(600);
    assertEquals(0, process.reservedBytes());
  }
}
