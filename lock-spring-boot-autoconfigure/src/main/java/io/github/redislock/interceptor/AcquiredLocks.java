package io.github.redislock.interceptor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.annotation.IfLeaseLost;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.lang.Nullable;

/**
 * The locks of one call, taken all or none in the order given (sorted, so that two calls
 * needing the same locks cannot deadlock), within one shared wait, and released in
 * reverse order.
 */
final class AcquiredLocks {

	private static final Log logger = LogFactory.getLog(AcquiredLocks.class);

	private final List<RedisLock> locks;

	private AcquiredLocks(List<RedisLock> locks) {
		this.locks = locks;
	}

	/**
	 * Acquires every named lock or none.
	 * @throws LockNotAcquiredException if a lock was not acquired within the wait, or the
	 * wait was interrupted (the interrupt status is then set again)
	 */
	static AcquiredLocks acquire(RedisLockClient client, List<String> names, Duration waitTime,
			@Nullable Duration leaseTime) {
		long deadline = System.nanoTime() + waitTime.toNanos();
		List<RedisLock> acquired = new ArrayList<>(names.size());
		for (String name : names) {
			RedisLock lock = client.getLock(name);
			boolean locked;
			try {
				Duration remaining = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
				locked = lock.tryLock(remaining, leaseTime);
			}
			catch (InterruptedException ex) {
				new AcquiredLocks(acquired).release(ex);
				Thread.currentThread().interrupt();
				throw new LockNotAcquiredException(name, waitTime, ex);
			}
			catch (RuntimeException ex) {
				new AcquiredLocks(acquired).release(ex);
				throw ex;
			}
			if (!locked) {
				LockNotAcquiredException notAcquired = new LockNotAcquiredException(name, waitTime);
				new AcquiredLocks(acquired).release(notAcquired);
				throw notAcquired;
			}
			acquired.add(lock);
		}
		return new AcquiredLocks(acquired);
	}

	/**
	 * Releases every lock, last acquired first. A failure to release (a lease that ran
	 * out, Redis unreachable) is logged, and added to {@code failure} when the call
	 * itself failed; it never replaces the call's own outcome.
	 * @param failure what the call threw, or {@code null} when it returned
	 */
	void release(@Nullable Throwable failure) {
		releaseAll(failure);
	}

	/**
	 * Releases every lock after the call returned; throws the first lost lease if the
	 * operation asks for it, after every lock is released.
	 * @throws LeaseExpiredException if a lease was lost and {@code ifLeaseLost} is
	 * {@link IfLeaseLost#THROW}
	 */
	void releaseAfterReturn(IfLeaseLost ifLeaseLost) {
		LeaseExpiredException lost = releaseAll(null);
		if (lost != null && ifLeaseLost == IfLeaseLost.THROW) {
			throw lost;
		}
	}

	@Nullable
	private LeaseExpiredException releaseAll(@Nullable Throwable failure) {
		LeaseExpiredException lost = null;
		for (int i = this.locks.size() - 1; i >= 0; i--) {
			RedisLock lock = this.locks.get(i);
			try {
				lock.unlock();
			}
			catch (RuntimeException ex) {
				logger.warn("Could not release lock '" + lock.getName() + "' cleanly: " + ex.getMessage());
				if (failure != null) {
					failure.addSuppressed(ex);
				}
				if (ex instanceof LeaseExpiredException expired) {
					if (lost == null) {
						lost = expired;
					}
					else {
						lost.addSuppressed(expired);
					}
				}
			}
		}
		return lost;
	}

}
