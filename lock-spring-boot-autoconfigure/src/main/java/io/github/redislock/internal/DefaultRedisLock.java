package io.github.redislock.internal;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;

import org.springframework.util.Assert;

import io.github.redislock.RedisLock;

/**
 * A lock name bound to its client's engine. Holds no state, so creating one per call is
 * free.
 */
final class DefaultRedisLock implements RedisLock {

	private static final long NO_LIMIT = -1;

	private static final long WATCHDOG = 0;

	private final LockKeys keys;

	private final LockEngine engine;

	DefaultRedisLock(LockKeys keys, LockEngine engine) {
		this.keys = keys;
		this.engine = engine;
	}

	@Override
	public String getName() {
		return this.keys.name();
	}

	@Override
	public void lock() {
		acquireUninterruptibly(WATCHDOG);
	}

	@Override
	public void lock(Duration leaseTime) {
		acquireUninterruptibly(leaseMillis(leaseTime));
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		checkInterrupt();
		this.engine.acquire(this.keys, NO_LIMIT, WATCHDOG, true);
	}

	@Override
	public boolean tryLock() {
		try {
			return this.engine.acquire(this.keys, 0, WATCHDOG, false);
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
		return this.engine.acquire(this.keys, Math.max(0, unit.toNanos(time)), WATCHDOG, true);
	}

	@Override
	public boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException {
		Assert.notNull(waitTime, () -> "waitTime of lock '" + getName() + "' must not be null");
		Assert.isTrue(!waitTime.isNegative(),
				() -> "waitTime of lock '" + getName() + "' must not be negative, was " + waitTime);
		long lease = (leaseTime != null) ? leaseMillis(leaseTime) : WATCHDOG;
		checkInterrupt();
		return this.engine.acquire(this.keys, saturatedNanos(waitTime), lease, true);
	}

	@Override
	public void unlock() {
		this.engine.release(this.keys);
	}

	@Override
	public boolean isLocked() {
		return this.engine.isLocked(this.keys);
	}

	@Override
	public boolean isHeldByCurrentThread() {
		return getHoldCount() > 0;
	}

	@Override
	public int getHoldCount() {
		return this.engine.holdCount(this.keys);
	}

	@Override
	public Duration remainingLease() {
		long millis = this.engine.remainingLeaseMillis(this.keys);
		if (millis == -1) {
			// a key without expiry: not written by this library
			return ChronoUnit.FOREVER.getDuration();
		}
		return (millis > 0) ? Duration.ofMillis(millis) : Duration.ZERO;
	}

	@Override
	public long fencingToken() {
		return this.engine.fencingToken(this.keys);
	}

	@Override
	public boolean forceUnlock() {
		return this.engine.forceRelease(this.keys);
	}

	@Override
	public String toString() {
		return "RedisLock[" + getName() + " -> " + this.keys.lockKey() + "]";
	}

	private void acquireUninterruptibly(long leaseMillis) {
		try {
			this.engine.acquire(this.keys, NO_LIMIT, leaseMillis, false);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("An uninterruptible acquire was interrupted", ex);
		}
	}

	private long leaseMillis(Duration leaseTime) {
		Assert.notNull(leaseTime, () -> "leaseTime of lock '" + getName() + "' must not be null");
		Assert.isTrue(leaseTime.toMillis() > 0,
				() -> "leaseTime of lock '" + getName() + "' must be at least 1ms, was " + leaseTime);
		return leaseTime.toMillis();
	}

	private static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException tooLong) {
			return Long.MAX_VALUE;
		}
	}

	private static void checkInterrupt() throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
	}

}
