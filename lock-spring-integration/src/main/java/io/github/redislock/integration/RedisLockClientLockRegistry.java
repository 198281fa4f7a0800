package io.github.redislock.integration;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisLockException;
import org.jspecify.annotations.Nullable;

import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.util.Assert;

/**
 * A Spring Integration lock registry on a {@link RedisLockClient}: components that take a
 * {@code LockRegistry} (leader election with {@code LockRegistryLeaderInitiator},
 * aggregators, {@code executeLocked}) keep their code and run on this library's locks,
 * with its watchdog, metrics, traces and {@code locks} endpoint.
 * <p>
 * <b>Names.</b> Lock keys are strings; the key {@code orders} is the lock named
 * {@code <namePrefix>orders}, {@code integration:orders} with the default
 * {@linkplain #DEFAULT_NAME_PREFIX prefix}, so in Redis {@code lock:{integration:orders}}
 * with the client's default key prefix. The same name taken through
 * {@link RedisLockClient#getLock(String)} is the same lock. Any non-blank key works, with
 * braces or over 1,024 characters too (the client hashes such a name into its keys and
 * shows it as it is); a blank one is refused by {@link #obtain(Object)} with an
 * {@link IllegalArgumentException}.
 * <p>
 * <b>Ownership and re-entry.</b> A lock is a {@link RedisLock}: owned by the thread that
 * locked it and re-entrant for that thread (each {@code lock} needs its own
 * {@code unlock}); another thread's {@code unlock()} throws
 * {@link IllegalMonitorStateException} (Spring Integration's {@code RedisLockRegistry}
 * throws {@link IllegalStateException}). Unlike {@code RedisLockRegistry}, ownership
 * belongs to the thread within the client, not within the registry: two registries over
 * one client with the same prefix hand out the same locks, so a thread that holds a key
 * through one re-enters it through the other instead of waiting for itself. Two clients
 * (two applications) are different owners.
 * <p>
 * <b>Leases.</b> {@link DistributedLock#lock(Duration)} and
 * {@link DistributedLock#tryLock(Duration, Duration)} take the lock with that TTL as a
 * fixed lease that nothing renews. The methods of {@code Lock}, which take no TTL, use
 * the registry's {@linkplain #setDefaultTtl default TTL}; by default there is none and
 * they use the client's watchdog instead: a lease of {@code redis-lock.watchdog-timeout}
 * (30 s by default) renewed while the thread holds the lock, so a long task never loses
 * it and a crashed process frees it within that time. {@code RedisLockRegistry} instead
 * gives every lock a fixed 60 s unless a renewal scheduler is set; this registry needs
 * none, and {@link #setRenewalTaskScheduler} is ignored. A nested acquisition with a TTL
 * may lengthen the current lease but never shortens it, and keeps the lease's mode
 * ({@code RedisLockRegistry} sets the lease to the new TTL). A holder that outlives a
 * fixed lease loses the lock, and its {@code unlock()} throws
 * {@link LeaseExpiredException} (an {@code IllegalMonitorStateException};
 * {@code RedisLockRegistry} throws {@code ConcurrentModificationException}).
 * <p>
 * <b>Renewal.</b> {@link #renewLock(Object, Duration)} sets the lease of the current
 * thread's hold to the given TTL from now, as {@code RedisLockRegistry} does; see there.
 * <p>
 * <b>Failures.</b> When Redis cannot be reached, acquiring and releasing throw
 * {@link RedisLockException} within {@code redis-lock.command-timeout} (2 s by default;
 * {@code RedisLockRegistry} throws {@code CannotAcquireLockException}); see
 * {@link RedisLock} for the details. An {@code unlock()} on an interrupted thread still
 * releases the lock in Redis before it returns, and leaves the interrupt status set.
 * <p>
 * <b>Lock objects.</b> {@link #obtain(Object)} returns one object per key while it is
 * cached. The objects keep nothing but the time of their last acquisition and how many
 * holds this process has on them (for {@link #expireUnusedOlderThan(long)}): the lock's
 * state is in the client and in Redis. An object dropped from the cache therefore stays
 * usable and is the same lock as the one that replaces it ({@code RedisLockRegistry}
 * refuses to lock a lock evicted from its cache). Beyond its
 * {@linkplain #setCacheCapacity capacity} the cache drops objects no thread holds;
 * {@code obtain} never fails for a full cache.
 * <p>
 * Conditions are not supported.
 *
 * @since 0.1.0
 */
public class RedisLockClientLockRegistry
		implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {

	/**
	 * What a lock key is prefixed with to make the lock's name, unless told otherwise.
	 */
	public static final String DEFAULT_NAME_PREFIX = "integration:";

	/** How many lock objects the cache keeps by default, as {@code RedisLockRegistry}. */
	public static final int DEFAULT_CACHE_CAPACITY = 100_000;

	// a wait without a limit, for lockInterruptibly with a fixed lease
	private static final Duration NO_LIMIT = ChronoUnit.FOREVER.getDuration();

	private final RedisLockClient client;

	private final String namePrefix;

	private final ConcurrentMap<String, RegistryLock> locks = new ConcurrentHashMap<>();

	@Nullable private volatile Duration defaultTtl;

	private volatile int cacheCapacity = DEFAULT_CACHE_CAPACITY;

	/**
	 * Creates a registry whose lock names are the keys prefixed with
	 * {@value #DEFAULT_NAME_PREFIX}.
	 * @param client the lock client, usually the auto-configured one
	 */
	public RedisLockClientLockRegistry(RedisLockClient client) {
		this(client, DEFAULT_NAME_PREFIX);
	}

	/**
	 * Creates a registry whose lock names are the keys prefixed with {@code namePrefix}.
	 * To keep the lock names of a {@code RedisLockRegistry} built with registry key
	 * {@code orders}, pass {@code "orders:"} (the Redis keys still differ: see the
	 * migration guide).
	 * @param client the lock client, usually the auto-configured one
	 * @param namePrefix what every lock key is prefixed with; may be empty, then the key
	 * is the lock's name
	 * @throws IllegalArgumentException if the prefix makes names the client refuses
	 * (containing '{' or '}')
	 */
	public RedisLockClientLockRegistry(RedisLockClient client, String namePrefix) {
		Assert.notNull(client, "client must not be null");
		Assert.notNull(namePrefix, "namePrefix must not be null");
		try {
			client.getLock(namePrefix + "key");
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"namePrefix '" + namePrefix + "' does not make lock names the client accepts: " + ex.getMessage(),
					ex);
		}
		this.client = client;
		this.namePrefix = namePrefix;
	}

	/**
	 * The TTL of locks taken by the methods of {@code Lock}, which take none
	 * ({@code lock()}, {@code tryLock(...)}, {@code lockInterruptibly()}, and so
	 * {@code executeLocked} and {@code LockRegistryLeaderInitiator}), and of
	 * {@link #renewLock(Object)}: a fixed lease that nothing renews. {@code null}, the
	 * default, uses the client's watchdog, which renews the lease for as long as the
	 * thread holds the lock.
	 * @param defaultTtl the lease, at least 1 ms, or {@code null} for the watchdog
	 */
	public void setDefaultTtl(@Nullable Duration defaultTtl) {
		Assert.isTrue(defaultTtl == null || defaultTtl.toMillis() >= 1,
				() -> "defaultTtl must be at least 1ms, was " + defaultTtl);
		this.defaultTtl = defaultTtl;
	}

	/**
	 * How many lock objects the cache keeps before it drops those no thread of this
	 * process holds (default {@value #DEFAULT_CACHE_CAPACITY}). Dropping one is harmless:
	 * see the class description.
	 * @param cacheCapacity at least 1
	 */
	public void setCacheCapacity(int cacheCapacity) {
		Assert.isTrue(cacheCapacity >= 1, () -> "cacheCapacity must be at least 1, was " + cacheCapacity);
		this.cacheCapacity = cacheCapacity;
	}

	/**
	 * The lock of the given key, the lock named {@code <namePrefix><key>}. Nothing is
	 * sent to Redis.
	 * @param lockKey a {@link String}
	 * @return the lock; the same object for the same key while it is cached
	 * @throws IllegalArgumentException if the key is not a {@code String}, or its name is
	 * not a usable lock name (blank, containing '{' or '}', or longer than 1,024
	 * characters)
	 */
	@Override
	public DistributedLock obtain(Object lockKey) {
		String key = key(lockKey);
		RegistryLock lock = this.locks.get(key);
		if (lock == null) {
			RegistryLock created = new RegistryLock(key, redisLock(key));
			lock = this.locks.putIfAbsent(key, created);
			if (lock == null) {
				lock = created;
				if (this.locks.size() > this.cacheCapacity) {
					evictUnheld(created);
				}
			}
		}
		return lock;
	}

	/**
	 * Drops the cached lock objects last acquired (or created, if never acquired) at
	 * least {@code age} milliseconds ago that no thread of this process holds. The client
	 * keeps nothing per lock name once nobody holds or waits for it, so this only bounds
	 * the registry's own cache; a dropped object stays usable.
	 * @param age in milliseconds; zero or less drops every object not held
	 */
	@Override
	public void expireUnusedOlderThan(long age) {
		long now = System.currentTimeMillis();
		this.locks.values().removeIf((lock) -> now - lock.lastAcquired >= age && lock.holds.get() == 0);
	}

	/**
	 * Renews the current thread's hold of the key's lock with the registry's
	 * {@linkplain #setDefaultTtl default TTL}, as {@link #renewLock(Object, Duration)}
	 * does. Without a default TTL, a hold the watchdog renews stays the watchdog's (it is
	 * only checked in Redis), and a hold with a fixed lease gets at least the client's
	 * watchdog timeout from now.
	 * @throws IllegalStateException if the current thread does not hold the lock (never
	 * took it, released it, or its lease ran out)
	 * @throws RedisLockException if Redis cannot be reached
	 */
	@Override
	public void renewLock(Object lockKey) {
		Duration ttl = this.defaultTtl;
		if (ttl != null) {
			renewLock(lockKey, ttl);
		}
		else {
			renewWithWatchdogTimeout(key(lockKey));
		}
	}

	/**
	 * Sets the lease of the current thread's hold of the key's lock to exactly
	 * {@code ttl} from now, shorter or longer, as {@code RedisLockRegistry} does: one
	 * round trip that checks in Redis that the thread still holds the lock (see
	 * {@link RedisLock#extend(Duration)}). The lease is fixed from then on, also when the
	 * watchdog renewed it before: a holder that outlives it loses the lock.
	 * @param lockKey the key, a {@code String}
	 * @param ttl the lease from now, at least 1 ms
	 * @throws IllegalStateException if the current thread does not hold the lock (never
	 * took it, released it, or its lease ran out)
	 * @throws RedisLockException if Redis cannot be reached
	 */
	@Override
	public void renewLock(Object lockKey, Duration ttl) {
		Assert.notNull(ttl, "ttl must not be null");
		Assert.isTrue(ttl.toMillis() >= 1, () -> "ttl must be at least 1ms, was " + ttl);
		RedisLock lock = cachedOrNew(key(lockKey));
		if (!lock.extend(ttl)) {
			throw notHeld(lock);
		}
	}

	@Override
	public String toString() {
		return "RedisLockClientLockRegistry[namePrefix='" + this.namePrefix + "']";
	}

	private RedisLock cachedOrNew(String key) {
		RegistryLock cached = this.locks.get(key);
		return (cached != null) ? cached.lock : redisLock(key);
	}

	private void renewWithWatchdogTimeout(String key) {
		RedisLock lock = cachedOrNew(key);
		if (!lock.isHeldByCurrentThread()) {
			throw notHeld(lock);
		}
		long token;
		try {
			token = lock.fencingToken();
		}
		catch (IllegalMonitorStateException ex) {
			// lost since
			throw notHeld(lock);
		}
		// A nested acquisition lengthens the lease when it runs out sooner than the new
		// one, and is released at once. A nested acquisition that does not wait is never
		// interrupted: the interrupt status is kept aside meanwhile.
		boolean interrupted = Thread.interrupted();
		boolean acquired;
		try {
			acquired = lock.tryLock(Duration.ZERO, null);
		}
		catch (InterruptedException ex) {
			interrupted = true;
			acquired = false;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
		if (!acquired) {
			throw notHeld(lock);
		}
		boolean sameHold;
		try {
			sameHold = lock.fencingToken() == token;
		}
		finally {
			lock.unlock();
		}
		if (!sameHold) {
			// the hold was lost just before and this was a new acquisition, now
			// released again
			throw notHeld(lock);
		}
	}

	private static IllegalStateException notHeld(RedisLock lock) {
		return new IllegalStateException("Cannot renew lock '" + lock.getName()
				+ "': the current thread does not hold it (never took it, released it, or its lease ran out)");
	}

	private static String key(Object lockKey) {
		Assert.isInstanceOf(String.class, lockKey, "lockKey must be a String: ");
		return (String) lockKey;
	}

	private RedisLock redisLock(String key) {
		String name = this.namePrefix + key;
		try {
			return this.client.getLock(name);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"Lock key " + quote(key) + " cannot be used by " + this + ": " + ex.getMessage(), ex);
		}
	}

	private static String quote(String key) {
		return "'" + ((key.length() > 60) ? key.substring(0, 60) + "...'" : key + "'");
	}

	private void evictUnheld(RegistryLock keep) {
		Iterator<RegistryLock> it = this.locks.values().iterator();
		while (this.locks.size() > this.cacheCapacity && it.hasNext()) {
			RegistryLock lock = it.next();
			if (lock != keep && lock.holds.get() == 0) {
				it.remove();
			}
		}
	}

	/**
	 * A {@link RedisLock} of this registry, with what
	 * {@link RedisLockClientLockRegistry#expireUnusedOlderThan(long)} needs to know.
	 */
	private final class RegistryLock implements DistributedLock {

		private final String key;

		final RedisLock lock;

		// holds this process has on the lock through this object, not yet released
		final AtomicInteger holds = new AtomicInteger();

		volatile long lastAcquired = System.currentTimeMillis();

		RegistryLock(String key, RedisLock lock) {
			this.key = key;
			this.lock = lock;
		}

		@Override
		public void lock() {
			Duration ttl = RedisLockClientLockRegistry.this.defaultTtl;
			lock(ttl);
		}

		/**
		 * Acquires the lock with the given TTL as a fixed lease, waiting as long as it
		 * takes; an interrupt does not stop the wait, and is set again once the lock is
		 * held.
		 * @param ttl the lease, or {@code null} for a lease the watchdog renews
		 */
		@Override
		public void lock(@Nullable Duration ttl) {
			if (ttl == null) {
				this.lock.lock();
			}
			else {
				this.lock.lock(ttl);
			}
			acquired();
		}

		@Override
		public void lockInterruptibly() throws InterruptedException {
			Duration ttl = RedisLockClientLockRegistry.this.defaultTtl;
			if (ttl == null) {
				this.lock.lockInterruptibly();
			}
			else if (!this.lock.tryLock(NO_LIMIT, ttl)) {
				throw new IllegalStateException("A wait without a limit for lock '" + this.lock.getName() + "' ended");
			}
			acquired();
		}

		@Override
		public boolean tryLock() {
			Duration ttl = RedisLockClientLockRegistry.this.defaultTtl;
			boolean acquired;
			if (ttl == null) {
				acquired = this.lock.tryLock();
			}
			else {
				// as Lock.tryLock(): no wait, and an interrupt status is kept, not
				// thrown
				boolean interrupted = Thread.interrupted();
				try {
					acquired = this.lock.tryLock(Duration.ZERO, ttl);
				}
				catch (InterruptedException ex) {
					interrupted = true;
					acquired = false;
				}
				finally {
					if (interrupted) {
						Thread.currentThread().interrupt();
					}
				}
			}
			return acquired && acquired();
		}

		@Override
		public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
			Assert.notNull(unit, "unit must not be null");
			// toNanos saturates: a wait beyond 292 years has no limit
			return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))),
					RedisLockClientLockRegistry.this.defaultTtl);
		}

		/**
		 * Acquires the lock with the given TTL as a fixed lease, waiting at most
		 * {@code waitTime}.
		 * @param waitTime how long to wait; zero or less does not wait
		 * @param ttl the lease, or {@code null} for a lease the watchdog renews
		 */
		@Override
		public boolean tryLock(Duration waitTime, @Nullable Duration ttl) throws InterruptedException {
			Assert.notNull(waitTime, "waitTime must not be null");
			Duration wait = waitTime.isNegative() ? Duration.ZERO : waitTime;
			return this.lock.tryLock(wait, ttl) && acquired();
		}

		@Override
		public void unlock() {
			try {
				this.lock.unlock();
			}
			catch (LeaseExpiredException | RedisLockException ex) {
				// the hold is gone (lost, or forgotten and released in the background)
				released();
				throw ex;
			}
			released();
		}

		/**
		 * Not supported.
		 * @throws UnsupportedOperationException always
		 */
		@Override
		public Condition newCondition() {
			return this.lock.newCondition();
		}

		@Override
		public String toString() {
			return "RedisLockClientLockRegistry.Lock[key='" + this.key + "', " + this.lock + "]";
		}

		private boolean acquired() {
			this.holds.incrementAndGet();
			this.lastAcquired = System.currentTimeMillis();
			return true;
		}

		private void released() {
			this.holds.updateAndGet((count) -> Math.max(0, count - 1));
		}

	}

}
