package dev.memwall.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.ChildJvm;
import dev.memwall.core.machine.MachineProfile;
import dev.memwall.hw.CalibratedProfile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file system that fills up: the data generation of {@code memwall tpch} and three spilling
 * operators (external sort, spilling aggregation, GRACE join) on a tmpfs of a few MiB, each in a
 * child JVM in a user and mount namespace of its own ({@code unshare -rm}, {@link SmallFileSystemScenario}),
 * where no root is needed to mount one. Every case must end in a named error (the file and "No space
 * left on device", exit code 3 from the command line) and leave nothing behind: no temporary file, no
 * spill file, no half data set; and a later run with room must succeed.
 *
 * <p>Skipped (a JUnit assumption) where user namespaces or tmpfs mounts in them are not allowed, as on
 * hosts that restrict unprivileged user namespaces.
 */
class SmallFileSystemTest {
  @TempDir static Path work;

  @BeforeAll
  static void namespacesAllowMountingATmpfs() throws Exception {
    Path probe = Files.createDirectory(work.resolve("probe"));
    String output;
    int exit;
    try {
      Process unshare = new ProcessBuilder("unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs \"$0\"",
          probe.toString()).redirectErrorStream(true).start();
      output = new String(unshare.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      exit = unshare.waitFor(60, TimeUnit.SECONDS) ? unshare.exitValue() : -1;
    } catch (IOException e) {
      output = e.getMessage();
      exit = -1;
    }
    Assumptions.assumeTrue(exit == 0, "no tmpfs in a user and mount namespace here (unshare -rm: " + output + ")");
    CalibratedProfile.install(null); // measured here once, if ever, so that no child announces it on stderr
  }

  @Test
  void generationThatFillsTheDiskIsANamedErrorAndLeavesNoHalfDataSet() throws Exception {
    Map<String, String> seen = scenario("generate");
    Path set = work.resolve("generate").resolve("data").resolve("sf0.01");

    assertEquals("3", seen.get("small.exit"), "2 MiB: " + seen);
    assertEquals("memwall tpch: TPC-H data directory " + set + ": SF 0.01 needs about 9.2 MiB of disk, only 2.0 MiB"
        + " are free there", seen.get("small.err"));
    assertEquals("[]", seen.get("small.left"), "refused before anything is written");

    assertEquals("3", seen.get("full.exit"), "filled in the middle: " + seen);
    assertTrue(Pattern.matches(Pattern.quote("memwall tpch: TPC-H data directory " + set + ": cannot write ")
        + "(\\w+) part 1 \\(" + Pattern.quote(set.toString()) + "/\\1-1\\.arrow\\.tmp: No space left on device\\)",
        seen.get("full.err")), "the table, the file and the reason: " + seen.get("full.err"));
    assertEquals("[data, data/sf0.01, data/sf0.01/.memwall.lock]", seen.get("full.left"),
        "no temporary file, no data file, no manifest");

    assertEquals("0", seen.get("roomy.exit"), "with room again: " + seen);
    assertTrue(seen.get("roomy.out").contains("|Q6              1 "), seen.get("roomy.out"));
    assertEquals("[data, data/sf0.01, data/sf0.01/.memwall.lock, data/sf0.01/_COMPLETE, data/sf0.01/_STATISTICS,"
        + " data/sf0.01/customer-1.arrow, data/sf0.01/lineitem-1.arrow, data/sf0.01/nation-1.arrow, data/sf0.01/orders-1.arrow,"
        + " data/sf0.01/part-1.arrow, data/sf0.01/partsupp-1.arrow, data/sf0.01/region-1.arrow,"
        + " data/sf0.01/supplier-1.arrow]", seen.get("roomy.left"));
    assertEquals("0", seen.get("check.exit"), seen.get("check.err"));
    assertTrue(seen.get("check.out").endsWith("|  intact"), seen.get("check.out"));
    System.out.println("SmallFileSystemTest: generation on a small tmpfs: 2 of 2 failed runs named (refused before"
        + " writing at 2 MiB; " + seen.get("full.err").replaceAll(".*cannot write (\\w+) part.*", "$1")
        + " full after " + seen.get("full.filled") + " bytes taken by another writer), 2 of 2 left no data file,"
        + " 1 of 1 later run with room regenerated the set and passed check");
  }

  @Test
  void spillsThatFillTheDiskAreNamedErrorsAndLeaveNoFile() throws Exception {
    Map<String, String> seen = scenario("spill");
    Path root = work.resolve("spill").resolve("spill");
    List<String> tight = List.of(seen.get("tight").split(" \\|\\| "));
    assertEquals(3, tight.size(), seen.toString());
    String file = Pattern.quote(root.toString()) + "/memwall-spills-\\d+-[0-9a-f]+/memwall-spill-\\d+/[^ /]+\\.spill";
    for (String outcome : tight) {
      String operator = outcome.substring(0, outcome.indexOf(':'));
      assertTrue(Pattern.matches(operator + ": (Spill|JoinSpill)Exception DISK_FULL .*spill file " + file
          + ": No space left on device; .* \\| left: \\[spill\\]", outcome), outcome);
    }
    assertEquals("sort: ok | left: [spill] || aggregation: ok | left: [spill] || join: ok | left: [spill]",
        seen.get("roomy"), "with room, every operator's result equals its result in memory");
    assertEquals("0", seen.get("live"), "no spill directory open");
    System.out.println("SmallFileSystemTest: spilling on a 1 MiB tmpfs: 3 of 3 operators (sort, aggregation, GRACE"
        + " join) failed with DISK_FULL naming the spill file, 3 of 3 left no spill file, 3 of 3 gave the in-memory"
        + " result with 64 MiB");
  }

  /** Runs {@link SmallFileSystemScenario} {@code name} in a namespace of its own; what it saw, by key. */
  private static Map<String, String> scenario(String name) throws Exception {
    Path mount = Files.createDirectory(work.resolve(name));
    List<String> java = ChildJvm.command(SmallFileSystemScenario.class, name, mount.toString(), work.toString());
    List<String> command = new ArrayList<>(List.of("unshare", "-rm", java.getFirst(), "-XX:-UsePerfData"));
    if (System.getProperty(MachineProfile.PROPERTY) != null) {
      command.add("-D" + MachineProfile.PROPERTY + "=" + System.getProperty(MachineProfile.PROPERTY));
    }
    command.addAll(java.subList(1, java.size()));
    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    System.out.println(output.strip()); // what the test asserts on, for the record
    assertTrue(child.waitFor(600, TimeUnit.SECONDS), "the scenario did not end");
    assertEquals(0, child.exitValue(), output);
    Map<String, String> seen = new LinkedHashMap<>();
    for (String line : output.lines().toList()) {
      if (line.startsWith("@")) {
        int space = line.indexOf(' ');
        seen.put(line.substring(1, space), line.substring(space + 1));
      }
    }
    return seen;
  }
}
