package io.github.redislock;

import java.time.Duration;
import java.util.function.Consumer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.Assert;

/**
 * The {@link RedisLockClient.Builder} {@link RedisLockClient#builder} hands out: the
 * options with their defaults, each checked when set, and {@link #build()}, which reaches
 * the engine through the one factory the API declares ({@link RedisLockClientProvider}).
 */
final class DefaultRedisLockClientBuilder implements RedisLockClient.Builder {

	private final StringRedisTemplate redisTemplate;

	private String keyPrefix = "lock:";

	private Duration watchdogTimeout = Duration.ofSeconds(30);

	private Duration commandTimeout = Duration.ofSeconds(2);

	private Consumer<LeaseLostEvent> leaseLostListener = (event) -> {
	};

	@Nullable private ObservationRegistry observationRegistry;

	@Nullable private MeterRegistry meterRegistry;

	private int acknowledgingReplicas;

	private Duration acknowledgementTimeout = Duration.ZERO;

	private int maxLocalPasses = 8;

	private ShardedPubSub shardedPubSub = ShardedPubSub.AUTO;

	DefaultRedisLockClientBuilder(StringRedisTemplate redisTemplate) {
		Assert.notNull(redisTemplate, "redisTemplate must not be null");
		this.redisTemplate = redisTemplate;
	}

	@Override
	public RedisLockClient.Builder keyPrefix(String keyPrefix) {
		Assert.notNull(keyPrefix, "keyPrefix must not be null");
		String problem = ClientProviders.provider().keyPrefixProblem(keyPrefix);
		Assert.isNull(problem, () -> "keyPrefix " + problem + " (was '" + keyPrefix + "')");
		this.keyPrefix = keyPrefix;
		return this;
	}

	@Override
	public RedisLockClient.Builder watchdogTimeout(Duration watchdogTimeout) {
		Assert.notNull(watchdogTimeout, "watchdogTimeout must not be null");
		Assert.isTrue(watchdogTimeout.compareTo(Duration.ofMillis(300)) >= 0,
				() -> "watchdogTimeout must be at least 300ms, was " + watchdogTimeout);
		this.watchdogTimeout = watchdogTimeout;
		return this;
	}

	@Override
	public RedisLockClient.Builder commandTimeout(Duration commandTimeout) {
		Assert.notNull(commandTimeout, "commandTimeout must not be null");
		Assert.isTrue(commandTimeout.toMillis() >= 10,
				() -> "commandTimeout must be at least 10ms, was " + commandTimeout);
		this.commandTimeout = commandTimeout;
		return this;
	}

	@Override
	public RedisLockClient.Builder leaseLostListener(Consumer<LeaseLostEvent> leaseLostListener) {
		Assert.notNull(leaseLostListener, "leaseLostListener must not be null");
		this.leaseLostListener = leaseLostListener;
		return this;
	}

	@Override
	public RedisLockClient.Builder observationRegistry(ObservationRegistry observationRegistry) {
		Assert.notNull(observationRegistry, "observationRegistry must not be null");
		this.observationRegistry = observationRegistry;
		return this;
	}

	@Override
	public RedisLockClient.Builder meterRegistry(MeterRegistry meterRegistry) {
		Assert.notNull(meterRegistry, "meterRegistry must not be null");
		this.meterRegistry = meterRegistry;
		return this;
	}

	@Override
	public RedisLockClient.Builder replicaAcknowledgement(int replicas, Duration timeout) {
		Assert.isTrue(replicas >= 1, () -> "replicas must be at least 1, was " + replicas);
		Assert.notNull(timeout, "timeout must not be null");
		Assert.isTrue(timeout.toMillis() >= 1, () -> "timeout must be at least 1ms, was " + timeout);
		this.acknowledgingReplicas = replicas;
		this.acknowledgementTimeout = timeout;
		return this;
	}

	@Override
	public RedisLockClient.Builder maxLocalPasses(int maxLocalPasses) {
		Assert.isTrue(maxLocalPasses >= 0, () -> "maxLocalPasses must not be negative, was " + maxLocalPasses);
		Assert.isTrue(maxLocalPasses <= RedisLockClient.Builder.MAX_LOCAL_PASSES_LIMIT,
				() -> "maxLocalPasses must be at most " + RedisLockClient.Builder.MAX_LOCAL_PASSES_LIMIT
						+ " (the fencing tokens a grant reserves), was " + maxLocalPasses);
		this.maxLocalPasses = maxLocalPasses;
		return this;
	}

	@Override
	public RedisLockClient.Builder shardedPubSub(ShardedPubSub shardedPubSub) {
		Assert.notNull(shardedPubSub, "shardedPubSub must not be null");
		this.shardedPubSub = shardedPubSub;
		return this;
	}

	@Override
	public RedisLockClient build() {
		// the engine, through the one factory the API declares (see
		// RedisLockClientProvider)
		return ClientProviders.provider()
			.create(new RedisLockClientProvider.Settings(this.redisTemplate, this.keyPrefix, this.watchdogTimeout,
					this.commandTimeout, this.leaseLostListener, this.observationRegistry, this.meterRegistry,
					this.acknowledgingReplicas, this.acknowledgementTimeout, this.maxLocalPasses, this.shardedPubSub));
	}

}
