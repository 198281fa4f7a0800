package io.github.redislock.sample.demo;

import java.time.Duration;

import io.github.redislock.RedisLockClient;
import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.sample.stock.Reservation;
import io.github.redislock.sample.stock.StockLedger;
import io.github.redislock.sample.stock.StockLocks;
import io.github.redislock.sample.stock.StockRepository;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A second instance of the shop inside this process, for the demo: its own Redis
 * connections, its own lock client (so its own client id, watchdog and pub/sub
 * subscription) and its own ledger, on the same Redis and with the same lock key prefix
 * as the application. To Redis it looks like another process.
 */
final class SecondInstance implements AutoCloseable {

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockClient locks;

	private final StockLedger ledger;

	private SecondInstance(LettuceConnectionFactory connectionFactory, RedisLockClient locks, StockLedger ledger) {
		this.connectionFactory = connectionFactory;
		this.locks = locks;
		this.ledger = ledger;
	}

	/**
	 * Connects a second instance to the Redis the application uses.
	 * @param applicationFactory the application's connection factory, whose settings are
	 * copied
	 * @param lockProperties the application's lock settings
	 * @param pricingTime how long pricing an order takes
	 * @return the connected instance; close it when done
	 */
	static SecondInstance connect(LettuceConnectionFactory applicationFactory, RedisLockProperties lockProperties,
			Duration pricingTime) {
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(configurationOf(applicationFactory),
				applicationFactory.getClientConfiguration());
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		try {
			RedisLockClient locks = RedisLockClient.builder(connectionFactory)
				.keyPrefix(lockProperties.getKeyPrefix())
				.watchdogTimeout(lockProperties.getWatchdogTimeout())
				.build();
			StockRepository repository = new StockRepository(new StringRedisTemplate(connectionFactory));
			return new SecondInstance(connectionFactory, locks, new StockLedger(repository, pricingTime));
		}
		catch (RuntimeException ex) {
			connectionFactory.destroy();
			throw ex;
		}
	}

	/** This instance's lock client. */
	RedisLockClient locks() {
		return this.locks;
	}

	/** Reserves one unit without any lock. */
	Reservation reserveUnlocked(String sku) {
		return this.ledger.reserve(sku, 1);
	}

	/**
	 * Reserves one unit under lock {@code stock:<sku>}, taken with this instance's
	 * client.
	 */
	Reservation reserveLocked(String sku, Duration lockWait) {
		return this.locks.withLock(StockLocks.lockName(sku), lockWait, null, () -> this.ledger.reserve(sku, 1));
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

	private static RedisConfiguration configurationOf(LettuceConnectionFactory factory) {
		if (factory.isClusterAware()) {
			return factory.getClusterConfiguration();
		}
		if (factory.isRedisSentinelAware()) {
			return factory.getSentinelConfiguration();
		}
		return factory.getStandaloneConfiguration();
	}

}
