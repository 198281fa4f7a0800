package io.github.redislock.autoconfigure;

import java.time.Duration;

import io.github.redislock.RedisLockClient;
import io.github.redislock.ShardedPubSub;
import io.github.redislock.internal.LockNames;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;
import org.jspecify.annotations.Nullable;
import org.springframework.util.Assert;

/**
 * Settings of redis-lock, under {@code redis-lock.*}. The Redis connection itself comes
 * from {@code spring.data.redis.*}. Invalid values fail start-up naming the property.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("redis-lock")
public class RedisLockProperties {

	/**
	 * Default of the order property: inside security interceptors, outside
	 * {@code @Transactional}.
	 */
	public static final int DEFAULT_ASPECT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	/**
	 * Whether to auto-configure the lock client and the @DistributedLock support.
	 */
	private boolean enabled = true;

	/**
	 * What every lock key starts with; the key of lock 'order:42' is then
	 * '<prefix>{order:42}'. Must not be blank or contain '{' or '}'.
	 */
	private String keyPrefix = "lock:";

	/**
	 * How long @DistributedLock methods wait for their lock when the annotation gives no
	 * waitTime. 0 means do not wait.
	 */
	private Duration waitTime = Duration.ofSeconds(5);

	/**
	 * Lease of @DistributedLock methods whose annotation gives no leaseTime. Unset: a
	 * lease the watchdog renews until the method returns.
	 */
	@Nullable private Duration leaseTime;

	/**
	 * Lease of locks taken without an explicit lease; the watchdog renews it every third
	 * of this. At least 300ms.
	 */
	private Duration watchdogTimeout = Duration.ofSeconds(30);

	/**
	 * Longest a single lock command (acquire, release, renewal, status read) waits for
	 * Redis, whatever spring.data.redis.timeout says: an acquisition returns within its
	 * wait time plus this, a release within this. A call that finds Redis unreachable
	 * tries to reconnect for this long, then fails saying why (refused, timed out, reset)
	 * and where; locks work again as soon as Redis accepts connections. An acquisition
	 * cut short this way is released in the background once Redis answers again. At least
	 * 10ms.
	 */
	private Duration commandTimeout = Duration.ofSeconds(2);

	/**
	 * How many times in a row a lock may pass from one thread of this application to
	 * another waiting for it without being freed in Redis, while other applications'
	 * threads wait for it too. Passing goes on while nobody else waits; a semaphore
	 * permit, whose other waiters Redis cannot see, goes back to Redis after this many
	 * passes in a row. 0 frees every lock and permit in Redis at its release. At most 64:
	 * each grant reserves this many fencing tokens, which must not outrun the Redis
	 * server's clock.
	 */
	private int maxLocalPasses = 8;

	/**
	 * Whether releases on a Redis Cluster are announced with sharded pub/sub (SPUBLISH,
	 * Redis 7), which reaches only the nodes of the lock's shard, instead of PUBLISH,
	 * which reaches every node. 'auto' asks every master once at start-up and falls back
	 * to classic pub/sub (with a warning) when one does not take SPUBLISH: Redis 6, or an
	 * ACL user without +spublish. 'always' does not ask; 'never' keeps classic pub/sub,
	 * for rolling upgrades from a version without it. Standalone and Sentinel always use
	 * classic pub/sub.
	 */
	private ShardedPubSub shardedPubSub = ShardedPubSub.AUTO;

	/**
	 * Order of the @DistributedLock advice among other advice (lower runs first, i.e.
	 * outside). The default puts the lock outside @Transactional, so a transaction
	 * commits before its lock is released.
	 */
	private int aspectOrder = DEFAULT_ASPECT_ORDER;

	private final ReplicaAcknowledgement replicaAcknowledgement = new ReplicaAcknowledgement();

	private final Fencing fencing = new Fencing();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		Assert.notNull(keyPrefix, "redis-lock.key-prefix must not be blank");
		String problem = LockNames.keyPrefixProblem(keyPrefix);
		Assert.isNull(problem, () -> "redis-lock.key-prefix " + problem + " (was '" + keyPrefix + "')");
		this.keyPrefix = keyPrefix;
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		Assert.isTrue(waitTime != null && !waitTime.isNegative(),
				() -> "redis-lock.wait-time must not be negative, was " + waitTime);
		this.waitTime = waitTime;
	}

	@Nullable public Duration getLeaseTime() {
		return this.leaseTime;
	}

	public void setLeaseTime(@Nullable Duration leaseTime) {
		Assert.isTrue(leaseTime == null || leaseTime.toMillis() > 0,
				() -> "redis-lock.lease-time must be at least 1ms (leave it unset for the watchdog), was " + leaseTime);
		this.leaseTime = leaseTime;
	}

	public Duration getWatchdogTimeout() {
		return this.watchdogTimeout;
	}

	public void setWatchdogTimeout(Duration watchdogTimeout) {
		Assert.isTrue(watchdogTimeout != null && watchdogTimeout.compareTo(Duration.ofMillis(300)) >= 0,
				() -> "redis-lock.watchdog-timeout must be at least 300ms, was " + watchdogTimeout);
		this.watchdogTimeout = watchdogTimeout;
	}

	public Duration getCommandTimeout() {
		return this.commandTimeout;
	}

	public void setCommandTimeout(Duration commandTimeout) {
		Assert.isTrue(commandTimeout != null && commandTimeout.toMillis() >= 10,
				() -> "redis-lock.command-timeout must be at least 10ms, was " + commandTimeout);
		this.commandTimeout = commandTimeout;
	}

	public ShardedPubSub getShardedPubSub() {
		return this.shardedPubSub;
	}

	public void setShardedPubSub(ShardedPubSub shardedPubSub) {
		this.shardedPubSub = shardedPubSub;
	}

	public int getMaxLocalPasses() {
		return this.maxLocalPasses;
	}

	public void setMaxLocalPasses(int maxLocalPasses) {
		Assert.isTrue(maxLocalPasses >= 0,
				() -> "redis-lock.max-local-passes must not be negative, was " + maxLocalPasses);
		Assert.isTrue(maxLocalPasses <= RedisLockClient.Builder.MAX_LOCAL_PASSES_LIMIT,
				() -> "redis-lock.max-local-passes must be at most " + RedisLockClient.Builder.MAX_LOCAL_PASSES_LIMIT
						+ " (the fencing tokens a grant reserves), was " + maxLocalPasses);
		this.maxLocalPasses = maxLocalPasses;
	}

	public int getAspectOrder() {
		return this.aspectOrder;
	}

	public void setAspectOrder(int aspectOrder) {
		this.aspectOrder = aspectOrder;
	}

	public ReplicaAcknowledgement getReplicaAcknowledgement() {
		return this.replicaAcknowledgement;
	}

	public Fencing getFencing() {
		return this.fencing;
	}

	/**
	 * Whether acquisitions wait for replicas (Redis' WAIT) before they count.
	 */
	public static class ReplicaAcknowledgement {

		/**
		 * How many replicas of the lock's master must acknowledge each acquisition before
		 * it counts, so that a failover cannot lose it. 0 turns acknowledgement off.
		 */
		private int replicas;

		/**
		 * How long an acquisition waits for the replicas; one not acknowledged in time is
		 * released again and fails.
		 */
		private Duration timeout = Duration.ofMillis(100);

		public int getReplicas() {
			return this.replicas;
		}

		public void setReplicas(int replicas) {
			Assert.isTrue(replicas >= 0,
					() -> "redis-lock.replica-acknowledgement.replicas must not be negative, was " + replicas);
			this.replicas = replicas;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			Assert.isTrue(timeout != null && timeout.toMillis() >= 1,
					() -> "redis-lock.replica-acknowledgement.timeout must be at least 1ms, was " + timeout);
			this.timeout = timeout;
		}

	}

	/**
	 * The stores that refuse a stale holder (io.github.redislock.fencing).
	 */
	public static class Fencing {

		/**
		 * Table of the auto-configured JdbcFencingGuard, optionally with its schema
		 * ('locks.fence'): one row per resource, with the highest fencing token accepted.
		 */
		private String table = "redis_lock_fence";

		public String getTable() {
			return this.table;
		}

		public void setTable(String table) {
			Assert.isTrue(
					table != null && table.matches("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?"),
					() -> "redis-lock.fencing.table must be letters, digits and underscores, optionally after a schema"
							+ " name and a dot, was '" + table + "'");
			this.table = table;
		}

	}

}
