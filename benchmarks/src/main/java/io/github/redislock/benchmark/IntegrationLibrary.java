package io.github.redislock.benchmark;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * Spring Integration's {@code RedisLockRegistry} in one of its two modes, with a 30 s
 * expiry (matching the others' watchdog lease).
 */
final class IntegrationLibrary implements LockLibrary {

	enum Type {

		PUB_SUB, SPIN

	}

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockRegistry registry;

	private final Map<String, Lock> locks = new ConcurrentHashMap<>();

	IntegrationLibrary(String host, int port, Type type) {
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.registry = new RedisLockRegistry(this.connectionFactory, "si-bench", 30_000);
		this.registry.setRedisLockType((type == Type.PUB_SUB) ? RedisLockRegistry.RedisLockType.PUB_SUB_LOCK
				: RedisLockRegistry.RedisLockType.SPIN_LOCK);
	}

	@Override
	public void lock(String name) {
		this.locks.computeIfAbsent(name, this.registry::obtain).lock();
	}

	@Override
	public void unlock(String name) {
		this.locks.get(name).unlock();
	}

	@Override
	public void close() {
		this.registry.destroy();
		this.connectionFactory.destroy();
	}

}
