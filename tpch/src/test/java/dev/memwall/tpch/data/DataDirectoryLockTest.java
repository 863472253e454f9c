package dev.memwall.tpch.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.ChildJvm;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.stats.StatisticsFile;
import dev.memwall.core.memory.LeakCheck;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Concurrent runs on one data directory: two and three processes ({@link DataLockChild}) and three
 * threads loading (generating) and querying the same empty directory all succeed, with files equal
 * byte for byte to a single run's and the same query results; a generator waits for open databases
 * and readers wait for a generator; a thread that reads a directory and asks to write it is refused.
 */
@ExtendWith(LeakCheck.class)
class DataDirectoryLockTest {
  private static final double SF = 0.01;

  @TempDir static Path referenceCache;
  private static Map<String, String> reference;
  private static String referenceResults;

  @TempDir Path cache;

  @BeforeAll
  static void singleRun() throws Exception {
    try (EngineMemory memory = EngineMemory.create("reference");
         TpchDatabase db = TpchDatabase.load(referenceCache, SF, new TpchDataGenerator(1, true), memory)) {
      referenceResults = DataLockChild.results(db, memory);
    }
    reference = digests(TpchDataGenerator.dataDirectory(referenceCache, SF));
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void processesGeneratingAndQueryingOneDirectoryAllSucceed(int processes) throws Exception {
    List<Process> children = new ArrayList<>();
    try {
      for (int i = 0; i < processes; i++) {
        children.add(child(cache));
      }
      for (Process child : children) {
        assertTrue(child.waitFor(180, TimeUnit.SECONDS), "a child did not finish");
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("result " + referenceResults), "results differ from a single run's: " + output);
      }
    } finally {
      children.forEach(Process::destroyForcibly);
    }
    assertEquals(reference, digests(TpchDataGenerator.dataDirectory(cache, SF)));
  }

  @Test
  void threadsLoadingOneDirectoryAllSucceed() throws Exception {
    int threads = 3;
    CyclicBarrier start = new CyclicBarrier(threads);
    List<CompletableFuture<String>> runs = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      runs.add(CompletableFuture.supplyAsync(() -> {
        try (EngineMemory memory = EngineMemory.create("thread")) {
          start.await();
          try (TpchDatabase db = TpchDatabase.load(cache, SF, new TpchDataGenerator(1, true), memory)) {
            return DataLockChild.results(db, memory);
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, runnable -> Thread.ofPlatform().start(runnable)));
    }
    for (CompletableFuture<String> run : runs) {
      assertEquals(referenceResults, run.get(180, TimeUnit.SECONDS));
    }
    assertEquals(reference, digests(TpchDataGenerator.dataDirectory(cache, SF)));
  }

  @Test
  void aGeneratorWaitsForOpenDatabasesAndReadersForTheGenerator(EngineMemory memory) throws Exception {
    Path dir = TpchDataGenerator.dataDirectory(cache, SF);
    TpchDataGenerator generator = new TpchDataGenerator(1, true);
    generator.ensure(dir, SF, memory);
    String before = identity(dir.resolve(TpchManifest.FILE_NAME));
    CompletableFuture<TpchManifest> regeneration;
    try (TpchDatabase db = TpchDatabase.open(dir, SF, memory)) {
      regeneration = CompletableFuture.supplyAsync(() -> {
        try (EngineMemory own = EngineMemory.create("generator")) {
          return generator.generate(dir, SF, own);
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      }, runnable -> Thread.ofPlatform().start(runnable));
      Thread.sleep(500);
      assertFalse(regeneration.isDone(), "the generator must wait while a database is open");
      assertEquals(15_000, db.table("orders").rowCount()); // the files under the open database are intact
      // this thread reads the directory: asking to write it would wait for itself
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> generator.generate(dir, SF, memory));
      assertTrue(e.getMessage().contains("close the database first"), e.getMessage());
    }
    try (TpchDatabase db = TpchDatabase.open(dir, SF, memory)) { // waits for the regeneration if it still runs
      assertNotEquals(before, identity(dir.resolve(TpchManifest.FILE_NAME)),
          "a reader must wait for the generator, which rewrites the manifest");
      assertEquals(60_175, db.table("lineitem").rowCount());
    }
    regeneration.get(60, TimeUnit.SECONDS);
    assertEquals(reference, digests(dir));
  }

  /** The file's inode and modification time: a rewritten file differs in one at least. */
  private static String identity(Path file) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
    return attributes.fileKey() + "@" + attributes.lastModifiedTime();
  }

  private static Process child(Path cache) throws IOException {
    return ChildJvm.start(DataLockChild.class, cache.toString());
  }

  /**
   * SHA-256 of every file of the data set by name, but for the lock file and the statistics sidecar,
   * which holds the parts' modified times (so differs between runs) and is only checked to be valid.
   */
  private static Map<String, String> digests(Path dir) throws IOException, NoSuchAlgorithmException {
    Map<String, String> digests = new TreeMap<>();
    assertEquals(8, StatisticsFile.read(dir).size(), "the sidecar describes every part");
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.filter(f -> !f.getFileName().toString().equals(DataDirectoryLock.FILE_NAME)
          && !f.getFileName().toString().equals(StatisticsFile.FILE_NAME)).toList()) {
        digests.put(file.getFileName().toString(),
            HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file))));
      }
    }
    assertEquals(9, digests.size(), "eight tables' files and the manifest: " + digests.keySet());
    return digests;
  }
}
