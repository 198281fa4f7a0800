package io.github.redislock.docs.migration;

import java.time.Duration;

import org.springframework.scheduling.annotation.Scheduled;

import io.github.redislock.RedisLockClient;
import io.github.redislock.annotation.DistributedLock;

/** The "after" code of docs/migration/shedlock.md. */
class FromShedLock {

	static class StockAudit {

		// tag::after[]
		@Scheduled(cron = "0 */10 * * * *")
		@DistributedLock(name = "stock-audit", holdAtLeast = "2m")
		public void audit() {
			// ...
		}
		// end::after[]

	}

	static void executor(RedisLockClient locks, Runnable audit) {
		// tag::after-executor[]
		locks.tryAcquire("stock-audit", Duration.ZERO, null).ifPresent((lock) -> {
			try {
				audit.run();
			}
			finally {
				lock.release(Duration.ofMinutes(2)); // lockAtLeastFor
			}
		});
		// end::after-executor[]
	}

}
