package dev.memwall.core.memory;

/**
 * Thrown when an allocation would take a {@link MemoryBudget} past its limit.
 *
 * <p>Where it leaves an operator that could not spill (spilling is off, or even spilling leaves too
 * little memory), the operator {@linkplain #in names itself and its stage}, so the message reads
 * {@code hash aggregation (build) needs 1048576 more bytes: memory budget 'q' exceeded: ...}; the
 * refusal of the budget itself is then the cause.
 */
public final class BudgetExceededException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final String budgetName;
  private final long requestedBytes;
  private final long reservedBytes;
  private final long limitBytes;
  private final String operator;
  private final String stage;

  BudgetExceededException(String budgetName, long requested, long reserved, long limit) {
    super("memory budget '" + budgetName + "' exceeded: requested " + requested + " bytes with "
        + reserved + " of " + limit + " bytes already reserved");
    this.budgetName = budgetName;
    this.requestedBytes = requested;
    this.reservedBytes = reserved;
    this.limitBytes = limit;
    this.operator = null;
    this.stage = null;
  }

  private BudgetExceededException(BudgetExceededException refusal, String operator, String stage, String advice) {
    super(operator + " (" + stage + ") needs " + refusal.requestedBytes + " more bytes: "
        + refusal.baseMessage() + (advice == null || advice.isEmpty() ? "" : "; " + advice), refusal);
    this.budgetName = refusal.budgetName;
    this.requestedBytes = refusal.requestedBytes;
    this.reservedBytes = refusal.reservedBytes;
    this.limitBytes = refusal.limitBytes;
    this.operator = operator;
    this.stage = stage;
  }

  /**
   * This refusal as met by {@code operator} in {@code stage} ("hash aggregation", "build"), with
   * {@code advice} (why it could not spill, what to change; may be null) at the end of the message.
   * An exception that already names an operator is returned as it is.
   */
  public BudgetExceededException in(String operator, String stage, String advice) {
    if (this.operator != null) {
      return this;
    }
    return new BudgetExceededException(this, operator, stage, advice);
  }

  /**
   * The budget's refusal behind {@code failure}: the first {@code BudgetExceededException} among it and
   * its causes (a join wraps it in its own memory exception, a task in Spark's), or null when none is.
   */
  public static BudgetExceededException among(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof BudgetExceededException refusal) {
        return refusal;
      }
    }
    return null;
  }

  /** The budget's own message, without the operator's words. */
  private String baseMessage() {
    return operator == null ? getMessage() : ((BudgetExceededException) getCause()).baseMessage();
  }

  /** The name of the budget that refused the allocation. */
  public String budgetName() {
    return budgetName;
  }

  /** The bytes the refused allocation asked for. */
  public long requestedBytes() {
    return requestedBytes;
  }

  /** The bytes the budget held when it refused. */
  public long reservedBytes() {
    return reservedBytes;
  }

  /** The budget's limit. */
  public long limitBytes() {
    return limitBytes;
  }

  /** The operator that met the refusal, or null where none named itself. */
  public String operator() {
    return operator;
  }

  /** The operator's stage ("build", "merge", "output", ...), or null where none named itself. */
  public String stage() {
    return stage;
  }
}
