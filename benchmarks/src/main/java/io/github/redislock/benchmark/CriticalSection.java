package io.github.redislock.benchmark;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * What a holder does under contention, as a service would: read a value from Redis and
 * write it back incremented, two round trips. Not atomic, so that the values end equal to
 * the acquisitions only if no two holders of a name overlapped. One connection per JVM,
 * shared by its threads.
 */
final class CriticalSection implements AutoCloseable {

	static final String KEY_PREFIX = "bench:section:";

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> redis;

	CriticalSection(String host, int port) {
		this.client = RedisClient.create(RedisURI.create(host, port));
		this.connection = this.client.connect();
		this.redis = this.connection.sync();
	}

	void run(String name) {
		String value = this.redis.get(KEY_PREFIX + name);
		this.redis.set(KEY_PREFIX + name, Long.toString((value != null) ? Long.parseLong(value) + 1 : 1));
	}

	/** What a reader does: one GET. */
	void read(String name) {
		this.redis.get(KEY_PREFIX + name);
	}

	/** The sum of the values the holders of these names wrote. */
	long total(Iterable<String> names) {
		long total = 0;
		for (String name : names) {
			String value = this.redis.get(KEY_PREFIX + name);
			total += (value != null) ? Long.parseLong(value) : 0;
		}
		return total;
	}

	void reset(Iterable<String> names) {
		for (String name : names) {
			this.redis.del(KEY_PREFIX + name);
		}
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
