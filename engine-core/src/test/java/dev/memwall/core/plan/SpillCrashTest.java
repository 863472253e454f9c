package dev.memwall.core.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.ChildJvm;
import dev.memwall.core.spill.SpillDirectory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spill hygiene across processes: a child JVM ({@link SpillChild}) spilling aggregations and sorts is
 * killed with SIGKILL at a random moment; what it leaves under the spill root is swept by the next
 * spill directory created there, and the root ends empty. A live child's files are never swept: it
 * keeps spilling while another process creates spill directories under the same root.
 */
class SpillCrashTest {
  @TempDir
  Path root;

  @Test
  void whatAKilledSpillerLeavesIsSweptByTheNextSpill() throws Exception {
    Random random = new Random();
    int withOperatorFiles = 0;
    for (int round = 0; round < 3; round++) {
      Child child = Child.start(root);
      try {
        child.await("ready");
        child.await("round 0");
        if (round == 0) {
          Thread.sleep(random.nextInt(1500)); // lands anywhere in a later aggregation or sort
        } else {
          awaitOperatorFiles(root); // lands while an operator has spilled, at a random moment of its spilling
          Thread.sleep(random.nextInt(20));
        }
        child.kill();
        List<Path> left = files(root);
        assertTrue(left.stream().anyMatch(p -> p.getFileName().toString().startsWith("memwall-spills-")),
            "the killed child left no owner directory: " + left);
        if (left.stream().filter(p -> p.toString().endsWith(".spill")).count() > 1) {
          withOperatorFiles++; // more than the held file: killed while an operator had spilled
        }
      } finally {
        child.kill();
      }
      try (SpillDirectory next = SpillDirectory.create(root, Long.MAX_VALUE, "next")) {
        assertEquals(List.of(next.path().getParent(), next.path()), files(root),
            "the next spill directory must have swept the killed child's files");
      }
      assertEquals(List.of(), files(root), "the root must end empty");
    }
    System.out.println("SpillCrashTest: " + withOperatorFiles + " of 3 kills landed while an operator had spill files");
    assertTrue(withOperatorFiles > 0, "no kill landed while an operator had spilled: the sweep was not tested");
  }

  /** Waits until some operator of the child (not only its held directory) has spill files. */
  private static void awaitOperatorFiles(Path root) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      try (Stream<Path> walk = Files.walk(root)) {
        if (walk.filter(p -> p.toString().endsWith(".spill")).count() > 1) {
          return;
        }
      } catch (UncheckedIOException e) {
        // a file vanished during the walk: look again
      }
      Thread.sleep(2);
    }
    throw new AssertionError("the child never spilled under " + root);
  }

  @Test
  void aLiveOwnersFilesAreNeverSwept() throws Exception {
    Child child = Child.start(root);
    try {
      child.await("ready");
      child.await("round 0");
      List<Path> owners = owners(root);
      assertEquals(1, owners.size(), "one owner directory: " + owners);
      for (int i = 0; i < 20; i++) {
        try (SpillDirectory mine = SpillDirectory.create(root, Long.MAX_VALUE, "mine")) {
          assertTrue(Files.isDirectory(owners.get(0)), "the live child's directory was swept");
          Thread.sleep(20);
        }
      }
      child.await("round 2"); // the child still spills: nothing of its was swept
      assertTrue(child.process.isAlive());
      assertTrue(Files.isDirectory(owners.get(0)));
    } finally {
      child.kill();
    }
    try (SpillDirectory next = SpillDirectory.create(root, Long.MAX_VALUE, "next")) {
      assertFalse(Files.exists(owners(root).stream().filter(p -> !p.equals(next.path().getParent())).findAny()
          .orElse(root.resolve("none"))), "the dead child's directory must be swept");
    }
    assertEquals(List.of(), files(root));
  }

  private static List<Path> owners(Path root) throws IOException {
    try (Stream<Path> list = Files.list(root)) {
      return list.filter(p -> Files.isDirectory(p) && p.getFileName().toString().startsWith("memwall-spills-"))
          .sorted().toList();
    }
  }

  /** Everything under {@code root}, in walk order, without the root. */
  private static List<Path> files(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(p -> !p.equals(root)).filter(p -> !p.toString().endsWith(".lock")).sorted().toList();
    }
  }

  /** A running {@link SpillChild} and its output, read by a thread of its own. */
  private record Child(Process process, BlockingQueue<String> lines, List<String> all) {
    static Child start(Path root) throws IOException {
      Process process = ChildJvm.start(SpillChild.class, root.toString());
      Child child = new Child(process, new LinkedBlockingQueue<>(), Collections.synchronizedList(new ArrayList<>()));
      Thread.ofPlatform().daemon().start(() -> {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8))) {
          for (String line; (line = out.readLine()) != null; ) {
            child.all.add(line);
            child.lines.add(line);
          }
        } catch (IOException ignored) {
          // the child was killed
        }
      });
      return child;
    }

    void await(String wanted) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (System.nanoTime() < deadline) {
        String line = lines.poll(1, TimeUnit.SECONDS);
        if (wanted.equals(line)) {
          return;
        }
        if (line == null && !process.isAlive()) {
          break;
        }
      }
      throw new AssertionError("the child never printed '" + wanted + "' (exit "
          + (process.isAlive() ? "none" : process.exitValue()) + "): " + all);
    }

    void kill() throws InterruptedException {
      process.toHandle().destroyForcibly(); // SIGKILL: no shutdown hook, no finally block runs
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }
}
