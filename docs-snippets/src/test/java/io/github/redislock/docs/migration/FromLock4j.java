package io.github.redislock.docs.migration;

import java.time.Duration;

import io.github.redislock.RedisLockClient;
import io.github.redislock.annotation.DistributedLock;

/** The "after" code of docs/migration/lock4j.md. */
class FromLock4j {

	static class OrderService {

		// tag::after[]
		@DistributedLock(name = "order", key = "#orderId", waitTime = "3s", leaseTime = "30s")
		public void ship(long orderId) {
			// ...
		}
		// end::after[]

	}

	static void template(RedisLockClient locks, Runnable work) {
		// tag::after-template[]
		locks.tryAcquire("order:42", Duration.ofSeconds(3), Duration.ofSeconds(30)).ifPresentOrElse((lock) -> {
			try (lock) {
				work.run();
			}
		}, () -> {
			throw new IllegalStateException("order 42 is busy");
		});
		// end::after-template[]
	}

}
