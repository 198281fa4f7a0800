package io.github.redislock.docs.migration;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;

/** The code of docs/migration/spring-integration.md, before and after. */
class FromRedisLockRegistry {

	static void before(RedisConnectionFactory connectionFactory, Runnable work) throws InterruptedException {
		// tag::before[]
		RedisLockRegistry registry = new RedisLockRegistry(connectionFactory, "orders", 60_000);
		Lock lock = registry.obtain("order-42");
		if (lock.tryLock(3, TimeUnit.SECONDS)) {
			try {
				work.run();
			}
			finally {
				lock.unlock();
			}
		}
		// end::before[]
	}

	static void after(RedisLockClient locks, Runnable work) throws InterruptedException {
		// tag::after[]
		RedisLock lock = locks.getLock("orders:order-42");
		if (lock.tryLock(3, TimeUnit.SECONDS)) {
			try {
				work.run();
			}
			finally {
				lock.unlock();
			}
		}
		// end::after[]
	}

}
