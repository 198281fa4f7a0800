package io.github.redislock.sample.stock;

/**
 * The lock every change to a SKU's stock holds, whichever way it is taken: the annotation
 * ({@code @DistributedLock(name = StockLocks.NAME, key = "#sku")}) and the client
 * ({@code withLock(StockLocks.lockName(sku), ...)}) name the same lock, so a reservation
 * and a restock of one SKU never interleave, on any instance.
 */
public final class StockLocks {

	/** The lock's name before the SKU. */
	public static final String NAME = "stock";

	private StockLocks() {
	}

	/** The name of the given SKU's lock, {@code stock:<sku>}. */
	public static String lockName(String sku) {
		return NAME + ":" + sku;
	}

}
