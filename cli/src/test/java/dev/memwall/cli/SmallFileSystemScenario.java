package dev.memwall.cli;

import static dev.memwall.core.expr.Expr.col;
import static dev.memwall.core.expr.Expr.lit;

import dev.memwall.core.ChildJvm;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.operator.Aggregate;
import dev.memwall.core.operator.SortKey;
import dev.memwall.core.plan.ExecutionContext;
import dev.memwall.core.plan.Plan;
import dev.memwall.core.spill.SpillDirectory;
import dev.memwall.core.spill.SpillException;
import dev.memwall.core.vector.Batch;
import dev.memwall.core.vector.Column;
import dev.memwall.core.vector.ColumnType;
import dev.memwall.core.vector.Table;
import dev.memwall.core.vector.TableBuilder;
import dev.memwall.join.Join;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinSpillException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The part of {@link SmallFileSystemTest} that runs inside a user and mount namespace of its own
 * ({@code unshare -rm}), where it may mount a tmpfs of a few MiB at {@code args[1]}; started by that
 * test, never by hand. It runs one scenario and prints what it saw as {@code @key value} lines, which
 * the test asserts on:
 *
 * <ul>
 *   <li>{@code generate}: {@code memwall tpch} generating SF 0.01 into the tmpfs, as child JVMs:
 *       with 2 MiB (refused before writing), with 12 MiB that another writer fills once generation
 *       has written its first file ({@code No space left on device} in the middle), then with the
 *       filler gone; then {@code memwall check}.
 *   <li>{@code spill}: an external sort, a spilling aggregation and a GRACE join, in this JVM, with
 *       their spill directory on a 1 MiB tmpfs, then again after it was remounted with 64 MiB; their
 *       results against the same operators' in memory.
 * </ul>
 *
 * <p>Exit code 0 when the scenario ran to its end, whatever it saw; 90 when the tmpfs cannot be mounted.
 */
public final class SmallFileSystemScenario {
  private SmallFileSystemScenario() {}

  public static void main(String[] args) throws Exception {
    Path mount = Path.of(args[1]);
    Path outside = Path.of(args[2]);
    boolean generate = args[0].equals("generate");
    if (!mount("-t", "tmpfs", "-o", "size=" + (generate ? "2m" : "1m"), "tmpfs", mount.toString())) {
      System.exit(90);
    }
    if (generate) {
      generate(mount, outside);
    } else {
      spill(mount);
    }
  }

  private static void generate(Path mount, Path outside) throws Exception {
    Path data = mount.resolve("data");
    Path sets = data.resolve("sf0.01");
    List<String> tpch = List.of("tpch", "--sf", "0.01", "--data", data.toString(), "--threads", "1", "--queries", "6",
        "--runs", "1", "--warmup", "0", "--verify", "none", "--quiet", "--report", outside.resolve("report").toString());

    run("small", tpch);
    observe("small.left", left(mount));

    remount(mount, "12m");
    Process generator = start(tpch);
    Path filler = mount.resolve("filler");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (generator.isAlive() && !hasDataFile(sets) && System.nanoTime() < deadline) {
      Thread.sleep(2);
    }
    long filled = fill(filler); // another program takes the rest of the disk in the middle of generation
    observe("full.filled", Long.toString(filled));
    finish("full", generator);
    observe("full.left", left(mount));

    Files.delete(filler);
    run("roomy", tpch);
    observe("roomy.left", left(mount));
    run("check", List.of("check", "--sf", "0.01", "--data", data.toString()));
  }

  private static void spill(Path mount) throws Exception {
    Path root = mount.resolve("spill");
    try (EngineMemory memory = EngineMemory.create("small file system");
        Table rows = rows(memory, 300_000, 1)) {
      long[] expected = new long[OPERATORS.size()];
      for (int i = 0; i < expected.length; i++) {
        expected[i] = operator(i, memory, rows, null);
      }
      observe("tight", outcomes(memory, rows, root, expected));
      remount(mount, "64m");
      observe("roomy", outcomes(memory, rows, root, expected));
    }
    observe("live", Integer.toString(SpillDirectory.liveDirectories()));
  }

  private static final List<String> OPERATORS = List.of("sort", "aggregation", "join");

  /** Runs each operator spilling under {@code root}: its outcome, and what the disk holds after it. */
  private static String outcomes(EngineMemory memory, Table rows, Path root, long[] expected) throws IOException {
    List<String> outcomes = new ArrayList<>();
    for (int i = 0; i < OPERATORS.size(); i++) {
      String outcome;
      try {
        long result = operator(i, memory, rows, root);
        outcome = result == expected[i] ? "ok" : "WRONG " + result + " instead of " + expected[i];
      } catch (SpillException e) {
        outcome = "SpillException " + e.reason() + " " + e.getMessage();
      } catch (JoinSpillException e) {
        outcome = "JoinSpillException " + e.reason() + " " + e.getMessage();
      }
      outcomes.add(OPERATORS.get(i) + ": " + outcome + " | left: " + left(root.getParent()));
    }
    return String.join(" || ", outcomes);
  }

  /**
   * The result of operator {@code which} ({@link #OPERATORS}) reduced to one number: the sorted rows'
   * order, the groups' counts, the join's pairs; spilling under {@code root} with little memory, or in
   * memory when {@code root} is null.
   */
  private static long operator(int which, EngineMemory memory, Table rows, Path root) {
    ExecutionContext.Builder builder = ExecutionContext.builder(memory).threads(2);
    ExecutionContext context = root == null ? builder.spilling(false).build()
        : builder.memoryLimit(2L << 20).spillDirectory(root).build();
    return switch (which) {
      case 0 -> reduce(Plan.scan(rows).filter(col("v").ge(lit(0))).orderBy(SortKey.asc("s"), SortKey.asc("v")), context,
          (hash, batch) -> ordered(hash, batch.column("v")));
      case 1 -> reduce(Plan.scan(rows).aggregate(List.of(col("k").as("k")), Aggregate.countStar("n")), context,
          (sum, batch) -> weighted(sum, batch.column("k"), batch.column("n")));
      default -> {
        Join join = Join.of(memory, rows, rows).on("k").algorithm(JoinAlgorithm.GRACE);
        yield root == null ? join.count() : join.memoryLimit(1L << 20).spillDirectory(root).count();
      }
    };
  }

  /** Folds a result's batches into one number. */
  @FunctionalInterface
  private interface Digest {
    long fold(long digest, Batch batch);
  }

  private static long reduce(Plan plan, ExecutionContext context, Digest digest) {
    long folded = 0;
    try (Table result = plan.execute(context)) {
      for (Batch batch : result.batches()) {
        folded = digest.fold(folded, batch);
      }
    }
    return folded;
  }

  /** The rows' order: a hash of the values in sequence, across batches. */
  private static long ordered(long hash, Column values) {
    for (int row = 0; row < values.length(); row++) {
      hash = hash * 31 + values.getLong(row);
    }
    return hash;
  }

  /** The groups, in any order: a weighted sum of keys and counts. */
  private static long weighted(long sum, Column keys, Column counts) {
    for (int row = 0; row < keys.length(); row++) {
      sum += (keys.getLong(row) + 1) * 7_919 * counts.getLong(row);
    }
    return sum;
  }

  /** {@code count} rows: {@code k} of 100,000 keys, {@code v} the row's number, {@code s} a 24-character string. */
  private static Table rows(EngineMemory memory, int count, long seed) {
    Random random = new Random(seed);
    try (TableBuilder builder = new TableBuilder(List.of("k", "v", "s"),
        List.of(ColumnType.INT64, ColumnType.INT64, ColumnType.STRING), memory.arrow())) {
      for (int row = 0; row < count; row++) {
        builder.appendLong(random.nextInt(100_000)).appendLong(row)
            .appendString(String.format("%024d", random.nextInt(1_000_000)).getBytes(StandardCharsets.US_ASCII))
            .endRow();
      }
      return builder.build();
    }
  }

  /** Writes zeros to {@code file} until the disk is full; returns how many bytes it took. */
  private static long fill(Path file) throws IOException {
    byte[] block = new byte[64 << 10];
    long written = 0;
    try (OutputStream out = Files.newOutputStream(file)) {
      while (true) {
        out.write(block);
        out.flush();
        written += block.length;
      }
    } catch (IOException e) {
      if (!String.valueOf(e.getMessage()).contains("No space left on device")) {
        throw e;
      }
      return written;
    }
  }

  private static boolean hasDataFile(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.anyMatch(f -> f.getFileName().toString().contains(".arrow"));
    } catch (java.nio.file.NoSuchFileException e) {
      return false;
    }
  }

  /** Every file and directory under {@code dir}, relative, sorted, without the filler. */
  private static String left(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(p -> !p.equals(dir)).map(p -> dir.relativize(p).toString()).filter(p -> !p.equals("filler"))
          .sorted().toList().toString();
    }
  }

  private static void run(String step, List<String> args) throws Exception {
    finish(step, start(args));
  }

  private static Process start(List<String> args) throws IOException {
    return new ProcessBuilder(ChildJvm.command(MemwallCli.class, args.toArray(String[]::new))).start();
  }

  /** Waits for a command line child and reports its exit code, standard output and error. */
  private static void finish(String step, Process child) throws Exception {
    String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!child.waitFor(300, TimeUnit.SECONDS)) {
      child.destroyForcibly();
    }
    observe(step + ".exit", Integer.toString(child.exitValue()));
    observe(step + ".err", err.strip().replace('\n', '|'));
    observe(step + ".out", out.strip().replace('\n', '|'));
  }

  private static void remount(Path mount, String size) throws Exception {
    if (!mount("-o", "remount,size=" + size, mount.toString())) {
      throw new IllegalStateException("cannot remount the tmpfs with " + size);
    }
  }

  private static boolean mount(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("mount"));
    command.addAll(List.of(args));
    Process mount = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    boolean mounted = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
    if (!mounted) {
      observe("mount.failed", command + ": " + output.strip().replace('\n', '|'));
    }
    return mounted;
  }

  private static void observe(String key, String value) {
    System.out.println("@" + key + " " + value);
    System.out.flush();
  }
}
