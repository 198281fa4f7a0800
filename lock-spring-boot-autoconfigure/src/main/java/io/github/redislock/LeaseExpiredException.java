package io.github.redislock;

/**
 * Thrown by {@link RedisLock#unlock()} when the current thread did hold the lock, but no
 * longer does: its lease ran out (the holder overran an explicit lease, or a pause or
 * outage stopped the watchdog) or someone called {@link RedisLock#forceUnlock()}. Another
 * holder may have been in the critical section at the same time; fencing tokens let a
 * store detect that.
 *
 * @since 0.1.0
 */
public class LeaseExpiredException extends IllegalMonitorStateException {

	private final String lockName;

	/**
	 * Creates an exception for the named lock.
	 * @param lockName the lock whose lease was lost
	 * @param message what happened, with the hold's duration and lease
	 */
	public LeaseExpiredException(String lockName, String message) {
		super(message);
		this.lockName = lockName;
	}

	/** The lock whose lease was lost. */
	public String getLockName() {
		return this.lockName;
	}

}
