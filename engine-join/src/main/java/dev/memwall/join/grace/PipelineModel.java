package dev.memwall.join.grace;

import java.util.Comparator;
import java.util.List;

/**
 * The pipeline cost model of seed 004 (Stoumpos and Delis, section 2): one step of a join reads
 * {@code N_in} bytes from {@code d} disks, processes them on the disks' own processors (which pass
 * {@code N_mid} bytes on), ships them over the bus to the host, processes them there, and ships and
 * writes {@code N_out} bytes back. Stages sharing a resource time-share it, so the step lasts as
 * long as its slowest resource (eq. 1):
 *
 * <pre>
 * T = max( N_in / (d B_read) + N_out / (d B_write),  (N_mid + N_out) / B_bus,
 *          N_in w_disk / (d S_disk),  N_mid w_host / S_host )
 * </pre>
 *
 * and each stage's throughput is the data it produces over the time its resource needs (eq. 2-7).
 * In memwall the "disk" stage is whatever runs beside the host's hash table (the partitions a
 * hybrid hash join spills, or a second worker pool), and the model chooses the split between them
 * ({@link #balancedShare}, eq. 8). Immutable and thread-safe; rates in bytes or instructions per
 * second.
 *
 * @param system the machine
 * @param step one pipeline step
 */
public record PipelineModel(SystemParameters system, Step step) {
  /**
   * The machine (seed 004, Table 1).
   *
   * @param hostSpeed {@code S_host}, host instructions per second
   * @param diskSpeed {@code S_disk}, instructions per second of one disk's processor
   * @param busBandwidth {@code B_bus}, bytes per second between disks and host
   * @param diskReadBandwidth {@code B_read}, bytes per second one disk reads
   * @param writeToReadRatio {@code alpha = B_write / B_read}
   * @param disks {@code d}
   */
  public record SystemParameters(double hostSpeed, double diskSpeed, double busBandwidth, double diskReadBandwidth,
      double writeToReadRatio, int disks) {
    public SystemParameters {
      if (!(hostSpeed > 0 && diskSpeed > 0 && busBandwidth > 0 && diskReadBandwidth > 0 && writeToReadRatio > 0)
          || disks < 1) {
        throw new IllegalArgumentException("speeds, bandwidths and the write/read ratio must be positive and disks"
            + " at least 1: " + this);
      }
    }

    double diskWriteBandwidth() {
      return writeToReadRatio * diskReadBandwidth;
    }
  }

  /**
   * One pipeline step (seed 004, Table 2).
   *
   * @param inputBytes {@code N_in}, read from the disks
   * @param middleBytes {@code N_mid}, what the disk stage passes to the host
   * @param outputBytes {@code N_out}, written back
   * @param diskInstructionsPerByte {@code w_disk}, per byte of input
   * @param hostInstructionsPerByte {@code w_host}, per byte the host receives
   */
  public record Step(double inputBytes, double middleBytes, double outputBytes, double diskInstructionsPerByte,
      double hostInstructionsPerByte) {
    public Step {
      if (!(inputBytes > 0) || middleBytes < 0 || outputBytes < 0 || diskInstructionsPerByte < 0
          || hostInstructionsPerByte < 0) {
        throw new IllegalArgumentException("a pipeline step needs positive input and no negative size or work: " + this);
      }
    }
  }

  /** The resources whose time-shared stages bound a step. */
  public enum Resource { DISKS, BUS, DISK_PROCESSORS, HOST }

  /** The time one resource needs for the step, if it were the only limit. */
  public record ResourceTime(Resource resource, double seconds) {}

  /** The time each resource needs, in {@link Resource} order. */
  public List<ResourceTime> resourceTimes() {
    SystemParameters s = system;
    int d = s.disks();
    return List.of(
        new ResourceTime(Resource.DISKS,
            step.inputBytes() / (d * s.diskReadBandwidth()) + step.outputBytes() / (d * s.diskWriteBandwidth())),
        new ResourceTime(Resource.BUS, (step.middleBytes() + step.outputBytes()) / s.busBandwidth()),
        new ResourceTime(Resource.DISK_PROCESSORS, step.inputBytes() * step.diskInstructionsPerByte() / (d * s.diskSpeed())),
        new ResourceTime(Resource.HOST, step.middleBytes() * step.hostInstructionsPerByte() / s.hostSpeed()));
  }

  /** Eq. 1: the step's response time, its slowest resource's. */
  public double responseSeconds() {
    return bottleneck().seconds();
  }

  /** The resource that bounds the step (the first of equals in {@link Resource} order). */
  public ResourceTime bottleneck() {
    return resourceTimes().stream().max(Comparator.comparingDouble(ResourceTime::seconds)).orElseThrow();
  }

  /** Eq. 2: bytes per second read, the disks time-shared with writing. */
  public double readRate() {
    double a = system.writeToReadRatio();
    return a * step.inputBytes() / (step.outputBytes() + a * step.inputBytes()) * system.disks()
        * system.diskReadBandwidth();
  }

  /** Eq. 3: bytes per second written. */
  public double writeRate() {
    double a = system.writeToReadRatio();
    return a * step.outputBytes() / (step.outputBytes() + a * step.inputBytes()) * system.disks()
        * system.diskReadBandwidth();
  }

  /** Eq. 4: bytes per second shipped up to the host, the bus time-shared with shipping down. */
  public double upRate() {
    return step.middleBytes() / (step.middleBytes() + step.outputBytes()) * system.busBandwidth();
  }

  /** Eq. 5: bytes per second shipped down to the disks. */
  public double downRate() {
    return step.outputBytes() / (step.middleBytes() + step.outputBytes()) * system.busBandwidth();
  }

  /** Eq. 6: bytes per second the disk processors pass on; infinite when they do no work. */
  public double diskRate() {
    return step.diskInstructionsPerByte() == 0 ? Double.POSITIVE_INFINITY
        : step.middleBytes() / step.inputBytes() * system.disks() * system.diskSpeed() / step.diskInstructionsPerByte();
  }

  /** Eq. 7: bytes per second the host produces; infinite when it does no work. */
  public double hostRate() {
    return step.hostInstructionsPerByte() == 0 ? Double.POSITIVE_INFINITY
        : step.outputBytes() / step.middleBytes() * system.hostSpeed() / step.hostInstructionsPerByte();
  }

  /**
   * Eq. 8: the share {@code rho} of the work to give the disk side so that both sides' processing
   * lasts the same, {@code rho / (1 - rho) = d S_disk / S_host}.
   */
  public static double balancedShare(SystemParameters system) {
    double disks = system.disks() * system.diskSpeed();
    return disks / (disks + system.hostSpeed());
  }

  /**
   * Eq. 9 (and GRACE's {@code k = ceil(F |R| / M)}): the iterations a join of a build side of
   * {@code buildBytes} needs so that neither side's hash tables overflow, with fudge factor
   * {@code fudge} (about 1.2), {@code share} of the build side on the disk side with
   * {@code diskMemory} per disk, the rest in {@code hostMemory}.
   */
  public static long iterations(double buildBytes, double fudge, double share, int disks, double diskMemory,
      double hostMemory) {
    if (!(share >= 0 && share <= 1) || !(fudge >= 1) || !(hostMemory > 0) || (share > 0 && !(diskMemory > 0))) {
      throw new IllegalArgumentException("share must lie in [0, 1], the fudge factor be at least 1 and memories positive");
    }
    double onDisks = share == 0 ? 0 : share * fudge * buildBytes / (disks * diskMemory);
    double onHost = (1 - share) * fudge * buildBytes / hostMemory;
    return Math.max(1, (long) Math.ceil(Math.max(onDisks, onHost)));
  }
}
