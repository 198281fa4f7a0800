package io.github.redislock.sample;

import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Another instance of the sample, as far as locks go: a lock client with its own
 * connection and client id and the sample's key prefix, so that a test can hold one of
 * the sample's locks the way another process would.
 */
public final class OtherInstance implements AutoCloseable {

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockClient locks;

	/**
	 * Connects to the test's Redis.
	 * @param redis the test's Redis
	 * @param lockProperties the sample's lock settings, for the key prefix
	 */
	public OtherInstance(RedisServerExtension redis, RedisLockProperties lockProperties) {
		this.connectionFactory = redis.newConnectionFactory();
		this.locks = RedisLockClient.builder(this.connectionFactory).keyPrefix(lockProperties.getKeyPrefix()).build();
	}

	/** Runs the action while this instance holds the named lock. */
	public void whileHolding(String lockName, Runnable action) {
		RedisLock lock = this.locks.getLock(lockName);
		lock.lock();
		try {
			action.run();
		}
		finally {
			lock.unlock();
		}
	}

	@Override
	public void close() {
		try {
			this.locks.close();
		}
		finally {
			this.connectionFactory.destroy();
		}
	}

}
