package dev.memwall.bench.report;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Stored JMH results under src/test/resources/jmh-results, and a reader for the report's Markdown tables. */
final class ReportFixtures {
  private ReportFixtures() {}

  static Path sample(String name) {
    try {
      return Path.of(ReportFixtures.class.getResource("/jmh-results/" + name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The table under the heading that starts with {@code heading} (after the heading of {@code source}),
   * as rows of cells keyed by column name; the first column plus the varying params identify a row.
   */
  static List<Map<String, String>> table(String markdown, String source, String heading) {
    int from = markdown.indexOf("## `" + source + "`");
    if (from < 0) {
      throw new AssertionError("no section for " + source + " in\n" + markdown);
    }
    int at = markdown.indexOf("### " + heading, from);
    if (at < 0) {
      throw new AssertionError("no heading " + heading + " under " + source + " in\n" + markdown);
    }
    String[] lines = markdown.substring(at).split("\n");
    List<String> columns = null;
    List<Map<String, String>> rows = new ArrayList<>();
    for (String line : lines) {
      if (!line.startsWith("|")) {
        if (columns != null) {
          break;
        }
        continue;
      }
      List<String> cells = cells(line);
      if (columns == null) {
        columns = cells;
      } else if (!cells.getFirst().startsWith("---")) {
        Map<String, String> row = new LinkedHashMap<>();
        for (int i = 0; i < columns.size(); i++) {
          row.put(columns.get(i), cells.get(i));
        }
        rows.add(row);
      }
    }
    if (columns == null) {
      throw new AssertionError("no table under " + heading);
    }
    return rows;
  }

  /** The one row of {@code table} whose cells include all of {@code match}. */
  static Map<String, String> row(List<Map<String, String>> table, Map<String, String> match) {
    List<Map<String, String>> found = table.stream()
        .filter(r -> match.entrySet().stream().allMatch(e -> e.getValue().equals(r.get(e.getKey())))).toList();
    if (found.size() != 1) {
      throw new AssertionError("expected one row matching " + match + ", found " + found.size() + " in " + table);
    }
    return found.getFirst();
  }

  private static List<String> cells(String line) {
    String inner = line.strip();
    inner = inner.substring(1, inner.length() - 1);
    List<String> cells = new ArrayList<>();
    for (String cell : inner.split("\\|", -1)) {
      cells.add(cell.strip());
    }
    return cells;
  }
}
