package dev.memwall.hw;

import dev.memwall.core.CacheDirectory;
import dev.memwall.core.machine.MachineProfile;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The tools' side of the machine profile: where the library never measures on its own, the command
 * line and the benchmarks plan with a calibrated profile. {@link #install} loads the one stored in
 * the cache directory (or calibrates quickly, saying so, and stores it) and names it in
 * {@value MachineProfile#PROPERTY}, so every cost model in this process reads it.
 */
public final class CalibratedProfile {
  private CalibratedProfile() {}

  /**
   * The calibrated profile of this machine, now also {@link MachineProfile#current()}; a property the
   * user set is left alone. Calibrating takes a few seconds, announced on {@code err} (may be null).
   */
  public static MachineProfile install(PrintWriter err) {
    if (System.getProperty(MachineProfile.PROPERTY) != null) {
      return MachineProfile.current();
    }
    Path dir = CacheDirectory.root();
    if (MachineProfile.load(dir).isEmpty() && err != null) {
      err.println("memwall: calibrating this machine once (a few seconds; './memwall calibrate --refresh' "
          + "measures it fully), stored in " + dir);
      err.flush();
    }
    MachineProfile profile = MachineProfile.loadOrCalibrate(dir);
    if (Files.isRegularFile(dir.resolve(MachineProfile.FILE_NAME))) {
      System.setProperty(MachineProfile.PROPERTY, dir.toString());
      return MachineProfile.current();
    }
    return profile; // an unwritable cache directory: this run plans with what it measured
  }
}
