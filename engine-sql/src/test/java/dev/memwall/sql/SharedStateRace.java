package dev.memwall.sql;

import dev.memwall.substrait.Catalog;
import io.substrait.plan.Plan;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Run in a fresh JVM by {@link SharedStateTest}: {@link Memwall#preload} and, at once, statements
 * planned on four threads and on the main thread, which has interrupted itself first. Prints {@code
 * equal plans, interrupt kept} and exits 0 when every plan equals the others and the main thread's
 * interrupt is still set after its statement; else prints what differed or failed and exits 1.
 */
final class SharedStateRace {
  static final String STATEMENT = "select x.k, substr(x.name, 2, 3) as part, count(*) as n "
      + "from (values (1, 'alpha'), (2, 'beta')) as x(k, name) join (values (1, 10.5)) as y(k, v) on x.k = y.k "
      + "where y.v between 1 and 100 group by x.k, substr(x.name, 2, 3) order by n desc";

  private SharedStateRace() {}

  public static void main(String[] args) throws Exception {
    Memwall.preload();
    List<Plan> plans = new ArrayList<>();
    try (Catalog catalog = new Catalog(); ExecutorService threads = Executors.newFixedThreadPool(4)) {
      List<Future<Plan>> racing = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        racing.add(threads.submit(() -> Memwall.substrait(catalog, STATEMENT)));
      }
      Thread.currentThread().interrupt();
      plans.add(Memwall.substrait(catalog, STATEMENT));
      boolean interruptKept = Thread.interrupted();
      for (Future<Plan> plan : racing) {
        plans.add(plan.get());
      }
      if (!interruptKept) {
        System.out.println("the main thread's interrupt was cleared");
        System.exit(1);
      }
    }
    for (Plan plan : plans) {
      if (!plan.equals(plans.get(0))) {
        System.out.println("plans differ: " + plan + " against " + plans.get(0));
        System.exit(1);
      }
    }
    System.out.println("equal plans, interrupt kept");
  }
}
