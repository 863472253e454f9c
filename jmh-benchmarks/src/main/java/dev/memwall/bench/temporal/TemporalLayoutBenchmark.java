package dev.memwall.bench.temporal;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.temporal.LayoutKind;
import dev.memwall.core.temporal.TemporalLayout;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The read experiment of Jouini and Jomier 2008 (DaMoN, seed 001) in memory: time per query for
 * each {@link LayoutKind} and each of the paper's queries, as the number of versions per entity
 * grows. The table has {@value #ENTITIES} entities of {@value #ATTRIBUTES} attributes of which the
 * first {@value #VARYING} vary over time, as in the paper's simulations; each version changes one
 * varying attribute, drawn at random, so every version is a change. Queries: an entity's whole
 * history, one varying attribute's history, and the state of all entities at a random time; each
 * invocation asks about the next entity (or time) of a fixed random sequence. {@link #appendAll}
 * times the appends that build the table.
 *
 * <p>Beside the time, the memory traffic the query reads from the layout (whole 64-byte lines,
 * {@link TemporalLayout#lastQueryBytes}) is reported as the secondary result {@code bytesPerQuery}:
 * its mean over the sequence, counted once at setup with counting on, so the timed queries do not
 * count. It is a property of the layout and the data, not of the machine.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@State(Scope.Benchmark)
public class TemporalLayoutBenchmark {
  static final int ENTITIES = 4096;
  static final int ATTRIBUTES = 10;
  static final int VARYING = 4;
  static final int SEQUENCE = 1024;

  @Param({"NSM", "TDSM", "PSP"})
  public LayoutKind layout;

  @Param({"1", "10", "100"})
  public int versions;

  private EngineMemory memory;
  private TemporalLayout table;
  private long[] entities;
  private int[] attributes;
  private long[] times;
  private int next;
  /** {@code bytesPerQuery} of this trial, counted at its first iteration; -1 before. */
  private long trafficOfTrial = -1;

  /**
   * The mean bytes one query of the trial reads, as JMH's secondary result {@code bytesPerQuery}:
   * each invocation stores it (an assignment, the same in every layout), and JMH reports the value an
   * iteration ends with.
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Traffic {
    public long bytesPerQuery;

    @Setup(Level.Iteration)
    public void reset() {
      bytesPerQuery = 0;
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    memory = EngineMemory.create("temporal layout benchmark");
    table = build(layout, memory, versions, 42);
    SplittableRandom random = new SplittableRandom(7);
    entities = new long[SEQUENCE];
    attributes = new int[SEQUENCE];
    times = new long[SEQUENCE];
    for (int i = 0; i < SEQUENCE; i++) {
      entities[i] = random.nextInt(ENTITIES);
      attributes[i] = random.nextInt(VARYING);
      times[i] = random.nextInt(versions);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    table.close();
    memory.close();
  }

  /**
   * A table of {@link #ENTITIES} entities with {@code versions} versions each at times 0, 1, ...;
   * version 0 sets attribute a to a, each later one sets one varying attribute, drawn from
   * {@code seed}, to a new value.
   */
  static TemporalLayout build(LayoutKind kind, EngineMemory memory, int versions, long seed) {
    return fill(TemporalLayout.create(kind, memory, ATTRIBUTES), ENTITIES, versions, seed);
  }

  /**
   * Appends the table of {@link #build}, of {@code entityCount} entities, to {@code table} (empty, of
   * {@link #ATTRIBUTES} attributes, in memory or in a page file) and returns it.
   */
  static <T extends TemporalLayout> T fill(T table, int entityCount, int versions, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[][] state = new long[entityCount][ATTRIBUTES];
    for (int t = 0; t < versions; t++) {
      for (int e = 0; e < entityCount; e++) {
        if (t == 0) {
          for (int a = 0; a < ATTRIBUTES; a++) {
            state[e][a] = a;
          }
        } else {
          state[e][random.nextInt(VARYING)] += 1 + random.nextInt(1000);
        }
        table.append(e, t, state[e]);
      }
    }
    return table;
  }

  /** Mean bytes per query over the sequence, counted now with counting on. */
  long meanBytes(IntConsumer query) {
    table.countTraffic(true);
    long sum = 0;
    for (int i = 0; i < SEQUENCE; i++) {
      query.accept(i);
      sum += table.lastQueryBytes();
    }
    table.countTraffic(false);
    return sum / SEQUENCE;
  }

  private int step() {
    int i = next;
    next = (next + 1) & (SEQUENCE - 1);
    return i;
  }

  @Setup(Level.Iteration)
  public void countTraffic(BenchmarkParams params) {
    String name = params.getBenchmark();
    if (name.endsWith("appendAll")) {
      return; // appends read no query's traffic
    }
    IntConsumer query = name.endsWith("entityHistory")
        ? i -> table.history(entities[i])
        : name.endsWith("attributeHistory")
            ? i -> table.attributeHistory(entities[i], attributes[i])
            : i -> table.snapshot(times[i]);
    if (trafficOfTrial < 0) {
      trafficOfTrial = meanBytes(query);
    }
  }

  @Benchmark
  public int entityHistory(Traffic traffic) {
    traffic.bytesPerQuery = trafficOfTrial;
    return table.history(entities[step()]).size();
  }

  @Benchmark
  public int attributeHistory(Traffic traffic) {
    traffic.bytesPerQuery = trafficOfTrial;
    int i = step();
    return table.attributeHistory(entities[i], attributes[i]).size();
  }

  /**
   * The paper's insertion cost: appending the whole table, {@value #ENTITIES} times {@code versions}
   * versions in time order, into a new table (PSP moves the zones after a changed one; NSM writes one
   * row); divide by that count for the time of one append.
   */
  @Benchmark
  public int appendAll() {
    try (TemporalLayout fresh = build(layout, memory, versions, 42)) {
      return fresh.entities();
    }
  }

  @Benchmark
  public int snapshot(Traffic traffic) {
    traffic.bytesPerQuery = trafficOfTrial;
    return table.snapshot(times[step()]).size();
  }
}
