package dev.memwall.bench.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the JSON file JMH writes with {@code -rf json}: an array of result objects with
 * {@code benchmark}, {@code mode}, {@code params} and {@code primaryMetric}
 * ({@code score}, {@code scoreError}, {@code scoreUnit}).
 *
 * <p>Bad input: a missing or unreadable file, malformed JSON, or JSON that is not JMH's results (no
 * array, an entry without a benchmark name or a score) gets a {@link ReportException} whose one-line
 * message names the file, the place (line and column, or entry number) and what is wrong. JMH writes
 * an undefined error as the string {@code "NaN"}; that is read as {@link Double#NaN}.
 *
 * <p>Thread safety: stateless.
 */
public final class JmhResults {
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private JmhResults() {}

  /** The results in {@code file}, in the file's order; never empty. */
  public static List<JmhResult> read(Path file) throws ReportException {
    JsonNode root;
    try (var reader = Files.newBufferedReader(file)) {
      root = JSON.readTree(reader);
    } catch (NoSuchFileException e) {
      throw new ReportException(file + ": no such file");
    } catch (JsonProcessingException e) {
      var location = e.getLocation();
      String where = location == null ? "" : " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
      throw new ReportException(file + " is not valid JSON" + where + ": " + firstLine(e.getOriginalMessage()), e);
    } catch (IOException e) {
      throw new ReportException(file + ": cannot read: " + e.getMessage(), e);
    }
    if (root == null || root.isMissingNode()) {
      throw new ReportException(file + " is empty, not JMH's JSON results (-rf json)");
    }
    if (!root.isArray()) {
      throw new ReportException(file + " is not JMH's JSON results (-rf json): expected an array of results, found "
          + root.getNodeType().toString().toLowerCase(java.util.Locale.ROOT));
    }
    if (root.isEmpty()) {
      throw new ReportException(file + " holds no benchmark results (an empty array)");
    }
    List<JmhResult> results = new ArrayList<>(root.size());
    for (int i = 0; i < root.size(); i++) {
      results.add(entry(file, i, root.get(i)));
    }
    return results;
  }

  private static JmhResult entry(Path file, int index, JsonNode node) throws ReportException {
    String where = file + ", result #" + (index + 1);
    if (!node.isObject()) {
      throw new ReportException(where + " is not an object; is this JMH's JSON results (-rf json)?");
    }
    String benchmark = text(node, "benchmark", where);
    if (benchmark.lastIndexOf('.') <= 0 || benchmark.endsWith(".")) {
      throw new ReportException(where + ": benchmark '" + benchmark + "' is not Class.method");
    }
    String mode = text(node, "mode", where);
    JsonNode metric = node.get("primaryMetric");
    if (metric == null || !metric.isObject()) {
      throw new ReportException(where + " (" + benchmark + ") has no primaryMetric; is this JMH's JSON results (-rf json)?");
    }
    double score = number(metric, "score", where + " primaryMetric", false);
    double error = number(metric, "scoreError", where + " primaryMetric", true);
    String unit = text(metric, "scoreUnit", where + " primaryMetric");
    Map<String, String> params = new LinkedHashMap<>();
    JsonNode paramNode = node.get("params");
    if (paramNode != null && !paramNode.isNull()) {
      if (!paramNode.isObject()) {
        throw new ReportException(where + ": params is not an object");
      }
      for (var field : paramNode.properties()) {
        if (!field.getValue().isValueNode() || field.getValue().isNull()) {
          throw new ReportException(where + ": param " + field.getKey() + " has no value");
        }
        params.put(field.getKey(), field.getValue().asText());
      }
    }
    var run = new JmhResult.RunSettings(node.path("jmhVersion").asText(""), node.path("vmName").asText(""),
        node.path("vmVersion").asText(""), node.path("forks").asInt(0), node.path("threads").asInt(0),
        node.path("warmupIterations").asInt(0), node.path("warmupTime").asText(""),
        node.path("measurementIterations").asInt(0), node.path("measurementTime").asText(""));
    return new JmhResult(benchmark, mode, params, score, error, unit, run);
  }

  private static String text(JsonNode node, String field, String where) throws ReportException {
    JsonNode value = node.get(field);
    if (value == null || !value.isTextual() || value.asText().isBlank()) {
      throw new ReportException(where + " has no " + field + "; is this JMH's JSON results (-rf json)?");
    }
    return value.asText();
  }

  private static double number(JsonNode node, String field, String where, boolean nanAllowed) throws ReportException {
    JsonNode value = node.get(field);
    if (value != null && value.isNumber()) {
      return value.asDouble();
    }
    if (value != null && value.isTextual() && value.asText().equals("NaN") && nanAllowed) {
      return Double.NaN;
    }
    throw new ReportException(where + " has no numeric " + field + (value == null ? "" : " (found " + value + ")"));
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "malformed";
    }
    int newline = message.indexOf('\n');
    return (newline < 0 ? message : message.substring(0, newline)).strip();
  }
}
