package dev.memwall.sql;

import dev.memwall.substrait.Catalog;
import io.substrait.plan.Plan;
import java.lang.invoke.MethodHandles;
import org.apache.calcite.sql.parser.SqlParseException;

/**
 * The state every statement shares and a process's first statement loads: Calcite's type factory
 * ({@link SqlCatalog}), its parser configuration and operator tables ({@link SqlFrontEnd}), and
 * Substrait's function catalog with the converters over it ({@link RelToSubstrait}). It lives in
 * those classes' static fields, so the JVM loads it once, when a statement first reaches them.
 *
 * <p>Why a loader thread: loading it is most of a process's first statement (the catalog alone is
 * eleven YAML files, read by Jackson and Substrait's ANTLR type grammar, and Calcite's operator
 * tables are hundreds of classes), and a host can overlap it with its own startup. {@link
 * #startLoading} initializes the classes on a daemon thread, in the order a statement reaches them,
 * then plans one small statement ({@link #WARM_UP}) so that the classes planning goes through are
 * loaded too. A statement {@link #awaitLoading waits} for that thread before touching any of them,
 * so that no two threads ever initialize Calcite's or Substrait's classes from different ends, which
 * could deadlock on their class-initialization locks.
 *
 * <p>Failure: a class whose initialization failed on the loader thread fails again, as the JVM's
 * {@link NoClassDefFoundError} naming the first failure as its cause, in the statement that needs
 * it; the loader thread itself reports nothing. Thread safety: both methods may be called from any
 * thread, any number of times.
 */
final class SharedState {
  /** The loader once started, else null; guarded by the class. */
  private static Thread loader;

  /**
   * A statement the loader plans after the classes are initialized, so that the parser's, the
   * validator's and the converters' classes are loaded and linked too: they are most of what a
   * first statement still pays once the shared state is there. It reads no table (a catalog may
   * not exist yet) and uses the clauses nearly every query has.
   */
  private static final String WARM_UP = "select a, sum(b) as s from (values (1, 2.5), (2, 3.5)) as t(a, b) "
      + "where a > 0 and b < 10 group by a having count(*) > 0 order by s desc";

  private SharedState() {}

  /** Starts loading the state on a daemon thread, unless it was started before; returns at once. */
  static synchronized void startLoading() {
    if (loader == null) {
      loader = Thread.ofPlatform().daemon().name("memwall-sql-shared-state").start(SharedState::load);
    }
  }

  /**
   * Waits until the loader started by {@link #startLoading} has finished, if one was; returns at
   * once otherwise. The wait does not give in to interrupts (the load is bounded and a statement
   * cannot be planned without it); an interrupt that arrives meanwhile stays set for the caller.
   */
  static void awaitLoading() {
    Thread started;
    synchronized (SharedState.class) {
      started = loader;
    }
    if (started == null) {
      return;
    }
    boolean interrupted = false;
    while (true) {
      try {
        started.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static void load() {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      for (Class<?> owner : new Class<?>[] {SqlCatalog.class, SqlFrontEnd.class, RelToSubstrait.class}) {
        lookup.ensureInitialized(owner);
      }
      warmUp();
    } catch (Throwable e) {
      // left for the statement that needs the state: a class that failed to initialize fails it again
    }
  }

  /** {@link #WARM_UP}'s plan over an empty catalog. */
  static Plan warmUp() throws SqlParseException {
    try (Catalog empty = new Catalog()) {
      return SqlFrontEnd.plan(WARM_UP, SqlCatalog.of(empty));
    }
  }
}
