package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.redislock.internal.DefaultRedisLockClient;
import io.github.redislock.internal.LockEngine;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Creates lock clients against a test's own Redis, as separate processes would have them
 * (each its own connection factory and client id), and closes them all at the end of the
 * test.
 */
final class LockTestClients implements AutoCloseable {

	static final Duration TEST_WATCHDOG_TIMEOUT = Duration.ofMillis(600);

	private final RedisServerExtension redis;

	private final List<AutoCloseable> resources = new ArrayList<>();

	LockTestClients(RedisServerExtension redis) {
		this.redis = redis;
	}

	RedisLockClient newClient() {
		return newClient(Duration.ofSeconds(30));
	}

	RedisLockClient newClient(Duration watchdogTimeout) {
		RedisLockClient client = RedisLockClient.builder(newTemplate()).watchdogTimeout(watchdogTimeout).build();
		this.resources.add(0, client);
		return client;
	}

	StringRedisTemplate newTemplate() {
		return new StringRedisTemplate(newConnectionFactory());
	}

	LettuceConnectionFactory newConnectionFactory() {
		LettuceConnectionFactory factory = this.redis.newConnectionFactory();
		this.resources.add(factory::destroy);
		return factory;
	}

	static LockEngine engine(RedisLockClient client) {
		return ((DefaultRedisLockClient) client).engine();
	}

	static String uniqueName() {
		return "test-" + UUID.randomUUID();
	}

	@Override
	public void close() throws Exception {
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
	}

}
