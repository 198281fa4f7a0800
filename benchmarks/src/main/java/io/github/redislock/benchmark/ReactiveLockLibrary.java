package io.github.redislock.benchmark;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.redislock.ReactiveRedisLockClient;
import io.github.redislock.RedisLockClient;
import org.redisson.Redisson;
import org.redisson.api.RLockReactive;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A reactive lock under test: runs an action under a lock, waiting as long as it takes,
 * without blocking a thread.
 */
interface ReactiveLockLibrary extends AutoCloseable {

	<T> Mono<T> withLock(String name, Mono<T> action);

	@Override
	void close();

	static ReactiveLockLibrary connect(Library library, String host, int port) {
		return switch (library) {
			case REDIS_LOCK -> new RedisLock(host, port);
			case REDISSON -> new RedissonReactive(host, port);
			default -> throw new IllegalArgumentException(library + " has no reactive lock here");
		};
	}

	/**
	 * {@link ReactiveRedisLockClient} with its defaults (watchdog lease), as the starter
	 * makes it.
	 */
	final class RedisLock implements ReactiveLockLibrary {

		private final LettuceConnectionFactory connectionFactory;

		private final RedisLockClient client;

		private final ReactiveRedisLockClient reactive;

		RedisLock(String host, int port) {
			this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
			this.connectionFactory.afterPropertiesSet();
			this.connectionFactory.start();
			this.client = RedisLockClient.builder(this.connectionFactory).build();
			this.reactive = ReactiveRedisLockClient.create(this.client);
		}

		@Override
		public <T> Mono<T> withLock(String name, Mono<T> action) {
			return this.reactive.withLock(name, Duration.ofHours(1), null, action);
		}

		@Override
		public void close() {
			this.client.close();
			this.connectionFactory.destroy();
		}

	}

	/**
	 * Redisson's {@code RLockReactive} with its defaults (watchdog lease); its owner is a
	 * "thread id" the caller makes up, a random one per acquisition here.
	 */
	final class RedissonReactive implements ReactiveLockLibrary {

		private final RedissonClient redisson;

		RedissonReactive(String host, int port) {
			Config config = new Config();
			config.useSingleServer().setAddress("redis://" + host + ":" + port);
			this.redisson = Redisson.create(config);
		}

		@Override
		public <T> Mono<T> withLock(String name, Mono<T> action) {
			RLockReactive lock = this.redisson.reactive().getLock(name);
			return Mono.usingWhen(
					Mono.fromSupplier(() -> ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE))
						.flatMap((owner) -> lock.lock(-1, TimeUnit.MILLISECONDS, owner).thenReturn(owner)),
					(owner) -> action, lock::unlock);
		}

		@Override
		public void close() {
			this.redisson.shutdown();
		}

	}

}
