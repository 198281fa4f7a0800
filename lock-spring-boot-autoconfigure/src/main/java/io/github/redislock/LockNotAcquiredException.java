package io.github.redislock;

import java.time.Duration;

/**
 * Thrown when a lock could not be acquired within its wait time because another holder
 * kept it.
 *
 * @since 0.1.0
 */
public class LockNotAcquiredException extends RuntimeException {

	private final String lockName;

	private final Duration waitTime;

	/**
	 * Creates an exception for the named lock.
	 * @param lockName the lock that was not acquired
	 * @param waitTime how long the caller waited
	 */
	public LockNotAcquiredException(String lockName, Duration waitTime) {
		super("Could not acquire lock '" + lockName + "' within " + Durations.format(waitTime)
				+ ": another holder kept it");
		this.lockName = lockName;
		this.waitTime = waitTime;
	}

	/**
	 * Creates an exception for a wait that an interrupt ended; the thread's interrupt
	 * status is set again.
	 * @param lockName the lock that was not acquired
	 * @param waitTime how long the caller meant to wait
	 * @param cause the interrupt
	 */
	public LockNotAcquiredException(String lockName, Duration waitTime, InterruptedException cause) {
		super("Interrupted while waiting up to " + Durations.format(waitTime) + " for lock '" + lockName + "'", cause);
		this.lockName = lockName;
		this.waitTime = waitTime;
	}

	/** The lock that was not acquired. */
	public String getLockName() {
		return this.lockName;
	}

	/** How long the caller waited. */
	public Duration getWaitTime() {
		return this.waitTime;
	}

}
