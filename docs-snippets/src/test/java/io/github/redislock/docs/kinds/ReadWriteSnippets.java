package io.github.redislock.docs.kinds;

import java.time.Duration;
import java.util.Optional;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.LockMode;

/** The code of docs/read-write-locks.md. */
class ReadWriteSnippets {

	static String read(RedisLockClient locks, PriceCache cache) {
		// tag::read-lock[]
		RedisReadWriteLock prices = locks.getReadWriteLock("prices:eu");
		prices.readLock().lock(); // shared with other readers, in any process
		try {
			return cache.read("eu");
		}
		finally {
			prices.readLock().unlock();
		}
		// end::read-lock[]
	}

	static void handle(RedisLockClient locks, PriceCache cache) {
		// tag::write-handle[]
		RedisReadWriteLock prices = locks.getReadWriteLock("prices:eu");
		Optional<LockHandle> writing = prices.tryAcquireWrite(Duration.ofSeconds(2), null);
		writing.ifPresent((handle) -> {
			try (handle) { // released from whichever thread closes it
				cache.reload("eu");
			}
		});
		// end::write-handle[]
	}

	static class Prices {

		private final PriceCache cache = new PriceCache();

		// tag::annotation[]
		@DistributedLock(name = "prices", key = "#region", mode = LockMode.READ)
		public String price(String region) {
			return cache.read(region);
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.WRITE)
		public void reload(String region) {
			cache.reload(region);
		}
		// end::annotation[]

	}

	static class PriceCache {

		String read(String region) {
			return region;
		}

		void reload(String region) {
		}

	}

}
