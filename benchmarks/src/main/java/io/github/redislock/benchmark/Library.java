package io.github.redislock.benchmark;

import java.util.function.BiFunction;

import io.github.redislock.testsupport.RedisServer;

/**
 * The contestants, in the order they run in a forward round.
 */
enum Library {

	FLOOR("SET NX PX floor", FloorLibrary::new),

	/**
	 * The critical section on one thread without a lock: the contended scenarios'
	 * ceiling.
	 */
	CEILING("critical section alone, 1 thread, no lock", NoLockLibrary::new),

	REDIS_LOCK("redis-lock", (host, port) -> new RedisLockLibrary(host, port, false)),

	REDIS_LOCK_OBSERVED("redis-lock + Micrometer", (host, port) -> new RedisLockLibrary(host, port, true)),

	REDISSON("Redisson RLock", RedissonLibrary::new),

	INTEGRATION_PUB_SUB("Spring Integration PUB_SUB",
			(host, port) -> new IntegrationLibrary(host, port, IntegrationLibrary.Type.PUB_SUB)),

	INTEGRATION_SPIN("Spring Integration SPIN",
			(host, port) -> new IntegrationLibrary(host, port, IntegrationLibrary.Type.SPIN));

	private final String title;

	private final BiFunction<String, Integer, LockLibrary> factory;

	Library(String title, BiFunction<String, Integer, LockLibrary> factory) {
		this.title = title;
		this.factory = factory;
	}

	String title() {
		return this.title;
	}

	LockLibrary connect(RedisServer redis) {
		return this.factory.apply(redis.host(), redis.port());
	}

	LockLibrary connect(String host, int port) {
		return this.factory.apply(host, port);
	}

}
