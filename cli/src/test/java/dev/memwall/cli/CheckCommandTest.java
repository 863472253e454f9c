package dev.memwall.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memwall.cli.MemwallCliTest.Run;
import dev.memwall.core.memory.LeakCheck;
import dev.memwall.tpch.data.TpchManifest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code memwall check}: an intact set passes with both passes timed; a flipped byte is a damaged
 * file named on stderr with exit code 3; {@code --repair} generates it again, byte for byte.
 */
@ExtendWith(LeakCheck.class)
class CheckCommandTest {
  @TempDir Path cache;

  @Test
  void checksRepairsAndNamesDamage() throws Exception {
    String data = cache.toString();
    Run missing = MemwallCliTest.execute(MemwallCli.commandLine(), "check", "--sf", "0.01", "--data", data);
    missing.failedWith(MemwallCli.EXIT_RESOURCE, "no complete data set");
    assertEquals(0, MemwallCliTest.execute(MemwallCli.commandLine(), "tpch", "--sf", "0.01", "--data", data,
        "--queries", "6", "--runs", "1", "--warmup", "0", "--verify", "none", "--quiet", "--report",
        cache.resolve("report").toString()).exitCode());

    Run intact = MemwallCliTest.execute(MemwallCli.commandLine(), "check", "--sf", "0.01", "--data", data);
    assertEquals(0, intact.exitCode(), intact.err() + intact.out());
    assertTrue(intact.out().contains("8 files") && intact.out().contains("checksums (CRC32C of every byte): ")
        && intact.out().contains("structure (") && intact.out().contains("intact"), intact.out());

    Path orders = TpchManifest.file(cache.resolve("sf0.01"), "orders", 1);
    byte[] bytes = Files.readAllBytes(orders);
    byte[] flipped = bytes.clone();
    flipped[bytes.length / 2] ^= 0x40;
    Files.write(orders, flipped);
    Run damaged = MemwallCliTest.execute(MemwallCli.commandLine(), "check", "--sf", "0.01", "--data", data);
    damaged.failedWith(MemwallCli.EXIT_RESOURCE, "corrupt TPC-H data file " + orders + " (table orders): record batch 0");
    assertTrue(damaged.out().contains("1 damaged file"), damaged.out());

    Run repaired = MemwallCliTest.execute(MemwallCli.commandLine(), "check", "--sf", "0.01", "--data", data, "--repair");
    assertEquals(0, repaired.exitCode(), repaired.err() + repaired.out());
    assertTrue(repaired.out().contains("repaired " + orders), repaired.out());
    assertArrayEquals(bytes, Files.readAllBytes(orders));
  }
}
