package dev.memwall.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The README's embedding example, run as a host would run it: in a JVM of its own started with no
 * flag at all, on the runtime class path a Maven user of {@code engine-join} gets (no test
 * dependency, no logging backend).
 */
class EmbeddingExampleTest {

  @Test
  void runsInAFlaglessJvmAndAgreesWithThePlainJavaReference() throws IOException, InterruptedException {
    Result run = runFlagless(EmbeddingExample.class.getName());
    assertEquals(0, run.exitCode(), "exit code; stderr:\n" + run.stderr());
    assertEquals(Reference.topRegions(3), run.stdout());
    assertEquals(3, run.stdout().lines().count());
    // only the JDK's and SLF4J's notices (the host chooses the flags and the logging backend), no error
    List<String> unexpected = run.stderr().lines()
        .filter(line -> !line.isBlank() && !line.startsWith("WARNING:") && !line.startsWith("SLF4J(W)")).toList();
    assertTrue(unexpected.isEmpty(), "unexpected stderr lines: " + unexpected + "\nstderr:\n" + run.stderr());
  }

  record Result(int exitCode, String stdout, String stderr) {}

  /** Runs {@code mainClass} in a child JVM of this JDK with no JVM option, on the host class path. */
  static Result runFlagless(String mainClass) throws IOException, InterruptedException {
    Path target = Path.of("target");
    String dependencies = Files.readString(target.resolve("host.classpath")).strip();
    String classPath = target.resolve("classes").toAbsolutePath() + File.pathSeparator + dependencies;
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>(List.of(java.toString(), "-cp", classPath, mainClass));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().remove("JAVA_TOOL_OPTIONS");
    builder.environment().remove("JDK_JAVA_OPTIONS");
    Path out = Files.createTempFile("memwall-example", ".out");
    Path err = Files.createTempFile("memwall-example", ".err");
    try {
      Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("the example did not finish within 120 s");
      }
      return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
