package dev.memwall.sql;

import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.vector.Table;
import dev.memwall.substrait.Catalog;
import dev.memwall.substrait.SubstraitPlans;
import dev.memwall.substrait.UnsupportedPlanException;
import io.substrait.plan.Plan;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.calcite.sql.parser.SqlParseException;

/**
 * SQL on memwall: a {@code SELECT} over a {@link Catalog}'s tables is planned by Isthmus (Apache
 * Calcite's parser and validator) into a Substrait plan, which {@link SubstraitPlans} converts,
 * optimizes and runs. What SQL is supported is what the Substrait consumer supports (see
 * {@code docs/sql.md}); anything else is refused before it runs: SQL that does not parse or
 * validate with an {@link SqlException}, a plan outside the subset with an
 * {@link UnsupportedPlanException} naming the construct and its place in the plan.
 *
 * <p>Ownership: the catalog's tables stay the caller's and must stay open until the result has been
 * consumed; the returned table or reader is the caller's to close. Thread safety: no state; calls
 * may run concurrently over tables that are not changed meanwhile.
 */
public final class Memwall {
  /** How Calcite's validator says it found no column of a name. */
  private static final java.util.regex.Pattern MISSING_COLUMN = java.util.regex.Pattern.compile(
      "Column '([^']+)' not found");

  private Memwall() {}

  /**
   * Starts loading, on a daemon thread, what every statement shares and a process's first statement
   * would otherwise load: Calcite's operator tables and Substrait's function catalog (a few hundred
   * milliseconds on a cold JVM). A host calls it at startup, so that the loading overlaps its own;
   * a statement planned meanwhile waits for it. Returns at once; later calls do nothing, and a
   * process that never calls it loads the state with its first statement.
   */
  public static void preload() {
    SharedState.startLoading();
  }

  /**
   * {@code sql} as a Substrait plan, nothing run.
   *
   * @throws SqlException when the text does not parse or does not validate against the catalog
   */
  public static Plan substrait(Catalog catalog, String sql) {
    SharedState.awaitLoading();
    try {
      return SqlFrontEnd.plan(sql, SqlCatalog.of(catalog));
    } catch (SqlParseException e) {
      throw new SqlException("SQL does not parse: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      if (e instanceof UnsupportedPlanException) {
        throw e;
      }
      throw new SqlException("SQL is not valid here: " + e.getMessage() + leftOut(catalog, e), e);
    }
  }

  /**
   * Why a column the validator did not find was left out of a table (when it was): "; " and the
   * reasons, naming the table, the column and its Arrow type; else the empty string.
   */
  private static String leftOut(Catalog catalog, RuntimeException e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      java.util.regex.Matcher column = MISSING_COLUMN.matcher(String.valueOf(cause.getMessage()));
      if (column.find()) {
        java.util.List<String> reasons = catalog.leftOut(column.group(1));
        return reasons.isEmpty() ? "" : "; " + String.join("; ", reasons);
      }
    }
    return "";
  }

  /** {@code sql} converted and optimized, nothing run; {@link SubstraitPlans.Prepared#explain} describes it. */
  public static SubstraitPlans.Prepared prepare(Catalog catalog, String sql) {
    return SubstraitPlans.prepare(substrait(catalog, sql), catalog);
  }

  /** Runs {@code sql}; the caller closes the table. */
  public static Table sql(Catalog catalog, String sql, ExecutionContext context) {
    return SubstraitPlans.relation(prepare(catalog, sql), context).toTable();
  }

  /** Runs {@code sql} as a stream of Arrow batches in {@code allocator}; the caller closes the reader. */
  public static ArrowReader stream(Catalog catalog, String sql, ExecutionContext context, BufferAllocator allocator) {
    return SubstraitPlans.relation(prepare(catalog, sql), context).stream(allocator);
  }
}
