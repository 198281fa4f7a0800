package io.github.redislock;

import java.time.Duration;
import java.util.function.Consumer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Where {@link RedisLockClient#builder} and {@link ReactiveRedisLockClient#create} find
 * the implementation: a service provider interface the library's engine implements and
 * registers in {@code META-INF/services}. Not for users to call or implement.
 * <p>
 * Why a {@link java.util.ServiceLoader} rather than the builder naming the engine's
 * class: the entry points users call must stay on the API's types, and an API package
 * that imports its implementation makes the two one unit (a cycle between the packages,
 * and every engine class one step from the API). The lookup runs once per class loader,
 * not per {@code build()}; GraalVM native images include the services file through the
 * library's runtime hints. The JDK finds JDBC drivers and its
 * {@code java.nio.channels.spi.SelectorProvider} the same way. A shaded jar must merge
 * the services files, as it must for those.
 *
 * @since 0.1.0
 */
public interface RedisLockClientProvider {

	/**
	 * Creates a client with these settings; {@link RedisLockClient.Builder} documents and
	 * checks each.
	 */
	RedisLockClient create(Settings settings);

	/**
	 * Creates a reactive client on the engine of the given client; see
	 * {@link ReactiveRedisLockClient#create}.
	 */
	ReactiveRedisLockClient reactive(RedisLockClient client);

	/**
	 * What is wrong with a key prefix, worded to follow its subject ("must not be
	 * blank"), or {@code null} when the engine accepts it: the rule the builder and the
	 * engine share.
	 */
	@Nullable String keyPrefixProblem(String keyPrefix);

	/**
	 * The settings of a client, as {@link RedisLockClient.Builder} collected and checked
	 * them.
	 *
	 * @param redisTemplate the template whose connection factory the client uses
	 * @param keyPrefix what every lock key starts with
	 * @param watchdogTimeout the lease of locks taken without an explicit lease
	 * @param commandTimeout the longest a single lock command waits for Redis' answer
	 * @param leaseLostListener who to tell when a lease is found lost
	 * @param observationRegistry where acquire and hold observations go, or {@code null}
	 * @param meterRegistry where gauges and counters go, or {@code null}
	 * @param acknowledgingReplicas how many replicas must acknowledge an acquisition, 0
	 * for none
	 * @param acknowledgementTimeout how long to wait for them
	 * @param maxLocalPasses how many times in a row a lock may pass between this client's
	 * owners while other clients wait
	 * @param shardedPubSub whether releases on a Redis Cluster go through sharded pub/sub
	 */
	record Settings(StringRedisTemplate redisTemplate, String keyPrefix, Duration watchdogTimeout,
			Duration commandTimeout, Consumer<LeaseLostEvent> leaseLostListener,
			@Nullable ObservationRegistry observationRegistry, @Nullable MeterRegistry meterRegistry,
			int acknowledgingReplicas, Duration acknowledgementTimeout, int maxLocalPasses,
			ShardedPubSub shardedPubSub) {

	}

}
