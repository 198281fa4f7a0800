package io.github.redislock.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.lang.Nullable;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

import io.github.redislock.LeaseLostEvent;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;

/**
 * The client: owns the per-client parts (identity, holds, subscriptions, watchdog) that
 * every {@link DefaultRedisLock} of it shares. Nothing here is kept per lock name once no
 * thread holds or waits for the lock.
 */
public final class DefaultRedisLockClient implements RedisLockClient {

	/**
	 * Longest accepted lock name; longer ones are almost always a whole object rendered
	 * into a key by mistake.
	 */
	static final int MAX_NAME_LENGTH = 1024;

	/**
	 * How long a lock's release subscription outlives its last waiter, for the next burst
	 * of contention.
	 */
	static final Duration SUBSCRIPTION_GRACE_PERIOD = Duration.ofSeconds(1);

	private static final boolean lettucePresent = ClassUtils.isPresent(
			"org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory",
			DefaultRedisLockClient.class.getClassLoader())
			&& ClassUtils.isPresent("io.lettuce.core.RedisClient", DefaultRedisLockClient.class.getClassLoader());

	private final String keyPrefix;

	private final String clientId = UUID.randomUUID().toString();

	private final LockEngine engine;

	@Nullable
	private final LockMeters meters;

	/**
	 * Creates a client; {@link RedisLockClient#builder} documents the parameters.
	 * @param observationRegistry where acquire and hold observations go, or {@code null}
	 * @param meterRegistry where gauges and counters go, or {@code null}; without an
	 * observation registry, also the timers
	 * @param replicaAcknowledgement what acquisitions wait for, or {@code null}
	 */
	public DefaultRedisLockClient(StringRedisTemplate redisTemplate, String keyPrefix, Duration watchdogTimeout,
			Duration commandTimeout, Consumer<LeaseLostEvent> leaseLostListener,
			@Nullable ObservationRegistry observationRegistry, @Nullable MeterRegistry meterRegistry,
			@Nullable ReplicaAcknowledgement replicaAcknowledgement) {
		RedisConnectionFactory connectionFactory = redisTemplate.getConnectionFactory();
		Assert.notNull(connectionFactory, "The StringRedisTemplate has no connection factory");
		// the engine waits for Lettuce's asynchronous replies itself, to bound every call
		// by the lock command timeout and to survive interrupts
		Assert.isTrue(isLettuce(connectionFactory),
				() -> "redis-lock needs Lettuce (Spring Boot's default Redis client) and a LettuceConnectionFactory, "
						+ "but the connection factory is a " + connectionFactory.getClass().getName()
						+ "; remove the other client from the class path or define a LettuceConnectionFactory bean");
		this.keyPrefix = keyPrefix;
		RedisCalls calls = new RedisCalls(connectionFactory, commandTimeout.toMillis());
		LockCommands commands = new LockCommands(calls, replicaAcknowledgement);
		Holds holds = new Holds();
		ReleaseSubscriptions subscriptions = new ReleaseSubscriptions(connectionFactory, calls,
				keyPrefix + "client:" + this.clientId, SUBSCRIPTION_GRACE_PERIOD.toMillis());
		List<Consumer<LeaseLostEvent>> leaseLostListeners = new ArrayList<>(List.of(leaseLostListener));
		ObservationRegistry observations = (observationRegistry != null) ? observationRegistry
				: ObservationRegistry.NOOP;
		if (meterRegistry != null) {
			leaseLostListeners.add(LockMeters.leaseLostCounter(meterRegistry));
			if (observationRegistry == null) {
				observations = LockMeters.timersOnly(meterRegistry);
			}
		}
		LeaseLostNotifier notifier = new LeaseLostNotifier(leaseLostListeners);
		LeaseWatchdog watchdog = new LeaseWatchdog(commands, holds, watchdogTimeout.toMillis(),
				isCluster(connectionFactory), notifier);
		this.engine = new LockEngine(this.clientId, commands, holds, subscriptions, watchdog,
				watchdogTimeout.toMillis(), notifier, new LockObservations(observations));
		this.meters = (meterRegistry != null) ? new LockMeters(meterRegistry, this.engine) : null;
	}

	@Override
	public RedisLock getLock(String name) {
		return new DefaultRedisLock(keys(name), this.engine);
	}

	@Override
	public void close() {
		this.engine.close();
		if (this.meters != null) {
			this.meters.close();
		}
	}

	/**
	 * What Redis holds for the named lock, whoever holds it, in one round trip; for the
	 * library's own monitoring.
	 */
	public LockState lockState(String name) {
		return this.engine.state(keys(name));
	}

	/** Whether an owner of {@link LockState#holders()} is a thread of this client. */
	public boolean isOwnedHere(String owner) {
		return owner.startsWith(this.clientId + ":");
	}

	/** The engine, for tests and the library's own monitoring. */
	public LockEngine engine() {
		return this.engine;
	}

	@Override
	public String toString() {
		return "RedisLockClient[id=" + this.clientId + ", keyPrefix=" + this.keyPrefix + "]";
	}

	private LockKeys keys(String name) {
		Assert.notNull(name, "Lock name must not be null");
		Assert.isTrue(!name.isBlank(), "Lock name must not be blank");
		Assert.isTrue(name.length() <= MAX_NAME_LENGTH, () -> "Lock name must be at most " + MAX_NAME_LENGTH
				+ " characters, was " + name.length() + ": '" + name.substring(0, 60) + "...'");
		Assert.isTrue(name.indexOf('{') < 0 && name.indexOf('}') < 0, () -> "Lock name '" + name
				+ "' must not contain '{' or '}': the client wraps the name in a Redis Cluster hash tag");
		return LockKeys.of(this.keyPrefix, name);
	}

	// On a cluster, renew in per-slot batches (a script's keys must share a slot).
	private static boolean isCluster(RedisConnectionFactory connectionFactory) {
		return ((LettuceConnectionFactory) connectionFactory).isClusterAware();
	}

	private static boolean isLettuce(RedisConnectionFactory connectionFactory) {
		return lettucePresent && connectionFactory instanceof LettuceConnectionFactory;
	}

}
