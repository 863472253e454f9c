package dev.memwall.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.ChildJvm;
import dev.memwall.substrait.Catalog;
import io.substrait.plan.Plan;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link Memwall#preload}: the loader's own statement, and statements racing the loader in a fresh JVM. */
class SharedStateTest {
  @Test
  void theWarmUpStatementPlans() throws Exception {
    Plan plan = SharedState.warmUp();
    assertEquals(1, plan.getRoots().size());
    assertEquals(List.of("a", "s"), plan.getRoots().get(0).getNames());
  }

  /**
   * In a fresh JVM, where no class of the front end is initialized yet, statements planned on five
   * threads while the loader runs all finish (a deadlock between the loader's and a statement's
   * class initialization would leave the child hanging) with equal plans.
   */
  @Test
  void statementsRacingTheLoaderPlanAlike() throws Exception {
    Process child = ChildJvm.start(SharedStateRace.class);
    boolean exited = child.waitFor(120, TimeUnit.SECONDS);
    if (!exited) {
      child.destroyForcibly();
    }
    String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(exited, "the child did not finish within 120 s; its output: " + output);
    assertEquals(0, child.exitValue(), output);
    assertTrue(output.contains("equal plans, interrupt kept"), output);
    try (Catalog catalog = new Catalog()) {
      Plan here = Memwall.substrait(catalog, SharedStateRace.STATEMENT);
      assertEquals(1, here.getRoots().size());
      assertEquals(List.of("k", "part", "n"), here.getRoots().get(0).getNames());
    }
  }
}
