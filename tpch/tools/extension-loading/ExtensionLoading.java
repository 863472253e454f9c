import io.substrait.extension.SimpleExtension;
import java.lang.reflect.Method;

/**
 * One measurement of loading Substrait's default function extensions in this JVM: {@code substrait}
 * ({@link SimpleExtension#loadDefaults}) or {@code memwall} (engine-sql's {@code DefaultExtensions},
 * reached by reflection as it is package-private). Prints the first load (the cost the SQL path's
 * first statement in a process pays) and the mean of {@code WARM} loads after it. run.sh starts a
 * fresh JVM per measurement and alternates the two. Usage: ExtensionLoading substrait|memwall WARM
 */
public class ExtensionLoading {
  public static void main(String[] args) throws Exception {
    Method memwall = Class.forName("dev.memwall.sql.DefaultExtensions").getDeclaredMethod("load");
    memwall.setAccessible(true);
    boolean ours = args[0].equals("memwall");
    int warm = Integer.parseInt(args[1]);
    long start = System.nanoTime();
    Object first = ours ? memwall.invoke(null) : SimpleExtension.loadDefaults();
    long loaded = System.nanoTime();
    for (int i = 0; i < warm; i++) {
      Object again = ours ? memwall.invoke(null) : SimpleExtension.loadDefaults();
      if (!again.equals(first)) {
        throw new AssertionError("two loads differ");
      }
    }
    long end = System.nanoTime();
    System.out.printf("%-9s first %6.0f ms, then %6.1f ms a load (%d loads)%n", args[0], (loaded - start) / 1e6,
        (end - loaded) / 1e6 / Math.max(1, warm), warm);
  }
}
