package io.github.redislock.sample.stock;

import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.annotation.DistributedLock;

import org.springframework.stereotype.Service;

/**
 * Reserves stock under the SKU's distributed lock, taken with the annotation: however
 * many instances run, one reservation of a SKU at a time reads, decides and writes.
 */
@Service
public class ReservationService {

	private final StockLedger ledger;

	ReservationService(StockLedger ledger) {
		this.ledger = ledger;
	}

	/**
	 * Reserves units of a SKU while holding lock {@code stock:<sku>}.
	 * @param sku the SKU
	 * @param quantity the units wanted, at least 1
	 * @return the reservation
	 * @throws InsufficientStockException if fewer units are available
	 * @throws LockNotAcquiredException if another reservation or restock of the SKU held
	 * the lock for longer than {@code sample.stock.lock-wait}
	 */
	@DistributedLock(name = StockLocks.NAME, key = "#sku", waitTime = "${sample.stock.lock-wait:2s}")
	public Reservation reserve(String sku, int quantity) {
		return this.ledger.reserve(sku, quantity);
	}

}
