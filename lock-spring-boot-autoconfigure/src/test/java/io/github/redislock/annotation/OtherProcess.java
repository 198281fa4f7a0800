package io.github.redislock.annotation;

import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Another process, as far as locks go: a lock client of its own on the test's Redis, made
 * before each test and closed after it, to hold a lock the application under test wants,
 * or to look at one from outside.
 */
final class OtherProcess implements BeforeEachCallback, AfterEachCallback {

	private final RedisServerExtension redis;

	private LettuceConnectionFactory connectionFactory;

	private RedisLockClient client;

	OtherProcess(RedisServerExtension redis) {
		this.redis = redis;
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		this.connectionFactory = this.redis.newConnectionFactory();
		this.client = RedisLockClient.builder(this.connectionFactory).build();
	}

	@Override
	public void afterEach(ExtensionContext context) {
		this.client.close();
		this.connectionFactory.destroy();
	}

	RedisLock getLock(String name) {
		return this.client.getLock(name);
	}

	RedisLockClient client() {
		return this.client;
	}

}
