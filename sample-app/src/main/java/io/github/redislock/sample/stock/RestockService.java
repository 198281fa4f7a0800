package io.github.redislock.sample.stock;

import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.RedisLockClient;

import org.springframework.stereotype.Service;

/**
 * Adds delivered units to a SKU's stock under the same lock as reservations, taken with
 * the {@link RedisLockClient} rather than the annotation: the way to lock when the lock's
 * name is only known inside a method, or only part of a method needs it.
 */
@Service
public class RestockService {

	private final RedisLockClient locks;

	private final StockLedger ledger;

	private final StockProperties properties;

	RestockService(RedisLockClient locks, StockLedger ledger, StockProperties properties) {
		this.locks = locks;
		this.ledger = ledger;
		this.properties = properties;
	}

	/**
	 * Adds units to a SKU's stock while holding lock {@code stock:<sku>}; the watchdog
	 * keeps the lock for as long as the update takes.
	 * @param sku the SKU
	 * @param quantity the units delivered, at least 1
	 * @return the stock level afterwards
	 * @throws LockNotAcquiredException if the lock was held for longer than
	 * {@code sample.stock.lock-wait}
	 */
	public StockLevel restock(String sku, int quantity) {
		int available = this.locks.withLock(StockLocks.lockName(sku), this.properties.lockWait(), null,
				() -> this.ledger.restock(sku, quantity));
		return new StockLevel(sku, available);
	}

}
