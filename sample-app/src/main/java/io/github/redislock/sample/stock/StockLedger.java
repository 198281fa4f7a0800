package io.github.redislock.sample.stock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.springframework.util.Assert;

/**
 * The stock rules, as a read, a decision and a write. Nothing here locks: two callers
 * that interleave between the read and the write both succeed on the same units, and one
 * write is lost. That is the oversell the sample's locks prevent; callers hold the SKU's
 * lock ({@link StockLocks}).
 */
public class StockLedger {

	private final StockRepository repository;

	private final Duration pricingTime;

	/**
	 * Creates a ledger.
	 * @param repository where the stock levels are
	 * @param pricingTime how long pricing an order takes between the read and the write
	 */
	public StockLedger(StockRepository repository, Duration pricingTime) {
		this.repository = repository;
		this.pricingTime = pricingTime;
	}

	/**
	 * Reserves units of a SKU.
	 * @param sku the SKU
	 * @param quantity the units wanted, at least 1
	 * @return the reservation
	 * @throws InsufficientStockException if fewer units are available
	 */
	public Reservation reserve(String sku, int quantity) {
		Assert.isTrue(quantity > 0, () -> "quantity must be at least 1, was " + quantity);
		int available = this.repository.available(sku);
		if (available < quantity) {
			throw new InsufficientStockException(sku, quantity, available);
		}
		priceOrder();
		int remaining = available - quantity;
		this.repository.save(sku, remaining);
		return new Reservation(sku, quantity, remaining);
	}

	/**
	 * Adds units to a SKU's stock.
	 * @param sku the SKU
	 * @param quantity the units delivered, at least 1
	 * @return the units available afterwards
	 */
	public int restock(String sku, int quantity) {
		Assert.isTrue(quantity > 0, () -> "quantity must be at least 1, was " + quantity);
		int available = this.repository.available(sku) + quantity;
		this.repository.save(sku, available);
		return available;
	}

	// Stands in for the pricing and validation a real order goes through after the stock
	// check: a couple of milliseconds in which another caller can read the same level.
	private void priceOrder() {
		if (this.pricingTime.isZero()) {
			return;
		}
		try {
			TimeUnit.NANOSECONDS.sleep(this.pricingTime.toNanos());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while pricing an order", ex);
		}
	}

}
