package dev.memwall.join.grace;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.spill.SpillException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The measured rates the hybrid hash join's split is chosen from, in bytes per second: writing and
 * reading spill pages in a directory, and joining in memory (the host's rate).
 *
 * @param diskReadBytesPerSecond reading spill pages back
 * @param diskWriteBytesPerSecond writing spill pages
 * @param memoryBytesPerSecond partitioning and joining tuples in memory
 */
public record SpillRates(double diskReadBytesPerSecond, double diskWriteBytesPerSecond, double memoryBytesPerSecond) {
  private static final Map<Path, double[]> MEASURED = new ConcurrentHashMap<>();
  private static final int PAGE = 64 << 10;
  private static final int PAGES = 64;

  public SpillRates {
    if (!(diskReadBytesPerSecond > 0 && diskWriteBytesPerSecond > 0 && memoryBytesPerSecond > 0)) {
      throw new IllegalArgumentException("rates must be positive: " + diskReadBytesPerSecond + ", "
          + diskWriteBytesPerSecond + ", " + memoryBytesPerSecond);
    }
  }

  /**
   * Rates for spilling under {@code root}: disk rates measured once per directory and process by
   * writing and reading back 4 MiB in spill-sized pages (through the page cache, as the join
   * does); the memory rate from {@code profile}'s one-core copy bandwidth (GB/s), a tuple being
   * written once and read once by a partitioning pass.
   */
  public static SpillRates measure(Path root, MachineProfile profile) {
    double[] disk = MEASURED.computeIfAbsent(root.toAbsolutePath(), SpillRates::measureDisk);
    double copy = profile.bandwidth().copyOneCore();
    double memory = (copy > 0 ? copy : 1) * 1e9 / 2;
    return new SpillRates(disk[0], disk[1], memory);
  }

  /** Measured in a spill directory of this process (a probe file a kill leaves behind is swept like any spill file). */
  private static double[] measureDisk(Path root) {
    try (dev.memwall.core.spill.SpillDirectory directory = dev.memwall.core.spill.SpillDirectory.create(root,
        Long.MAX_VALUE, SpillDirectory.OPERATOR)) {
      Path file = Files.createFile(directory.path().resolve("rate.probe"));
      ByteBuffer page = ByteBuffer.allocateDirect(PAGE);
      double write;
      double read;
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
        long start = System.nanoTime();
        for (int p = 0; p < PAGES; p++) {
          page.clear();
          while (page.hasRemaining()) {
            channel.write(page, (long) p * PAGE + page.position());
          }
        }
        write = (double) PAGE * PAGES / Math.max(1, System.nanoTime() - start) * 1e9;
        start = System.nanoTime();
        for (int p = 0; p < PAGES; p++) {
          page.clear();
          while (page.hasRemaining() && channel.read(page, (long) p * PAGE + page.position()) >= 0) {
            // fill the page
          }
        }
        read = (double) PAGE * PAGES / Math.max(1, System.nanoTime() - start) * 1e9;
      }
      return new double[] {read, write};
    } catch (IOException | SpillException e) {
      return new double[] {100e6, 100e6}; // cannot measure: assume a plain disk, the choice stays safe
    }
  }
}
