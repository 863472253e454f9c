package dev.memwall.tpch.verify;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The official TPC-H SF 1 answers: {@code qN.out} files (pipe-separated, first line the column
 * headings, values padded with blanks) and {@code colprecision.txt} (line N: one
 * {@link ColumnPrecision} token per output column of query N).
 *
 * <p>Where they are: {@link #locate} takes the system property {@value #PROPERTY}, then the
 * environment variable {@value #ENVIRONMENT}, then walks up from the working directory looking for
 * {@code shared/tpch/answers-sf1} (the repository is cloned with {@code shared/} beside it).
 *
 * <p>Thread safety: immutable. Bad input: a missing or malformed file gives
 * {@link IllegalArgumentException} naming the file.
 */
public final class OfficialAnswers {
  /** System property overriding the answers directory. */
  public static final String PROPERTY = "memwall.tpch.answers";
  /** Environment variable overriding the answers directory. */
  public static final String ENVIRONMENT = "MEMWALL_TPCH_ANSWERS";
  /** Where the answers lie relative to an ancestor of the working directory. */
  public static final Path RELATIVE = Path.of("shared", "tpch", "answers-sf1");

  private final Path directory;
  private final List<List<ColumnPrecision>> precisions;

  /**
   * Reads {@code colprecision.txt} of {@code directory}.
   *
   * @throws IllegalArgumentException naming the file when it is missing or has a bad token
   */
  public OfficialAnswers(Path directory) {
    this.directory = directory;
    Path file = directory.resolve("colprecision.txt");
    List<List<ColumnPrecision>> lines = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (line.isBlank()) {
          continue;
        }
        lines.add(Arrays.stream(line.strip().split("\\s+")).map(ColumnPrecision::ofToken).toList());
      }
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot read TPC-H column precisions " + file + ": " + e.getMessage(), e);
    }
    if (lines.size() != 22) {
      throw new IllegalArgumentException(file + " has " + lines.size() + " non-empty lines, expected 22");
    }
    this.precisions = List.copyOf(lines);
  }

  /** The answers directory from the override or a walk up from the working directory, if any. */
  public static Optional<Path> locate() {
    String override = System.getProperty(PROPERTY);
    if (override == null || override.isBlank()) {
      override = System.getenv(ENVIRONMENT);
    }
    if (override != null && !override.isBlank()) {
      Path dir = Path.of(override);
      return Files.isDirectory(dir) ? Optional.of(dir) : Optional.empty();
    }
    return find(Path.of("").toAbsolutePath());
  }

  /** The first {@code <ancestor>/shared/tpch/answers-sf1} walking up from {@code start}. */
  public static Optional<Path> find(Path start) {
    for (Path dir = start.toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve(RELATIVE);
      if (Files.isRegularFile(candidate.resolve("colprecision.txt"))) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  public Path directory() {
    return directory;
  }

  /** The comparison rule of each output column of query {@code query}. */
  public List<ColumnPrecision> precisions(int query) {
    checkQuery(query);
    return precisions.get(query - 1);
  }

  /**
   * The validation output of query {@code query} (1..22).
   *
   * @throws IllegalArgumentException naming the file when it is missing or malformed
   */
  public ExpectedResult expected(int query) {
    checkQuery(query);
    Path file = directory.resolve("q" + query + ".out");
    try {
      return parse(query, Files.readAllLines(file, StandardCharsets.UTF_8), precisions(query));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read TPC-H answer " + file + ": " + e.getMessage(),
          new UncheckedIOException(e));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("malformed TPC-H answer " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Parses the lines of an answer file: the first is the header; empty lines are skipped; a trailing
   * empty field after a final {@code |} is dropped.
   */
  public static ExpectedResult parse(int query, List<String> lines, List<ColumnPrecision> precisions) {
    if (lines.isEmpty()) {
      throw new IllegalArgumentException("no header line");
    }
    List<String> header = fields(lines.getFirst(), -1);
    List<List<String>> rows = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      if (!line.isBlank()) {
        rows.add(fields(line, header.size()));
      }
    }
    return new ExpectedResult(query, header, precisions, rows);
  }

  private static List<String> fields(String line, int expected) {
    List<String> fields = new ArrayList<>(Arrays.stream(line.split("\\|", -1)).map(String::strip).toList());
    if (fields.size() > 1 && fields.getLast().isEmpty() && fields.size() != expected) {
      fields.removeLast();
    }
    return fields;
  }

  private static void checkQuery(int query) {
    if (query < 1 || query > 22) {
      throw new IllegalArgumentException("TPC-H queries are numbered 1 to 22, not " + query);
    }
  }
}
