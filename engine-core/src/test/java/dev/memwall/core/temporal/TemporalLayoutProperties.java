package dev.memwall.core.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.temporal.TemporalCases.Case;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;

/**
 * Every in-memory layout against {@link ReferenceTable} over the random append sequences of {@link
 * TemporalCases}, asked every query that class checks.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class TemporalLayoutProperties {

  @Provide
  Arbitrary<Case> cases() {
    return TemporalCases.cases(5, 300);
  }

  @Property(tries = 200, edgeCases = EdgeCasesMode.NONE) // the arbitraries name their edge values themselves
  void everyLayoutAnswersAsTheReference(@ForAll("cases") Case c, EngineMemory memory) {
    List<TemporalLayout> layouts = new ArrayList<>();
    for (LayoutKind kind : LayoutKind.values()) {
      layouts.add(TemporalLayout.create(kind, memory, c.attributes()));
    }
    try {
      ReferenceTable reference = new ReferenceTable(c.attributes());
      TemporalCases.replay(c, reference, layouts);
      int most = TemporalCases.mostVersions(c, reference);
      Statistics.label("most versions of one entity").collect(most <= 1 ? "0-1" : most < 10 ? "2-9" : "10+");
      for (TemporalLayout layout : layouts) {
        TemporalCases.check(reference, layout, c);
      }
    } finally {
      layouts.forEach(TemporalLayout::close);
    }
    assertEquals(0, memory.allocatedBytes(), "every layout gives its heap back on close");
  }
}
