package dev.memwall.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns JMH JSON result files into a report directory: {@code README.md} plus PNG charts named
 * {@code <file>-<Class>-<mode>-<kind>.png} (kinds: {@code scores}, {@code speedup},
 * {@code per-element}).
 *
 * <p>All input is read and checked before anything is written, so a corrupt file or an option that
 * takes effect nowhere ({@code --baseline} matching no result, {@code --x-axis} naming no numeric
 * parameter that varies) leaves an existing report untouched. Each file is written to a temporary
 * name and renamed into place. Files of an earlier report that this one does not produce are left
 * alone.
 *
 * <p>Bad input gets a {@link ReportException} with a one-line message. Thread safety: stateless;
 * two reports into the same directory at once leave one of the two complete for every file.
 */
public final class ReportGenerator {
  /** The Markdown file's name inside the report directory. */
  public static final String MARKDOWN = "README.md";

  private static final Set<PosixFilePermission> READABLE = PosixFilePermissions.fromString("rw-r--r--");

  /** What a report wrote. */
  public record Output(Path markdown, List<Path> charts) {}

  private ReportGenerator() {}

  /** Writes the report for {@code inputs} (in order) into {@code directory}, created if missing. */
  public static Output generate(List<Path> inputs, Path directory, ReportSettings settings) throws ReportException {
    if (inputs.isEmpty()) {
      throw new ReportException("no result files to report on");
    }
    System.setProperty("java.awt.headless", "true");
    List<ReportGroup> groups = new ArrayList<>();
    List<String> sources = new ArrayList<>();
    for (Path input : inputs) {
      String source = input.getFileName().toString();
      sources.add(source);
      groups.addAll(ReportGroup.of(source, JmhResults.read(input), settings));
    }
    checkEveryOptionApplies(groups, settings);

    List<MarkdownReport.Section> sections = new ArrayList<>();
    List<byte[]> images = new ArrayList<>();
    List<String> imageNames = new ArrayList<>();
    Set<String> usedPrefixes = new HashSet<>();
    for (ReportGroup group : groups) {
      String prefix = uniquePrefix(group, usedPrefixes);
      List<MarkdownReport.ChartLink> links = new ArrayList<>();
      List<JmhCharts.Image> drawn;
      try {
        drawn = JmhCharts.draw(group);
      } catch (IOException | RuntimeException e) {
        throw new ReportException("cannot draw the charts of " + group.simpleClassName() + " in " + group.source()
            + ": " + e, e);
      }
      for (JmhCharts.Image image : drawn) {
        String name = prefix + "-" + image.kind() + ".png";
        links.add(new MarkdownReport.ChartLink(name, image.title()));
        images.add(image.png());
        imageNames.add(name);
      }
      sections.add(new MarkdownReport.Section(group, links));
    }
    String markdown = MarkdownReport.render(sources, sections);

    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new ReportException("cannot write the report into " + directory + ": " + reason(e), e);
    }
    List<Path> charts = new ArrayList<>();
    for (int i = 0; i < images.size(); i++) {
      charts.add(write(directory, imageNames.get(i), images.get(i)));
    }
    Path md = write(directory, MARKDOWN, markdown.getBytes(StandardCharsets.UTF_8));
    return new Output(md, List.copyOf(charts));
  }

  private static void checkEveryOptionApplies(List<ReportGroup> groups, ReportSettings settings)
      throws ReportException {
    for (ReportSettings.Scoped option : settings.scopedBaselines()) {
      String text = BaselineSelector.parse(option.value()).text();
      boolean used = groups.stream().anyMatch(g -> option.appliesTo(g.className())
          && "--baseline".equals(g.baselineOrigin()) && g.baseline().orElseThrow().text().equals(text));
      if (!used) {
        throw new ReportException("--baseline " + option.text() + " matches no benchmark"
            + option.className().map(c -> " of " + c).orElse("") + " in these results");
      }
    }
    for (ReportSettings.Scoped option : settings.scopedXAxes()) {
      boolean used = groups.stream().anyMatch(g -> option.appliesTo(g.className())
          && (option.value().equals("-") || option.value().equals(g.xParam().orElse(null))));
      if (!used) {
        throw new ReportException("--x-axis " + option.text() + ": no benchmark"
            + option.className().map(c -> " of " + c).orElse("") + " has a numeric parameter "
            + option.value() + " with several values in these results");
      }
    }
  }

  private static String uniquePrefix(ReportGroup group, Set<String> used) {
    String stem = group.source().replaceFirst("\\.json$", "");
    String base = sanitize(stem + "-" + group.simpleClassName() + "-" + group.mode());
    String prefix = base;
    for (int n = 2; !used.add(prefix); n++) {
      prefix = base + "-" + n;
    }
    return prefix;
  }

  private static String sanitize(String name) {
    return name.replaceAll("[^A-Za-z0-9._-]", "_");
  }

  private static Path write(Path directory, String name, byte[] bytes) throws ReportException {
    Path target = directory.resolve(name);
    Path temporary = null;
    try {
      temporary = Files.createTempFile(directory, "." + name + "-", ".tmp");
      Files.write(temporary, bytes);
      if (Files.getFileStore(temporary).supportsFileAttributeView(PosixFileAttributeView.class)) {
        Files.setPosixFilePermissions(temporary, READABLE); // temporary files start private
      }
      try {
        Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
      }
      return target;
    } catch (IOException e) {
      throw new ReportException("cannot write the report into " + directory + ": " + reason(e), e);
    } finally {
      if (temporary != null) {
        try {
          Files.deleteIfExists(temporary);
        } catch (IOException ignored) {
          // the rename failed and so did the clean-up; the report error above is what matters
        }
      }
    }
  }

  private static String reason(IOException e) {
    String type = e.getClass().getSimpleName();
    return e.getMessage() == null ? type : type + " " + e.getMessage();
  }
}
