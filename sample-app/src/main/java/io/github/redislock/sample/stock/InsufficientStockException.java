package io.github.redislock.sample.stock;

/**
 * Thrown when a reservation asks for more units than are available.
 */
public class InsufficientStockException extends RuntimeException {

	private final String sku;

	/**
	 * Creates an exception for the SKU.
	 * @param sku the SKU
	 * @param requested the units asked for
	 * @param available the units available
	 */
	public InsufficientStockException(String sku, int requested, int available) {
		super("Cannot reserve " + requested + " of '" + sku + "': " + available + " available");
		this.sku = sku;
	}

	/** The SKU that ran short. */
	public String getSku() {
		return this.sku;
	}

}
