package dev.memwall.tpch.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.core.ipc.ArrowFiles;
import dev.memwall.core.ipc.CorruptArrowFileException;
import dev.memwall.core.memory.EngineMemory;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.core.vector.Table;
import dev.memwall.tpch.data.ArrowFileLayout.Kind;
import dev.memwall.tpch.data.ArrowFileLayout.Span;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.TreeMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fault injection on a generated SF 0.01 data set: random bytes of every kind of Arrow buffer
 * (fixed-width values, validity bitmaps, string offsets, dictionary indices, string bytes, the
 * dictionaries, the batches' metadata) flipped one at a time; truncated, swapped and deleted files,
 * a corrupt manifest, an unreadable file. Every case must end in a named error (the checksum
 * mismatch naming file, table and batch) or a repaired data set, never a wrong result or a crash.
 * Prints the counts (tried / detected by the checksums / detected by the structural validation
 * alone, which is all a caller's own Arrow files get / repaired / silent).
 */
@ExtendWith(LeakCheck.class)
class DataSetFaultInjectionTest {
  private static final double SF = 0.01;
  private static final int TRIALS_PER_KIND = 12;

  @TempDir Path cache;
  private Path dir;
  private final Map<Path, byte[]> pristine = new TreeMap<>();

  @BeforeEach
  void generate() throws IOException {
    dir = TpchDataGenerator.dataDirectory(cache, SF);
    try (EngineMemory memory = EngineMemory.create("generate")) {
      new TpchDataGenerator(2, true, 20_000).ensure(dir, SF, memory); // several files for the large tables
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".arrow")).toList()) {
        pristine.put(file, Files.readAllBytes(file));
      }
    }
  }

  @Test
  void everyFlippedByteIsDetectedNamingFileTableAndBatch(EngineMemory memory) throws IOException {
    List<Span> spans = new ArrayList<>();
    for (Path file : pristine.keySet()) {
      spans.addAll(ArrowFileLayout.spans(file));
    }
    long seed = Long.getLong("memwall.faultSeed", new Random().nextLong()); // -Dmemwall.faultSeed=N replays a run
    Random random = new Random(seed);
    Map<Kind, int[]> counts = new EnumMap<>(Kind.class); // tried, by checksum, by structure alone
    for (Kind kind : Kind.values()) {
      List<Span> ofKind = spans.stream().filter(s -> s.kind() == kind && s.length() > 0).toList();
      assertFalse(ofKind.isEmpty(), "no buffer of kind " + kind);
      int[] count = counts.computeIfAbsent(kind, k -> new int[3]);
      for (int trial = 0; trial < TRIALS_PER_KIND; trial++) {
        Span span = ofKind.get(random.nextInt(ofKind.size()));
        long at = span.offset() + (long) (random.nextDouble() * span.length());
        int mask = 1 + random.nextInt(255);
        String fault = kind + " byte " + at + " ^ " + mask + " of " + span + " (seed " + seed + ")";
        flip(span.file(), at, mask);
        try {
          count[0]++;
          try (Table mapped = ArrowFiles.map(span.file(), memory)) {
            assertTrue(mapped.rowCount() >= 0); // structure alone missed it: a wrong value, not a crash
          } catch (CorruptArrowFileException e) {
            assertTrue(e.getMessage().contains(span.file().toString()), e.getMessage());
            count[2]++;
          }
          DataSetVerification.forget();
          CorruptDataSetException e = assertThrows(CorruptDataSetException.class,
              () -> TpchDatabase.open(dir, SF, memory).close(), fault);
          String table = span.file().getFileName().toString().split("-")[0];
          assertEquals(table, e.table(), fault);
          assertTrue(e.getMessage().startsWith("corrupt TPC-H data file " + span.file() + " (table " + table + "): "),
              e.getMessage());
          if (kind != Kind.BATCH_METADATA && kind != Kind.DICTIONARY_VALUES && kind != Kind.VALIDITY) {
            assertEquals(span.batch(), e.batch(), fault + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("record batch " + span.batch() + " of "), e.getMessage());
          }
          count[1]++;
        } finally {
          flip(span.file(), at, mask);
        }
        assertEquals(0, memory.arrow().getAllocatedMemory(), "bytes left allocated after " + fault);
      }
    }
    DataSetVerification.forget();
    try (TpchDatabase db = TpchDatabase.open(dir, SF, memory)) { // every byte restored
      assertEquals(60_175, db.table("lineitem").rowCount());
    }
    StringBuilder report = new StringBuilder("fault injection (seed " + seed + "):\n");
    int[] total = new int[3];
    counts.forEach((kind, c) -> {
      report.append(String.format(Locale.ROOT, "  %-19s tried %3d  detected by checksum %3d  by structure alone %3d"
          + "  silent %d%n", kind, c[0], c[1], c[2], c[0] - c[1]));
      for (int i = 0; i < 3; i++) {
        total[i] += c[i];
      }
    });
    report.append(String.format(Locale.ROOT, "  %-19s tried %3d  detected by checksum %3d  by structure alone %3d"
        + "  silent %d", "all", total[0], total[1], total[2], total[0] - total[1]));
    System.out.println(report);
    assertEquals(total[0], total[1], "silent faults:\n" + report);
  }

  @Test
  void damagedFilesAreRepairedByLoad(EngineMemory memory) throws IOException {
    TpchDataGenerator generator = new TpchDataGenerator(1, true, 20_000);
    Path lineitem = TpchManifest.file(dir, "lineitem", 2);
    Path orders = TpchManifest.file(dir, "orders", 1);
    Path customer = TpchManifest.file(dir, "customer", 1);
    List<String> faults = List.of("flipped price", "truncated", "swapped", "zeroed tail");
    int repaired = 0;
    for (String fault : faults) {
      switch (fault) {
        case "flipped price" -> {
          Span price = ArrowFileLayout.spans(lineitem).stream()
              .filter(s -> s.column().equals("l_extendedprice")).findFirst().orElseThrow();
          flip(lineitem, price.offset() + 8, 0x10);
        }
        case "truncated" -> Files.write(orders, java.util.Arrays.copyOf(pristine.get(orders), 4096));
        case "swapped" -> {
          Files.move(orders, dir.resolve("swap"));
          Files.move(customer, orders);
          Files.move(dir.resolve("swap"), customer);
        }
        case "zeroed tail" -> {
          byte[] bytes = pristine.get(lineitem).clone();
          java.util.Arrays.fill(bytes, bytes.length - 64, bytes.length, (byte) 0);
          Files.write(lineitem, bytes);
        }
        default -> throw new IllegalStateException(fault);
      }
      DataSetVerification.forget();
      try (TpchDatabase db = TpchDatabase.load(cache, SF, generator, memory)) {
        assertEquals(15_000, db.table("orders").rowCount(), fault);
      }
      for (var file : pristine.entrySet()) {
        assertArrayEquals(file.getValue(), Files.readAllBytes(file.getKey()), fault + ": " + file.getKey());
      }
      repaired++;
    }
    System.out.println("fault injection: " + repaired + " of " + faults.size() + " damaged data sets repaired ("
        + String.join(", ", faults) + ")");
  }

  @Test
  void missingFilesAndBadManifestsAreNamedErrors(EngineMemory memory) throws IOException {
    Path manifest = dir.resolve(TpchManifest.FILE_NAME);
    String text = Files.readString(manifest);
    Files.writeString(manifest, text.replace("orders.files=1", "orders.files=0"));
    var zero = assertThrows(DataDirectoryException.class, () -> TpchDatabase.open(dir, SF, memory));
    assertTrue(zero.getMessage().contains("no complete data set"), zero.getMessage());
    Files.writeString(manifest, text.replaceFirst("(orders-1\\.arrow\\.crc32c=)[0-9a-f]{8}", "$1zzzzzzzz"));
    assertThrows(DataDirectoryException.class, () -> TpchDatabase.open(dir, SF, memory), "unreadable checksums");
    Files.writeString(manifest, text);
    Path region = TpchManifest.file(dir, "region", 1);
    Files.setPosixFilePermissions(region, PosixFilePermissions.fromString("---------"));
    try {
      Assumptions.assumeFalse(Files.isReadable(region), "the superuser reads unreadable files");
      DataSetVerification.forget();
      IOException denied = assertThrows(IOException.class, () -> TpchDatabase.open(dir, SF, memory));
      assertTrue(denied.getMessage().contains(region.toString()), denied.getMessage());
    } finally {
      Files.setPosixFilePermissions(region, PosixFilePermissions.fromString("rw-r--r--"));
    }
    Files.delete(region);
    var missing = assertThrows(DataDirectoryException.class, () -> TpchDatabase.open(dir, SF, memory));
    assertTrue(missing.getMessage().contains("no complete data set"), missing.getMessage());
  }

  private static void flip(Path file, long at, int mask) throws IOException {
    try (RandomAccessFile bytes = new RandomAccessFile(file.toFile(), "rw")) {
      bytes.seek(at);
      int value = bytes.read();
      bytes.seek(at);
      bytes.write(value ^ mask);
    }
  }
}
