package dev.memwall.index.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.PropertyLeakCheck;
import dev.memwall.core.temporal.LayoutKind;
import dev.memwall.core.temporal.ReferenceTable;
import dev.memwall.core.temporal.TemporalCases;
import dev.memwall.core.temporal.TemporalCases.Case;
import dev.memwall.core.temporal.TemporalLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;

/**
 * The page-file table in every layout against {@link ReferenceTable} over the random append
 * sequences of {@link TemporalCases} (the in-memory layouts' cases, with more entities), on 4 KiB
 * pages and 8-frame pools so that pages split, segments overflow into page chains and frames are
 * evicted: every query right after the appends, and again after closing and reopening the files;
 * then appends after the reopen, and a third check. Every byte is given back.
 */
@AddLifecycleHook(PropertyLeakCheck.class)
class PagedTemporalTableProperties {
  static final TemporalFileConfig SMALL = new TemporalFileConfig(4096, 8, Integer.MAX_VALUE);

  @Provide
  Arbitrary<Case> cases() {
    return TemporalCases.cases(12, 400);
  }

  @Property(tries = 60, edgeCases = EdgeCasesMode.NONE) // the arbitraries name their edge values themselves
  void everyPagedLayoutAnswersAsTheReferenceBeforeAndAfterReopening(@ForAll("cases") Case c, EngineMemory memory)
      throws IOException {
    Path dir = Files.createTempDirectory("temporal-pages");
    List<PagedTemporalTable> tables = new ArrayList<>();
    try {
      for (LayoutKind kind : LayoutKind.values()) {
        tables.add(PagedTemporalTable.create(dir.resolve(kind.name()), kind, c.attributes(), SMALL, memory));
      }
      int half = c.steps().size() / 2;
      Case first = new Case(c.attributes(), c.changes(), c.surrogates(), c.starts(), c.steps().subList(0, half));
      ReferenceTable reference = new ReferenceTable(c.attributes());
      TemporalCases.replay(first, reference, tables);
      for (PagedTemporalTable table : tables) {
        TemporalCases.check(reference, table, c);
      }
      reopen(tables, dir, memory);
      for (PagedTemporalTable table : tables) {
        assertEquals(table.kind(), LayoutKind.valueOf(table.path().getFileName().toString()));
        TemporalCases.check(reference, table, c);
      }
      Case rest = new Case(c.attributes(), c.changes(), c.surrogates(), c.starts(),
          c.steps().subList(half, c.steps().size()));
      TemporalCases.replay(rest, reference, tables);
      reopen(tables, dir, memory);
      for (PagedTemporalTable table : tables) {
        TemporalCases.check(reference, table, c);
      }
      int most = TemporalCases.mostVersions(c, reference);
      Statistics.label("most versions of one entity").collect(most <= 1 ? "0-1" : most < 50 ? "2-49" : "50+");
      Statistics.label("data pages").collect(tables.getFirst().dataPages() <= 1 ? "1" : "2+");
    } finally {
      tables.forEach(TemporalLayout::close);
      deleteAll(dir);
    }
    assertEquals(0, memory.allocatedBytes(), "every table gives its memory back on close");
  }

  private static void reopen(List<PagedTemporalTable> tables, Path dir, EngineMemory memory) {
    for (int i = 0; i < tables.size(); i++) {
      PagedTemporalTable old = tables.get(i);
      old.close();
      tables.set(i, PagedTemporalTable.open(old.path(), SMALL, memory));
    }
  }

  static void deleteAll(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
