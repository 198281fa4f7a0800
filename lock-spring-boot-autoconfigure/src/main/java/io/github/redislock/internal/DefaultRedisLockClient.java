package io.github.redislock.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.jspecify.annotations.Nullable;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

import io.github.redislock.LeaseLostEvent;
import io.github.redislock.LockHandle;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisFairLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.ShardedPubSub;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.RedisSemaphore;

/**
 * The client: owns the per-client parts (identity, holds, subscriptions, watchdog) that
 * every {@link DefaultRedisLock} and {@link DefaultLockHandle} of it shares. Nothing here
 * is kept per lock name once nobody holds or waits for the lock.
 */
final class DefaultRedisLockClient implements RedisLockClient, LockInspector {

	/**
	 * How long a lock's release subscription outlives its last waiter, for the next burst
	 * of contention.
	 */
	static final Duration SUBSCRIPTION_GRACE_PERIOD = Duration.ofSeconds(1);

	private static final boolean lettucePresent = ClassUtils.isPresent(
			"org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory",
			DefaultRedisLockClient.class.getClassLoader())
			&& ClassUtils.isPresent("io.lettuce.core.RedisClient", DefaultRedisLockClient.class.getClassLoader());

	/**
	 * How long a lock freed while another client waits stays reserved for the other
	 * clients: the time their waiters need to hear of the release and ask for it. Only if
	 * none does (it gave up meanwhile) does the lock stay idle that long.
	 */
	static final long YIELD_MILLIS = 20;

	private final String keyPrefix;

	// the keys of the names locked last, so that locking one again works nothing out
	private final LockKeysCache keys;

	private final String clientId = UUID.randomUUID().toString();

	private final LockEngine engine;

	private final LockQueries queries;

	// acquisitions for new handles, which the reactive side shares
	private final HandleAcquisitions handles;

	private final Owners owners;

	private final ClientInspection inspection;

	private final RedisCalls calls;

	private final Lease watchdogLease;

	private final int maxLocalPasses;

	private final ShardedPubSub shardedPubSub;

	@Nullable private final LockMeters meters;

	/**
	 * Creates a client; {@link RedisLockClient#builder} documents the parameters, and
	 * {@link DefaultRedisLockClientProvider} calls it.
	 * @param observationRegistry where acquire and hold observations go, or {@code null}
	 * @param meterRegistry where gauges and counters go, or {@code null}; without an
	 * observation registry, also the timers
	 * @param acknowledgingReplicas how many replicas must acknowledge an acquisition, 0
	 * for none
	 * @param acknowledgementTimeout how long to wait for them
	 * @param maxLocalPasses how many times in a row a lock may pass between this client's
	 * owners while other clients wait, 0 to free every lock in Redis at its release
	 * @param shardedPubSub whether releases on a Redis Cluster go through sharded pub/sub
	 */
	DefaultRedisLockClient(StringRedisTemplate redisTemplate, String keyPrefix, Duration watchdogTimeout,
			Duration commandTimeout, Consumer<LeaseLostEvent> leaseLostListener,
			@Nullable ObservationRegistry observationRegistry, @Nullable MeterRegistry meterRegistry,
			int acknowledgingReplicas, Duration acknowledgementTimeout, int maxLocalPasses,
			ShardedPubSub shardedPubSub) {
		RedisConnectionFactory connectionFactory = redisTemplate.getConnectionFactory();
		Assert.notNull(connectionFactory, "The StringRedisTemplate has no connection factory");
		// the engine waits for Lettuce's asynchronous replies itself, to bound every call
		// by the lock command timeout and to survive interrupts
		Assert.isTrue(isLettuce(connectionFactory),
				() -> "redis-lock needs Lettuce (Spring Boot's default Redis client) and a LettuceConnectionFactory, "
						+ "but the connection factory is a " + connectionFactory.getClass().getName()
						+ "; remove the other client from the class path or define a LettuceConnectionFactory bean");
		this.keyPrefix = keyPrefix;
		this.keys = new LockKeysCache(keyPrefix);
		this.maxLocalPasses = maxLocalPasses;
		this.shardedPubSub = shardedPubSub;
		// every kind reads its scripts from the class path once, here: not at the first
		// lock call, which may run on a thread that must not block (a reactive one)
		LockType.values();
		RedisCalls calls = new RedisCalls(connectionFactory, commandTimeout.toMillis());
		this.calls = calls;
		calls.connectAhead();
		ReplicaAcknowledgement replicaAcknowledgement = (acknowledgingReplicas > 0)
				? new ReplicaAcknowledgement(acknowledgingReplicas, acknowledgementTimeout.toMillis()) : null;
		RedisLockCommands commands = new RedisLockCommands(calls, replicaAcknowledgement,
				(maxLocalPasses > 0) ? YIELD_MILLIS : 0);
		WaitQueues queues = new WaitQueues(this.clientId);
		Holds holds = new Holds((maxLocalPasses > 0) ? queues : null);
		ReleaseSubscriptions subscriptions = new ReleaseSubscriptions(connectionFactory, calls, keyPrefix,
				keyPrefix + "client:" + this.clientId, SUBSCRIPTION_GRACE_PERIOD.toMillis(), queues, shardedPubSub,
				commands::publishWith);
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
		watchdog.scheduleAlso(new WaiterHeartbeats(commands, queues)::beat, WaiterHeartbeats.PERIOD_MILLIS);
		this.owners = new Owners(this.clientId);
		LockReads reads = new LockReads(calls);
		Settlements settlements = new Settlements(commands);
		this.engine = new LockEngine(this.owners, new Waiting(commands, queues, subscriptions, maxLocalPasses), holds,
				watchdog, settlements, notifier, new LockObservations(observations));
		this.queries = new LockQueries(reads, holds);
		this.inspection = new ClientInspection(this.owners, holds, queues, subscriptions, watchdog, settlements, reads);
		this.watchdogLease = Lease.watchdog(watchdogTimeout.toMillis());
		this.meters = (meterRegistry != null) ? new LockMeters(meterRegistry, this.inspection) : null;
		this.handles = new HandleAcquisitions(this.keys, this.engine, this.queries, this.owners, this.watchdogLease);
		// last: the client is complete when its reactive side can find it
		OwnClients.register(this, this.handles);
	}

	@Override
	public RedisLock getLock(String name) {
		return new DefaultRedisLock(keys(name), this.engine, this.queries, this.watchdogLease);
	}

	@Override
	public RedisFairLock getFairLock(String name) {
		return new DefaultRedisFairLock(this.keys.get(LockType.FAIR, name), this.engine, this.queries,
				this.watchdogLease, this.handles);
	}

	@Override
	public RedisReadWriteLock getReadWriteLock(String name) {
		return new DefaultRedisReadWriteLock(this.keys.get(LockType.READ, name), this.keys.get(LockType.WRITE, name),
				this.engine, this.queries, this.watchdogLease, this.handles);
	}

	@Override
	public RedisSemaphore getSemaphore(String name, int permits) {
		return new DefaultRedisSemaphore(this.handles.keys(LockSpec.of(LockType.SEMAPHORE, permits), name), permits,
				this.handles, this.inspection.reads());
	}

	@Override
	public Optional<LockHandle> tryAcquire(String name, Duration waitTime, @Nullable Duration leaseTime) {
		return this.handles.tryAcquire(keys(name), waitTime, leaseTime);
	}

	@Override
	public CompletableFuture<LockHandle> acquireAsync(String name, Duration waitTime, @Nullable Duration leaseTime) {
		return this.handles.acquireAsync(keys(name), waitTime, leaseTime, null);
	}

	@Override
	public <T extends @Nullable Object> CompletableFuture<T> withLockAsync(String name, Duration waitTime,
			@Nullable Duration leaseTime, Supplier<? extends CompletionStage<T>> action) {
		Assert.notNull(action, "action must not be null");
		return acquireAsync(name, waitTime, leaseTime)
			.thenCompose((handle) -> AsyncHolds.holdUntilComplete((DefaultLockHandle) handle, action));
	}

	@Override
	public void close() {
		this.calls.availability().clientClosed();
		this.engine.close();
		this.calls.close();
		if (this.meters != null) {
			this.meters.close();
		}
	}

	@Override
	public List<KindState> kindStates(String name) {
		Map<String, LockKeys> layouts = new LinkedHashMap<>();
		for (LockType type : LockType.values()) {
			LockKeys keys = this.keys.get(type, name);
			layouts.putIfAbsent(keys.lockKey(), keys);
		}
		return this.inspection.reads().states(List.copyOf(layouts.values()));
	}

	@Override
	public FencingCounter fencingCounter(String name) {
		return this.inspection.reads().fencingCounter(LockKeys.fenceKey(this.keyPrefix, keys(name).lockKey()));
	}

	@Override
	public KindState kindState(LockType type, String name) {
		return this.inspection.reads().state(this.keys.get(type, name));
	}

	@Override
	public boolean isOwnedHere(String ownerId) {
		return this.inspection.isOwnedHere(ownerId);
	}

	@Override
	public List<HeldLock> heldLocks() {
		return this.inspection.heldLocks();
	}

	@Override
	public Map<String, Integer> waitingByLock() {
		return this.inspection.waitingByLock();
	}

	@Override
	public int heldCount() {
		return this.inspection.heldCount();
	}

	@Override
	public int waitingCount() {
		return this.inspection.waitingCount();
	}

	@Override
	public int subscribedCount() {
		return this.inspection.subscribedCount();
	}

	@Override
	public int watchdogCount() {
		return this.inspection.watchdogCount();
	}

	@Override
	public int settlingCount() {
		return this.inspection.settlingCount();
	}

	@Override
	public List<Long> remainingLeaseMillis(List<String> lockKeys) {
		return this.inspection.remainingLeaseMillis(lockKeys);
	}

	@Override
	public void renewNow() {
		this.inspection.renewNow();
	}

	@Override
	public String toString() {
		return "RedisLockClient[id=" + this.clientId + ", keyPrefix=" + this.keyPrefix + ", maxLocalPasses="
				+ this.maxLocalPasses + ", shardedPubSub=" + this.shardedPubSub + "]";
	}

	private LockKeys keys(String name) {
		return this.keys.get(LockType.EXCLUSIVE, name);
	}

	// On a cluster, renew in per-slot batches (a script's keys must share a slot).
	private static boolean isCluster(RedisConnectionFactory connectionFactory) {
		return ((LettuceConnectionFactory) connectionFactory).isClusterAware();
	}

	private static boolean isLettuce(RedisConnectionFactory connectionFactory) {
		return lettucePresent && connectionFactory instanceof LettuceConnectionFactory;
	}

}
