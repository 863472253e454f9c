/**
 * Flash-aware structures of Ross's EWOM paper (seed 001, DaMoN 2008): {@link
 * dev.memwall.index.flash.FlashLeafFormat}, the B-tree leaf that absorbs inserts and deletes by
 * 1-to-0 updates (a page format of {@link dev.memwall.index.disk.DiskBPlusTree}, tree type {@code
 * FLASH_LEAF}), {@link dev.memwall.index.flash.EwomCounter}, the generalized counter, and {@link
 * dev.memwall.index.flash.EwomList}, the list whose appends and deletes clear bits. The
 * model that counts their page writes is {@link dev.memwall.index.page.EwomCounts} in the page
 * file. This package builds on {@code page} only; {@code disk} names it.
 */
package dev.memwall.index.flash;
