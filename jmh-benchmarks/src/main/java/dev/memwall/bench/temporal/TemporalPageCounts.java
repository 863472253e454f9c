package dev.memwall.bench.temporal;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.temporal.LayoutKind;
import dev.memwall.index.temporal.PagedTemporalTable;
import dev.memwall.index.temporal.TemporalFileConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.IntConsumer;
import java.util.stream.Stream;

/**
 * The paper's cost measure in memwall's page file: pages read per query ({@link
 * PagedTemporalTable#lastQueryPages}) for each {@link LayoutKind}, the table of {@link
 * TemporalLayoutBenchmark} ({@value TemporalLayoutBenchmark#ATTRIBUTES} attributes, the first
 * {@value TemporalLayoutBenchmark#VARYING} varying, every version a change) built in page files,
 * and the same queries: an entity's history and a varying attribute's history (means over {@value
 * TemporalLayoutBenchmark#SEQUENCE} random entities) and the state of all entities at a random time
 * (mean over {@value #SNAPSHOTS} times). The counts depend on the layout, the data and the page size
 * only, not on the machine or its load, so they are printed as a Markdown table rather than timed.
 *
 * <p>Arguments (all optional): entities (default {@value TemporalLayoutBenchmark#ENTITIES}), a
 * comma-separated list of versions per entity (default 1,10,100,300), page bytes (default 8192).
 */
public final class TemporalPageCounts {
  static final int SNAPSHOTS = 8;

  private TemporalPageCounts() {}

  /** Mean pages read per query of each kind: {entity history, attribute history, snapshot, data pages}. */
  static Map<LayoutKind, double[]> count(Path dir, int entities, int versions, TemporalFileConfig config,
      EngineMemory memory) {
    SplittableRandom random = new SplittableRandom(7);
    int n = TemporalLayoutBenchmark.SEQUENCE;
    long[] surrogates = new long[n];
    int[] attributes = new int[n];
    long[] times = new long[n];
    for (int i = 0; i < n; i++) {
      surrogates[i] = random.nextInt(entities);
      attributes[i] = random.nextInt(TemporalLayoutBenchmark.VARYING);
      times[i] = random.nextInt(versions);
    }
    Map<LayoutKind, double[]> out = new EnumMap<>(LayoutKind.class);
    for (LayoutKind kind : LayoutKind.values()) {
      Path path = dir.resolve(kind + "-" + versions);
      try (PagedTemporalTable table = TemporalLayoutBenchmark.fill(PagedTemporalTable.create(path, kind,
          TemporalLayoutBenchmark.ATTRIBUTES, config, memory), entities, versions, 42)) {
        out.put(kind, new double[] {
            mean(table, n, i -> table.history(surrogates[i])),
            mean(table, n, i -> table.attributeHistory(surrogates[i], attributes[i])),
            mean(table, SNAPSHOTS, i -> table.snapshot(times[i])),
            table.dataPages()});
      }
    }
    return out;
  }

  private static double mean(PagedTemporalTable table, int queries, IntConsumer query) {
    long sum = 0;
    for (int i = 0; i < queries; i++) {
      query.accept(i);
      sum += table.lastQueryPages();
    }
    return (double) sum / queries;
  }

  public static void main(String[] args) throws IOException {
    int entities = args.length > 0 ? Integer.parseInt(args[0]) : TemporalLayoutBenchmark.ENTITIES;
    String[] versionList = (args.length > 1 ? args[1] : "1,10,100,300").split(",");
    int pageBytes = args.length > 2 ? Integer.parseInt(args[2]) : 8192;
    TemporalFileConfig config = new TemporalFileConfig(pageBytes, 8192, Integer.MAX_VALUE);
    Path dir = Files.createTempDirectory("temporal-page-counts");
    PrintStream out = System.out;
    String[] queries = {"entity history", "attribute history", "snapshot, " + entities + " entities", "data pages"};
    StringBuilder[] rows = new StringBuilder[queries.length];
    for (int q = 0; q < queries.length; q++) {
      rows[q] = new StringBuilder();
    }
    try (EngineMemory memory = EngineMemory.create("temporal page counts")) {
      for (String v : versionList) {
        int versions = Integer.parseInt(v.trim());
        Map<LayoutKind, double[]> counts = count(dir, entities, versions, config, memory);
        for (int q = 0; q < queries.length; q++) {
          rows[q].append(String.format("| %s | %d | %s | %s | %s |%n", rows[q].isEmpty() ? queries[q] : "", versions,
              format(counts.get(LayoutKind.NSM)[q]), format(counts.get(LayoutKind.TDSM)[q]),
              format(counts.get(LayoutKind.PSP)[q])));
        }
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    out.printf("Pages read per query, %d-byte pages, %d entities of %d attributes%n%n", pageBytes, entities,
        TemporalLayoutBenchmark.ATTRIBUTES);
    out.println("| query | versions | NSM | TDSM | PSP |");
    out.println("|---|---:|---:|---:|---:|");
    for (StringBuilder row : rows) {
      out.print(row);
    }
  }

  private static String format(double value) {
    return value == Math.rint(value) ? String.format("%,d", (long) value) : String.format("%,.2f", value);
  }
}
