package io.github.redislock.annotation;

/**
 * What a {@link DistributedLock} method call does when, on release, its lease turns out
 * to have been lost while the method ran (the lease ran out, a pause or outage stopped
 * the watchdog, or the lock was force-released), so that another holder may have run at
 * the same time. Either way a warning is logged and a
 * {@link io.github.redislock.LeaseLostEvent} is published.
 *
 * @since 0.1.0
 */
public enum IfLeaseLost {

	/** Return the method's result as if nothing happened. */
	LOG,

	/**
	 * Throw {@link io.github.redislock.LeaseExpiredException} instead of returning the
	 * method's result. The method has run to its end: what it wrote stays written (a
	 * transaction inside the lock is committed), so the caller learns that the result may
	 * have raced with another holder, not that the work was undone. When the method
	 * itself threw, its exception is thrown as always, with the lost lease added as
	 * suppressed.
	 */
	THROW

}
