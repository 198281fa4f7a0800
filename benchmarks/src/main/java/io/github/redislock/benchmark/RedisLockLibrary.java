package io.github.redislock.benchmark;

import io.github.redislock.RedisLockClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * This library, as an application would set it up: a Lettuce connection factory with its
 * defaults and a client with its defaults (watchdog lease); observed, also with the
 * Micrometer registries Spring Boot's Actuator gives it (observations turned into timers,
 * gauges, counter), to show what monitoring costs.
 */
final class RedisLockLibrary implements LockLibrary, ReadWriteLockLibrary, FairLockLibrary {

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockClient client;

	RedisLockLibrary(String host, int port, boolean observed) {
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		RedisLockClient.Builder builder = RedisLockClient.builder(this.connectionFactory);
		// for trying other values by hand; the worker JVMs inherit the environment
		String maxLocalPasses = System.getenv("BENCH_MAX_LOCAL_PASSES");
		if (maxLocalPasses != null) {
			builder.maxLocalPasses(Integer.parseInt(maxLocalPasses));
		}
		if (observed) {
			MeterRegistry meters = new SimpleMeterRegistry();
			ObservationRegistry observations = ObservationRegistry.create();
			observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
			builder.meterRegistry(meters).observationRegistry(observations);
		}
		this.client = builder.build();
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
	public void readLock(String name) {
		this.client.getReadWriteLock(name).readLock().lock();
	}

	@Override
	public void readUnlock(String name) {
		this.client.getReadWriteLock(name).readLock().unlock();
	}

	@Override
	public void writeLock(String name) {
		this.client.getReadWriteLock(name).writeLock().lock();
	}

	@Override
	public void writeUnlock(String name) {
		this.client.getReadWriteLock(name).writeLock().unlock();
	}

	@Override
	public void fairLock(String name) {
		this.client.getFairLock(name).lock();
	}

	@Override
	public void fairUnlock(String name) {
		this.client.getFairLock(name).unlock();
	}

	@Override
	public void close() {
		this.client.close();
		this.connectionFactory.destroy();
	}

}
