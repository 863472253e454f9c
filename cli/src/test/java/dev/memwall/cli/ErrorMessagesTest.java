package dev.memwall.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import org.junit.jupiter.api.Test;

/** File problems reach the user as what went wrong and where, never as an exception's class name. */
class ErrorMessagesTest {
  @Test
  void fileProblemsSayWhatWentWrongAndWhere() {
    assertEquals("permission denied: /data/sf1", MemwallCli.oneLine(new AccessDeniedException("/data/sf1")));
    assertEquals("not found: /data/sf1/_COMPLETE", MemwallCli.oneLine(new NoSuchFileException("/data/sf1/_COMPLETE")));
    assertEquals("not a directory: /r/charts", MemwallCli.oneLine(new NotDirectoryException("/r/charts")));
    assertEquals("No space left on device: /data/sf1/orders-1.arrow.tmp",
        MemwallCli.oneLine(new FileSystemException("/data/sf1/orders-1.arrow.tmp", null, "No space left on device")));
    assertEquals("Read-only file system: /data/sf1/a (and /data/sf1/b)",
        MemwallCli.oneLine(new FileSystemException("/data/sf1/a", "/data/sf1/b", "Read-only file system")));
    AccessDeniedException denied = new AccessDeniedException("/r");
    assertEquals("cannot write the report into /r: permission denied: /r",
        MemwallCli.oneLine(new IOException("cannot write the report into /r: " + denied, denied)));
    assertEquals(MemwallCli.EXIT_RESOURCE, MemwallCli.exitCode(denied));
  }
}
