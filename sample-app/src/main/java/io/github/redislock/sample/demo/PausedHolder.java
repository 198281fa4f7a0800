package io.github.redislock.sample.demo;

import java.time.Duration;
import java.util.UUID;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LockHandle;
import io.github.redislock.RedisLockClient;
import io.github.redislock.sample.stock.StockLocks;
import io.github.redislock.sample.stock.StockRepository;

/**
 * The paused-holder run of the demo, once with a plain write and once with a fenced one.
 * Each step follows the one before on one thread, so the run is the same every time: the
 * second instance's wait for the lock is the first one's pause.
 */
final class PausedHolder {

	/** The first holder's lease: short, since the second instance waits it out. */
	private static final Duration LEASE = Duration.ofMillis(300);

	private static final int STOCK = 10;

	private final RedisLockClient first;

	private final SecondInstance second;

	private final StockRepository plain;

	private final FencedStock fenced;

	PausedHolder(RedisLockClient first, SecondInstance second, StockRepository plain, FencedStock fenced) {
		this.first = first;
		this.second = second;
		this.plain = plain;
		this.fenced = fenced;
	}

	FencingRun run(boolean fencedWrites) {
		String sku = "demo-" + UUID.randomUUID();
		String lock = StockLocks.lockName(sku);
		if (fencedWrites) {
			this.fenced.stock(sku, STOCK);
		}
		else {
			this.plain.save(sku, STOCK);
		}
		try {
			LockHandle paused = this.first.acquire(lock, Duration.ZERO, LEASE);
			int seen = available(fencedWrites, sku);
			// ... the first holder pauses here, past its lease: the second instance
			// waits for the lease to run out, takes the lock and sells a unit
			LockHandle takeOver = this.second.locks().acquire(lock, Duration.ofSeconds(10), Duration.ofSeconds(10));
			int sold = 0;
			try {
				if (write(fencedWrites, sku, available(fencedWrites, sku) - 1, takeOver.fencingToken())) {
					sold++;
				}
			}
			finally {
				takeOver.release();
			}
			// ... and the first resumes, believing it still holds the lock
			int rejected = 0;
			if (write(fencedWrites, sku, seen - 1, paused.fencingToken())) {
				sold++;
			}
			else {
				rejected++;
			}
			try {
				paused.release();
			}
			catch (LeaseExpiredException expected) {
				// what the paused holder learns only now
			}
			int left = available(fencedWrites, sku);
			return new FencingRun(fencedWrites ? "fenced" : "plain", sold, rejected, Math.max(0, sold - (STOCK - left)),
					left, paused.fencingToken(), takeOver.fencingToken());
		}
		finally {
			this.plain.delete(sku);
			this.fenced.delete(sku);
		}
	}

	private int available(boolean fencedWrites, String sku) {
		return fencedWrites ? this.fenced.available(sku) : this.plain.available(sku);
	}

	private boolean write(boolean fencedWrites, String sku, int units, long token) {
		if (fencedWrites) {
			return this.fenced.write(sku, units, token);
		}
		this.plain.save(sku, units);
		return true;
	}

}
