package dev.memwall.index.page;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * A file of fixed-size pages (4, 8, 16 or 32 KiB), memory-mapped through
 * {@link FileChannel#map(FileChannel.MapMode, long, long, Arena)} into an {@link Arena} this
 * object owns, with a CRC32C checksum on every page and two alternating commit records.
 *
 * <p><b>Layout.</b> Page 0 is the header (magic, {@linkplain #FORMAT_VERSION format version},
 * page size), pages 1 and 2 are commit records, pages from {@link #FIRST_DATA_PAGE} on belong to
 * the client. The first 4 bytes of every page hold the CRC32C of the page number and the page's
 * remaining bytes; {@link #write} sets it and {@link #read} checks it, so a torn, corrupted or
 * misplaced page is reported as a {@link CorruptPageException} naming the file and the page and is
 * never handed out.
 *
 * <p><b>Commits.</b> {@link #commit(long[])} forces every page to the device, then writes the
 * client's metadata (a few longs, such as a tree's root page) with a sequence number and checksum
 * into the older of the two commit records and forces it. A crash at any point leaves at least one
 * intact record, and {@link #open} picks the newest intact one: what was committed survives, what
 * was not is ignored. The client must never overwrite a page its last commit still references
 * (shadow paging), which is what makes this enough.
 *
 * <p><b>Growth.</b> {@link #allocatePage()} hands out page numbers past the pages in use, growing
 * the file by mapped chunks that double in size (zeros are written first, so a full disk is an
 * {@link PageFileFullException} here, never a fault on a mapped page later). The page limit given
 * at open is enforced the same way.
 *
 * <p><b>Memory.</b> The mappings are file-backed (the OS page cache), not engine heap memory, and
 * are unmapped by {@link #close()}; clients that cache pages copy them into budgeted frames (see
 * {@link BufferPool}).
 *
 * <p><b>Thread safety.</b> {@link #read} may run from any thread; everything else is for one
 * thread (the writer) at a time.
 *
 * <p><b>Bad input.</b> A page size outside 4-32 KiB or not a power of two, a file that is not a
 * page file, of another version or page size: {@link IllegalArgumentException} or
 * {@link PageFileFormatException}, with the file left as it was.
 */
public final class PageFile implements AutoCloseable {
  /** "MEMWALLP" in ASCII. */
  public static final long MAGIC = 0x4D454D57414C4C50L;
  /** The on-disk format this code reads and writes. */
  public static final int FORMAT_VERSION = 1;
  public static final int MIN_PAGE_BYTES = 4096;
  public static final int MAX_PAGE_BYTES = 32768;
  /** The first page number clients may use. */
  public static final int FIRST_DATA_PAGE = 3;
  /** Most longs of client metadata a commit record holds. */
  public static final int MAX_META_LONGS = 64;
  /** Bytes at the start of every page that the checksum occupies. */
  public static final int CHECKSUM_BYTES = 4;

  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
  private static final long HEADER_MAGIC = 8;
  private static final long HEADER_VERSION = 16;
  private static final long HEADER_PAGE_BYTES = 20;
  private static final long COMMIT_MAGIC = 0x434F4D4D49545245L; // "COMMITRE"
  private static final int FIRST_CHUNK_PAGES = 16;
  private static final int MADV_WILLNEED = 3;
  private static final MethodHandle MADVISE = madvise();

  private final Path path;
  private final FileChannel channel;
  private final Arena arena;
  private final int pageBytes;
  private final long maxPages;
  private final List<MemorySegment> chunks = new ArrayList<>();
  private long mappedPages;
  private int usedPages;
  private long commitSequence;
  private long[] committedMeta = new long[0];
  private boolean closed;
  /** The EWOM cost model, null until {@link #enableEwomModel()}. */
  private EwomModel ewom;

  private PageFile(Path path, FileChannel channel, int pageBytes, long maxPages) {
    this.path = path;
    this.channel = channel;
    this.pageBytes = pageBytes;
    this.maxPages = maxPages;
    this.arena = Arena.ofShared();
  }

  /**
   * Creates a new page file of {@code pageBytes} pages holding at most {@code maxPages} pages
   * (header and commit records included).
   *
   * @throws IllegalArgumentException for a bad page size or a limit below 4 pages
   * @throws UncheckedIOException if the file exists already or cannot be written
   */
  public static PageFile create(Path path, int pageBytes, long maxPages) {
    Objects.requireNonNull(path, "path");
    checkPageBytes(pageBytes);
    if (maxPages < FIRST_DATA_PAGE + 1 || maxPages > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("page limit must be " + (FIRST_DATA_PAGE + 1) + " .. " + Integer.MAX_VALUE
          + ", got " + maxPages);
    }
    FileChannel channel;
    try {
      channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
          StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create page file " + path, e);
    }
    PageFile file = new PageFile(path, channel, pageBytes, maxPages);
    try {
      file.ensureMapped(FIRST_DATA_PAGE);
      MemorySegment header = file.page(0);
      header.set(LONG, HEADER_MAGIC, MAGIC);
      header.set(INT, HEADER_VERSION, FORMAT_VERSION);
      header.set(INT, HEADER_PAGE_BYTES, pageBytes);
      file.seal(0, header);
      file.usedPages = FIRST_DATA_PAGE;
      file.force();
      return file;
    } catch (RuntimeException | Error e) {
      file.close();
      throw e;
    }
  }

  /**
   * Opens an existing page file; {@code expectedPageBytes} 0 accepts the file's page size.
   *
   * @throws PageFileFormatException if the file is not a page file, has another format version or
   *     another page size than expected; nothing is written to it then
   * @throws CorruptPageException if the header page fails its checksum, or neither commit record
   *     is intact while one was written
   */
  public static PageFile open(Path path, int expectedPageBytes, long maxPages) {
    Objects.requireNonNull(path, "path");
    if (expectedPageBytes != 0) {
      checkPageBytes(expectedPageBytes);
    }
    FileChannel channel;
    try {
      channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open page file " + path, e);
    }
    try {
      int pageBytes = readHeader(path, channel, expectedPageBytes);
      PageFile file = new PageFile(path, channel, pageBytes, Math.max(maxPages, FIRST_DATA_PAGE + 1));
      try {
        file.mapExisting();
        file.verifyHeaderPage();
        file.loadCommit();
        return file;
      } catch (RuntimeException | Error e) {
        file.close();
        throw e;
      }
    } catch (IOException e) {
      closeQuietly(channel);
      throw new UncheckedIOException("cannot read page file " + path, e);
    } catch (RuntimeException | Error e) {
      closeQuietly(channel);
      throw e;
    }
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // reporting the first failure matters more
    }
  }

  private static void checkPageBytes(int pageBytes) {
    if (pageBytes < MIN_PAGE_BYTES || pageBytes > MAX_PAGE_BYTES || Integer.bitCount(pageBytes) != 1) {
      throw new IllegalArgumentException("page size must be 4, 8, 16 or 32 KiB, got " + pageBytes + " bytes");
    }
  }

  private static int readHeader(Path path, FileChannel channel, int expectedPageBytes) throws IOException {
    ByteBuffer head = ByteBuffer.allocate(24).order(ByteOrder.nativeOrder());
    while (head.hasRemaining() && channel.read(head, head.position()) > 0) {
      // read the fixed header fields
    }
    if (head.hasRemaining() || head.getLong(8) != MAGIC) {
      throw new PageFileFormatException(path + " is not a memwall page file (no page file header)");
    }
    int version = head.getInt(16);
    if (version != FORMAT_VERSION) {
      throw new PageFileFormatException(path + " has page file format version " + version + "; this code reads version "
          + FORMAT_VERSION);
    }
    int pageBytes = head.getInt(20);
    if (pageBytes < MIN_PAGE_BYTES || pageBytes > MAX_PAGE_BYTES || Integer.bitCount(pageBytes) != 1) {
      throw new CorruptPageException(path, 0, "header names an impossible page size " + pageBytes);
    }
    if (expectedPageBytes != 0 && pageBytes != expectedPageBytes) {
      throw new PageFileFormatException(path + " has " + pageBytes + "-byte pages, not the " + expectedPageBytes
          + " bytes asked for");
    }
    if (channel.size() < (long) FIRST_DATA_PAGE * pageBytes) {
      throw new CorruptPageException(path, 0, "file is " + channel.size() + " bytes, shorter than its header and "
          + "commit records");
    }
    return pageBytes;
  }

  // ---- chunked mapping -------------------------------------------------------------------

  /** Pages that chunks 0 .. k-1 cover together. */
  private static long pagesBefore(int chunk) {
    return (long) FIRST_CHUNK_PAGES * ((1L << chunk) - 1);
  }

  private static int chunkOf(long page) {
    return 63 - Long.numberOfLeadingZeros(page / FIRST_CHUNK_PAGES + 1);
  }

  private void mapExisting() throws IOException {
    long filePages = channel.size() / pageBytes;
    ensureMapped(Math.max(filePages, FIRST_DATA_PAGE));
  }

  /** Maps (growing the file with zeros where needed) until at least {@code pages} pages are mapped. */
  private void ensureMapped(long pages) {
    while (mappedPages < pages) {
      int k = chunks.size();
      long first = pagesBefore(k);
      long count = pagesBefore(k + 1) - first;
      long start = first * pageBytes;
      long bytes = count * pageBytes;
      long oldSize;
      try {
        oldSize = channel.size();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot size page file " + path, e);
      }
      if (oldSize < start + bytes) {
        try {
          ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(bytes, 1 << 20));
          for (long at = Math.max(oldSize, start); at < start + bytes; ) {
            zeros.clear();
            zeros.limit((int) Math.min(zeros.capacity(), start + bytes - at));
            at += channel.write(zeros, at);
          }
        } catch (IOException e) {
          try {
            channel.truncate(oldSize);
          } catch (IOException ignored) {
            // the original failure is what the caller needs
          }
          throw new PageFileFullException("page file " + path + " cannot grow to " + (start + bytes) + " bytes: "
              + e.getMessage(), e);
        }
      }
      try {
        chunks.add(channel.map(FileChannel.MapMode.READ_WRITE, start, bytes, arena));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot map page file " + path, e);
      }
      mappedPages = first + count;
    }
  }

  /** The mapped bytes of page {@code page}; no checksum is checked (see {@link #read}). */
  MemorySegment page(long page) {
    int k = chunkOf(page);
    return chunks.get(k).asSlice((page - pagesBefore(k)) * pageBytes, pageBytes);
  }

  private static MethodHandle madvise() {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      return null;
    }
    try {
      Linker linker = Linker.nativeLinker();
      return linker.downcallHandle(linker.defaultLookup().find("madvise").orElseThrow(),
          FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    } catch (RuntimeException | LinkageError e) {
      return null;
    }
  }

  /**
   * Asks the kernel to start reading page {@code page} from the device ({@code madvise(MADV_WILLNEED)}
   * on its mapping): the asynchronous page prefetch of a range scan. A hint only; does nothing
   * where the call is unavailable or the page is not in use.
   */
  public void adviseWillNeed(long page) {
    if (MADVISE == null || closed || page < 0 || page >= usedPages) {
      return;
    }
    try {
      int ignored = (int) MADVISE.invokeExact(page(page), (long) pageBytes, MADV_WILLNEED);
    } catch (Throwable e) {
      // a hint that failed is a hint not taken
    }
  }

  // ---- checksums ---------------------------------------------------------------------------

  /** The checksum of {@code bytes} (a page's contents) as page number {@code page}. */
  public static int checksum(long page, MemorySegment bytes) {
    CRC32C crc = new CRC32C();
    crc.update((int) page);
    crc.update((int) (page >>> 8));
    crc.update((int) (page >>> 16));
    crc.update((int) (page >>> 24));
    crc.update(bytes.asSlice(CHECKSUM_BYTES).asByteBuffer());
    return (int) crc.getValue();
  }

  private void seal(long page, MemorySegment bytes) {
    bytes.set(INT, 0, checksum(page, bytes));
  }

  private boolean intact(long page, MemorySegment bytes) {
    return bytes.get(INT, 0) == checksum(page, bytes);
  }

  private void verifyHeaderPage() {
    if (!intact(0, page(0))) {
      throw new CorruptPageException(path, 0, "header page checksum mismatch");
    }
  }

  // ---- pages -------------------------------------------------------------------------------

  /**
   * Copies page {@code page} into {@code into} (at least one page long) after checking its
   * checksum.
   *
   * @throws CorruptPageException naming the file and page if the checksum does not match;
   *     {@code into} may then hold the bad bytes but the caller must not use them
   * @throws IllegalArgumentException for a page number outside the pages in use
   */
  public void read(long page, MemorySegment into) {
    checkOpen();
    checkDataPage(page);
    MemorySegment src = page(page);
    into.copyFrom(src);
    if (!intact(page, into.asSlice(0, pageBytes))) {
      throw new CorruptPageException(path, page, "checksum mismatch (torn or corrupted write)");
    }
  }

  /**
   * Seals {@code from} with its checksum (written into its first {@value #CHECKSUM_BYTES} bytes)
   * and copies it to page {@code page}.
   */
  public void write(long page, MemorySegment from) {
    checkOpen();
    checkDataPage(page);
    MemorySegment src = from.asSlice(0, pageBytes);
    seal(page, src);
    MemorySegment dst = page(page);
    if (ewom != null) {
      ewom.written(page, dst, src);
    }
    dst.copyFrom(src);
  }

  private void checkDataPage(long page) {
    if (page < FIRST_DATA_PAGE || page >= usedPages) {
      throw new IllegalArgumentException("page " + page + " is not a data page of " + path + " (data pages "
          + FIRST_DATA_PAGE + " .. " + (usedPages - 1) + ")");
    }
  }

  /**
   * A fresh page number past those in use, growing the file when needed.
   *
   * @throws PageFileFullException if the page limit is reached or the disk is full; nothing changes
   */
  public int allocatePage() {
    checkOpen();
    if (usedPages >= maxPages) {
      throw new PageFileFullException("page file " + path + " is full: " + usedPages + " pages of " + pageBytes
          + " bytes, limit " + maxPages);
    }
    ensureMapped(usedPages + 1L);
    if (ewom != null) {
      ewom.allocated(usedPages);
    }
    return usedPages++;
  }

  /**
   * Grows the file now so that the next {@code pages} {@link #allocatePage()} calls cannot fail
   * (or as far as the page limit allows: the caller checks {@link #maxPages()}).
   *
   * @throws PageFileFullException if the disk refuses the space; nothing changes then
   */
  public void reserve(int pages) {
    checkOpen();
    ensureMapped(Math.min(maxPages, (long) usedPages + Math.max(0, pages)));
  }

  /** Pages in use (header and commit records included): the next fresh page number. */
  public int usedPages() {
    return usedPages;
  }

  public int pageBytes() {
    return pageBytes;
  }

  public long maxPages() {
    return maxPages;
  }

  public Path path() {
    return path;
  }

  // ---- the EWOM cost model -----------------------------------------------------------------

  /**
   * Starts counting this file's page writes under the EWOM flash model ({@link EwomCounts}): every
   * later {@link #write} is compared with the page's image on the device, and pages handed out
   * fresh from now on start erased (all ones) in the model. Off by default: the comparison reads
   * each written page's old image, a device read for pages not in the OS page cache. Commit
   * records and the header are not data pages and are not counted. Idempotent.
   */
  public void enableEwomModel() {
    checkOpen();
    if (ewom == null) {
      ewom = new EwomModel(pageBytes, usedPages);
    }
  }

  /** Whether {@link #enableEwomModel()} was called. */
  public boolean ewomModelEnabled() {
    return ewom != null;
  }

  /**
   * The EWOM counts of every data page write since {@link #enableEwomModel()} (writer thread);
   * take one before and one after an operation and subtract ({@link EwomCounts#minus}) for the
   * operation's own.
   *
   * @throws IllegalStateException if the model is not enabled
   */
  public EwomCounts ewomCounts() {
    if (ewom == null) {
      throw new IllegalStateException("the EWOM model of page file " + path + " is not enabled");
    }
    return ewom.counts();
  }

  // ---- commits -----------------------------------------------------------------------------

  /** Writes every mapped page to the device. */
  public void force() {
    checkOpen();
    for (MemorySegment chunk : chunks) {
      chunk.force();
    }
  }

  /**
   * Makes every page written so far and {@code meta} durable as one commit: forces the pages, then
   * writes the commit record and forces it. After a crash, {@link #open} sees either this commit
   * or the previous one, intact.
   *
   * @throws IllegalArgumentException if {@code meta} holds more than {@value #MAX_META_LONGS} longs
   */
  public void commit(long[] meta) {
    checkOpen();
    if (meta.length > MAX_META_LONGS) {
      throw new IllegalArgumentException("commit metadata holds at most " + MAX_META_LONGS + " longs, got "
          + meta.length);
    }
    force();
    long sequence = commitSequence + 1;
    long slot = 1 + (sequence & 1);
    MemorySegment record = page(slot);
    record.fill((byte) 0);
    record.set(LONG, 8, COMMIT_MAGIC);
    record.set(LONG, 16, sequence);
    record.set(INT, 24, usedPages);
    record.set(INT, 28, meta.length);
    for (int i = 0; i < meta.length; i++) {
      record.set(LONG, 32 + 8L * i, meta[i]);
    }
    seal(slot, record);
    record.force();
    commitSequence = sequence;
    committedMeta = meta.clone();
  }

  private void loadCommit() {
    long best = 0;
    long bestSlot = -1;
    for (long slot = 1; slot <= 2; slot++) {
      MemorySegment record = page(slot);
      if (record.get(LONG, 8) == COMMIT_MAGIC && intact(slot, record)) {
        long sequence = record.get(LONG, 16);
        if (sequence > best) {
          best = sequence;
          bestSlot = slot;
        }
      }
    }
    if (bestSlot < 0) {
      // no intact record: nothing was ever committed (a first commit may have been torn), which
      // is an empty file
      usedPages = FIRST_DATA_PAGE;
      return;
    }
    MemorySegment record = page(bestSlot);
    commitSequence = best;
    usedPages = record.get(INT, 24);
    int n = record.get(INT, 28);
    if (usedPages < FIRST_DATA_PAGE || usedPages > mappedPages || n < 0 || n > MAX_META_LONGS) {
      throw new CorruptPageException(path, bestSlot, "commit record names " + usedPages + " pages and " + n
          + " metadata longs for a file of " + mappedPages + " pages");
    }
    committedMeta = new long[n];
    for (int i = 0; i < n; i++) {
      committedMeta[i] = record.get(LONG, 32 + 8L * i);
    }
  }

  /** The metadata of the newest intact commit (empty if nothing was ever committed). */
  public long[] committedMeta() {
    return committedMeta.clone();
  }

  /** The sequence number of the newest commit, 0 if none. */
  public long commitSequence() {
    return commitSequence;
  }

  /**
   * Forgets pages allocated since the last commit (and not referenced by it): the next
   * {@link #allocatePage()} hands them out again.
   */
  public void rollbackAllocations(int pagesInUse) {
    if (pagesInUse < FIRST_DATA_PAGE || pagesInUse > usedPages) {
      throw new IllegalArgumentException("cannot roll back to " + pagesInUse + " pages of " + usedPages);
    }
    usedPages = pagesInUse;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("page file " + path + " is closed");
    }
  }

  public boolean isOpen() {
    return !closed;
  }

  /** Unmaps the file and closes it without committing; idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      arena.close();
    } finally {
      closeQuietly(channel);
    }
  }

  @Override
  public String toString() {
    return "PageFile[" + path + ", " + pageBytes + "-byte pages, " + usedPages + " in use]";
  }
}
