package dev.memwall.index;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The kill of the crash tests: follows a child JVM that prints {@code committed N} after each
 * commit, kills it (SIGKILL) {@code delayMillis} after it reports at least {@code wanted}, and
 * returns the last N it reported (-1 if none), having read what it wrote before it died.
 */
public final class KilledChild {
  private KilledChild() {}

  /** Runs {@code child} to its kill; every line it printed is added to {@code lines}. */
  public static long killAfter(Process child, long wanted, long delayMillis, List<String> lines)
      throws IOException, InterruptedException {
    long reported = -1;
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
        StandardCharsets.UTF_8))) {
      for (String line; (line = out.readLine()) != null; ) {
        lines.add(line);
        if (line.startsWith("committed ")) {
          reported = Long.parseLong(line.substring(10));
          if (reported >= wanted && child.isAlive()) {
            Thread.sleep(delayMillis); // lands somewhere in a later batch
            child.toHandle().destroyForcibly(); // SIGKILL; unlike Process.destroy it leaves the pipe open
            // keep reading: lines the child wrote before it died are still in the pipe
          }
        }
      }
    } finally {
      child.destroyForcibly();
      child.waitFor(30, TimeUnit.SECONDS);
    }
    return reported;
  }
}
