package io.github.redislock.internal;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

import io.github.redislock.LeaseLostEvent;
import io.github.redislock.RedisLock;

/**
 * A lock name bound to its client's engine and queries. Holds no state, so creating one
 * per call is free. Extended only by {@link DefaultRedisFairLock}, which adds handles.
 */
class DefaultRedisLock implements RedisLock {

	private final LockKeys keys;

	private final LockEngine engine;

	private final LockQueries queries;

	private final Owners owners;

	private final Lease watchdogLease;

	// a lock whose holder cannot take this one (the read side, for a write lock)
	@Nullable private final LockKeys excludedHolds;

	DefaultRedisLock(LockKeys keys, LockEngine engine, LockQueries queries, Lease watchdogLease) {
		this(keys, engine, queries, watchdogLease, null);
	}

	/**
	 * @param excludedHolds a lock whose holders may not acquire this one: they would wait
	 * for themselves (an upgrade from read to write)
	 */
	DefaultRedisLock(LockKeys keys, LockEngine engine, LockQueries queries, Lease watchdogLease,
			@Nullable LockKeys excludedHolds) {
		this.keys = keys;
		this.engine = engine;
		this.queries = queries;
		this.owners = engine.owners();
		this.watchdogLease = watchdogLease;
		this.excludedHolds = excludedHolds;
	}

	final LockKeys keys() {
		return this.keys;
	}

	@Override
	public String getName() {
		return this.keys.name();
	}

	@Override
	public void lock() {
		acquireUninterruptibly(this.watchdogLease);
	}

	@Override
	public void lock(Duration leaseTime) {
		acquireUninterruptibly(lease(leaseTime));
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		checkInterrupt();
		acquire(Wait.NO_LIMIT, this.watchdogLease, true);
	}

	@Override
	public boolean tryLock() {
		try {
			return acquire(Wait.NONE, this.watchdogLease, false);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("An acquire that does not wait cannot be interrupted", ex);
		}
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		Assert.notNull(unit, "unit must not be null");
		checkInterrupt();
		// as Lock specifies: zero or less does not wait; toNanos saturates at no limit
		return acquire(new Wait(Math.max(0, unit.toNanos(time))), this.watchdogLease, true);
	}

	@Override
	public boolean tryLock(Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException {
		Assert.notNull(waitTime, () -> "waitTime of lock '" + getName() + "' must not be null");
		Assert.isTrue(!waitTime.isNegative(),
				() -> "waitTime of lock '" + getName() + "' must not be negative, was " + waitTime);
		Lease lease = (leaseTime != null) ? lease(leaseTime) : this.watchdogLease;
		checkInterrupt();
		return acquire(Wait.of(waitTime), lease, true);
	}

	@Override
	public void unlock() {
		this.engine.release(this.keys, this.owners.currentThread());
	}

	@Override
	public void unlock(Duration holdAtLeast) {
		this.engine.release(this.keys, this.owners.currentThread(),
				LockReleases.holdAtLeastMillis(holdAtLeast, this.keys, "unlock", "thread"));
	}

	@Override
	public boolean extend(Duration leaseTime) {
		return this.engine.extend(this.keys, this.owners.currentThread(), lease(leaseTime).millis());
	}

	@Override
	public boolean isLocked() {
		return this.queries.isLocked(this.keys);
	}

	@Override
	public boolean isHeldByCurrentThread() {
		return getHoldCount() > 0;
	}

	@Override
	public int getHoldCount() {
		return this.queries.holdCount(this.keys, this.owners.currentThread());
	}

	@Override
	public Duration remainingLease() {
		long millis = this.queries.remainingLeaseMillis(this.keys);
		if (millis == LockReads.NO_EXPIRY) {
			// a key without expiry: not written by this library
			return ChronoUnit.FOREVER.getDuration();
		}
		return (millis > 0) ? Duration.ofMillis(millis) : Duration.ZERO;
	}

	@Override
	public long fencingToken() {
		return this.queries.fencingToken(this.keys, this.owners.currentThread());
	}

	@Override
	public CompletionStage<LeaseLostEvent> leaseLost() {
		return this.engine.leaseLost(this.queries.held(this.keys, this.owners.currentThread(), "no lease to watch"));
	}

	@Override
	public boolean forceUnlock() {
		return this.engine.forceRelease(this.keys);
	}

	@Override
	public String toString() {
		return "RedisLock[" + getName() + " -> " + this.keys.lockKey()
				+ ((this.keys.id().equals(this.keys.lockKey())) ? "" : " (" + this.keys.id() + ")") + "]";
	}

	// the owner is the calling thread, chosen here once for the whole acquisition
	private boolean acquire(Wait wait, Lease lease, boolean interruptible) throws InterruptedException {
		Owner owner = this.owners.currentThread();
		if (this.excludedHolds != null && this.queries.holdsLocally(this.excludedHolds, owner)) {
			throw new IllegalMonitorStateException("Thread '" + owner.thread().getName() + "' holds the read lock of '"
					+ getName() + "' and cannot take its write lock: it would wait "
					+ "for its own read lock to be released. Release the read lock first (and read again under "
					+ "the write lock), or take the write lock from the start");
		}
		return this.engine.acquire(this.keys, owner, wait, lease, interruptible) != null;
	}

	private void acquireUninterruptibly(Lease lease) {
		try {
			acquire(Wait.NO_LIMIT, lease, false);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("An uninterruptible acquire was interrupted", ex);
		}
	}

	private Lease lease(Duration leaseTime) {
		Assert.notNull(leaseTime, () -> "leaseTime of lock '" + getName() + "' must not be null");
		Assert.isTrue(leaseTime.toMillis() > 0,
				() -> "leaseTime of lock '" + getName() + "' must be at least 1ms, was " + leaseTime);
		return Lease.fixed(leaseTime.toMillis());
	}

	private static void checkInterrupt() throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
	}

}
