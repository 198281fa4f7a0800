package io.github.redislock.internal;

import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Schedulers;

import io.github.redislock.ReactiveRedisLockClient;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisLockClientProvider;

/**
 * The engine behind the API's entry points, registered in
 * {@code META-INF/services/io.github.redislock.RedisLockClientProvider}: public only
 * because {@link java.util.ServiceLoader} instantiates it. Not API.
 */
public final class DefaultRedisLockClientProvider implements RedisLockClientProvider {

	@Override
	public RedisLockClient create(Settings settings) {
		return new DefaultRedisLockClient(settings.redisTemplate(), settings.keyPrefix(), settings.watchdogTimeout(),
				settings.commandTimeout(), settings.leaseLostListener(), settings.observationRegistry(),
				settings.meterRegistry(), settings.acknowledgingReplicas(), settings.acknowledgementTimeout(),
				settings.maxLocalPasses(), settings.shardedPubSub());
	}

	// Reactor is loaded only here, when a reactive client is made
	@Override
	public ReactiveRedisLockClient reactive(RedisLockClient client) {
		return new ReactiveLocks(client, Schedulers.parallel());
	}

	@Override
	public @Nullable String keyPrefixProblem(String keyPrefix) {
		return LockNames.keyPrefixProblem(keyPrefix);
	}

}
