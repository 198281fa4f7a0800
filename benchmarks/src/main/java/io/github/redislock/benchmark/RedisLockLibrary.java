package io.github.redislock.benchmark;

import io.github.redislock.RedisLockClient;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * This library, as an application would set it up: a Lettuce connection factory with its
 * defaults and a client with its defaults (watchdog lease).
 */
final class RedisLockLibrary implements LockLibrary {

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockClient client;

	RedisLockLibrary(String host, int port) {
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.client = RedisLockClient.builder(this.connectionFactory).build();
	}

	@Override
	public void lock(String name) {
		this.client.getLock(name).lock();
	}

	@Override
	public void unlock(String name) {
		this.client.getLock(name).unlock();
	}

	@Override
	public boolean isReentrant() {
		return true;
	}

	@Override
	public void close() {
		this.client.close();
		this.connectionFactory.destroy();
	}

}
