package io.github.redislock.annotation;

/**
 * What a {@link DistributedLock} method call does when its lock is not acquired within
 * the wait time.
 *
 * @since 0.1.0
 */
public enum IfLocked {

	/**
	 * Throw {@link io.github.redislock.LockNotAcquiredException}; the method does not
	 * run.
	 */
	THROW,

	/**
	 * Do not run the method and return {@code null}, or {@code Optional.empty()} for a
	 * method returning {@code Optional}. Not allowed on methods returning a primitive
	 * (start-up fails).
	 */
	SKIP

}
