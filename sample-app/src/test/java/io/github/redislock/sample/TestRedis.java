package io.github.redislock.sample;

import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * Points the sample at a test class's own Redis.
 */
public final class TestRedis {

	private TestRedis() {
	}

	/**
	 * Registers {@code spring.data.redis.host} and {@code spring.data.redis.port} of the
	 * extension's server; they are read when the context starts, after the server has.
	 */
	public static void register(RedisServerExtension redis, DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", () -> redis.server().host());
		registry.add("spring.data.redis.port", () -> redis.server().port());
	}

}
