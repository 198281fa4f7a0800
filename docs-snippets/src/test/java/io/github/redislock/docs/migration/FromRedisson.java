package io.github.redislock.docs.migration;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;

/** The code of docs/migration/redisson.md, before and after. */
class FromRedisson {

	static void before(RedissonClient redisson, Store store) throws InterruptedException {
		// tag::before[]
		RLock lock = redisson.getLock("order:42");
		if (lock.tryLock(3, 10, TimeUnit.SECONDS)) { // wait 3 s, lease 10 s
			try {
				store.save(42);
			}
			finally {
				lock.unlock();
			}
		}
		// end::before[]
	}

	static void after(RedisLockClient locks, Store store) throws InterruptedException {
		// tag::after[]
		RedisLock lock = locks.getLock("order:42");
		if (lock.tryLock(Duration.ofSeconds(3), Duration.ofSeconds(10))) { // 3 s, 10 s
			try {
				store.save(42, lock.fencingToken());
			}
			finally {
				lock.unlock();
			}
		}
		// end::after[]
	}

	interface Store {

		void save(long orderId);

		void save(long orderId, long fencingToken);

	}

}
