package dev.memwall.cli;

import dev.memwall.core.memory.EngineMemory;
import dev.memwall.tpch.data.DataSetCheck;
import dev.memwall.tpch.data.TpchDataGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code memwall check}: verifies a whole TPC-H data set on demand ({@link DataSetCheck}): every file
 * against its checksums and every batch's structure, with the time of each pass; {@code --repair}
 * generates the damaged files again. Exit code 0 when the set is intact (or repaired), 3 when a file
 * is damaged, with one line per damaged file on stderr.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
    description = "Verify a TPC-H data set: every file against its CRC32C checksums and every batch's structure "
        + "(timed); --repair generates damaged files again.")
final class CheckCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Option(names = "--sf", defaultValue = "1", paramLabel = "SF", description = "Scale factor (default ${DEFAULT-VALUE}).")
  double scaleFactor;

  @Mixin CacheDirectoryOption cacheDirectory;

  @Option(names = "--repair", description = "Generate every damaged file again, then check once more.")
  boolean repair;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Path cache = cacheDirectory.directory();
    Path dir = TpchDataGenerator.dataDirectory(cache, scaleFactor);
    try (EngineMemory memory = EngineMemory.create("memwall check")) {
      DataSetCheck.Result result = DataSetCheck.check(dir, scaleFactor, memory);
      print(out, dir, result);
      if (repair && !result.damage().isEmpty()) {
        TpchDataGenerator generator = new TpchDataGenerator(Runtime.getRuntime().availableProcessors(), true);
        for (DataSetCheck.Damage damage : result.damage()) {
          generator.repair(dir, scaleFactor, damage.table(), damage.part(), damage.problem(), memory);
          out.println("repaired " + damage.file());
        }
        result = DataSetCheck.check(dir, scaleFactor, memory);
        print(out, dir, result);
      }
      out.flush();
      result.damage().forEach(damage -> err.println(damage.problem()));
      err.flush();
      return result.damage().isEmpty() ? 0 : MemwallCli.EXIT_RESOURCE;
    }
  }

  private static void print(PrintWriter out, Path dir, DataSetCheck.Result result) {
    double mib = result.bytes() / (double) (1 << 20);
    out.println(String.format(Locale.ROOT, "%s: %d files, %.1f MiB", dir, result.files(), mib));
    out.println(result.checksummed()
        ? String.format(Locale.ROOT, "  checksums (CRC32C of every byte): %.1f ms, %.2f GiB/s", result.checksumNanos() / 1e6,
            mib / 1024 / Math.max(1e-9, result.checksumNanos() / 1e9))
        : "  checksums: none kept (a set written before memwall kept them); structure only");
    out.println(String.format(Locale.ROOT, "  structure (buffer sizes, string offsets, dictionary indices): %.1f ms",
        result.structureNanos() / 1e6));
    out.println(result.damage().isEmpty() ? "  intact" : "  " + result.damage().size() + " damaged file"
        + (result.damage().size() == 1 ? "" : "s"));
  }
}
