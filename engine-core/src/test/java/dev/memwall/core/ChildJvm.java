package dev.memwall.core;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A child JVM for the crash and concurrency tests (killed mid-write, racing on one directory): this
 * JVM's {@code java}, the engine's flags as this JVM has them (module and access options, {@code -D}
 * and {@code -X} settings), its class path, then the main class and its arguments. Output and errors
 * go to one stream.
 */
public final class ChildJvm {
  private ChildJvm() {}

  /** The command line that runs {@code main} with {@code args}. */
  public static List<String> command(Class<?> main, String... args) {
    List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (flag.startsWith("--") || flag.startsWith("-D") || flag.startsWith("-X")) {
        command.add(flag);
      }
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(Arrays.asList(args));
    return command;
  }

  /** Starts {@code main} with {@code args}, its stderr merged into its stdout. */
  public static Process start(Class<?> main, String... args) throws IOException {
    return new ProcessBuilder(command(main, args)).redirectErrorStream(true).start();
  }
}
