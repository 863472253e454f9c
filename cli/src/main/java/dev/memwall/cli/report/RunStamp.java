package dev.memwall.cli.report;

import dev.memwall.core.machine.Calibrator;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * When, from what code and on what machine a report's figures were measured, so that a table read
 * later says what it is: the UTC time, the git commit of the working directory (with {@code +changes}
 * when files differ from it; {@code unknown} outside a checkout or without git), and the machine (CPU
 * model, cores, memory, operating system, Java, and whether the JVM started from an AOT cache, whose
 * profiles from an earlier training run change how soon its code is compiled).
 */
public record RunStamp(String time, String commit, String machine) {
  /** The stamp of a run ending now, in this process, from the working directory. */
  public static RunStamp now() {
    return new RunStamp(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT)
        .format(Instant.now().atOffset(ZoneOffset.UTC)), currentCommit(), thisMachine());
  }

  /** One line: {@code measured 2026-11-27 12:00 UTC at commit abc1234 on <machine>}. */
  public String line() {
    return "measured " + time + " at commit " + commit + " on " + machine;
  }

  private static String currentCommit() {
    String head = git("rev-parse", "--short", "HEAD");
    if (head == null || head.isEmpty()) {
      return "unknown";
    }
    String changes = git("status", "--porcelain", "--untracked-files=no");
    return changes == null || changes.isEmpty() ? head : head + "+changes";
  }

  /** The output of {@code git args...} in the working directory, or null when git fails or takes too long. */
  private static String git(String... args) {
    String[] command = new String[args.length + 1];
    command[0] = "git";
    System.arraycopy(args, 0, command, 1, args.length);
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      process.getOutputStream().close();
      byte[] output = process.getInputStream().readAllBytes();
      if (!process.waitFor(5, TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroyForcibly();
        return null;
      }
      return new String(output, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      return null; // no git
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private static String thisMachine() {
    long memory = ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getTotalMemorySize() : -1;
    return String.format(Locale.ROOT, "%s, %d cores%s, %s %s, Java %s", Calibrator.cpuName(), Runtime.getRuntime().availableProcessors(),
        memory > 0 ? String.format(Locale.ROOT, ", %.0f GiB", memory / (double) (1L << 30)) : "",
        System.getProperty("os.name"), System.getProperty("os.version"), Runtime.version()) + aotCache();
  }

  /** How this JVM uses an AOT cache (the launcher's {@code -XX:AOTCache} or {@code -XX:AOTMode=record}), or nothing. */
  private static String aotCache() {
    var arguments = ManagementFactory.getRuntimeMXBean().getInputArguments();
    if (arguments.stream().anyMatch(argument -> argument.startsWith("-XX:AOTCache="))) {
      return ", AOT cache from a training run";
    }
    return arguments.contains("-XX:AOTMode=record") ? ", recording an AOT cache" : "";
  }
}
