package dev.memwall.core.memory;

/** Thrown when an allocation would take a {@link MemoryBudget} past its limit. */
public final class BudgetExceededException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final String budgetName;

  BudgetExceededException(String budgetName, long requested, long reserved, long limit) {
    super("memory budget '" + budgetName + "' exceeded: requested " + requested + " bytes with "
        + reserved + " of " + limit + " bytes already reserved");
    this.budgetName = budgetName;
  }

  /** The name of the budget that refused the allocation. */
  public String budgetName() {
    return budgetName;
  }
}
