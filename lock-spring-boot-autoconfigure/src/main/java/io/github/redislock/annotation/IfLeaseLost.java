package io.github.redislock.annotation;

/**
 * What a {@link DistributedLock} method call does when, on release, its lease turns out
 * to have been lost while the method ran (the lease ran out, a pause or outage stopped
 * the watchdog, or the lock was force-released), so that another holder may have run at
 * the same time, or, with {@link #INTERRUPT}, as soon as the client learns it while the
 * method runs. Whichever is chosen, a warning is logged and a
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
	THROW,

	/**
	 * Stop the method's work as soon as the client learns that the lease is lost, before
	 * Redis could give the lock to another holder where it can tell (see
	 * {@link io.github.redislock.LockHandle#leaseLost()}), and throw
	 * {@link io.github.redislock.LeaseExpiredException} to the caller:
	 * <ul>
	 * <li>a method that returns a value: its thread is interrupted, so that it sees
	 * {@link InterruptedException} (or its interrupt flag) at its next blocking call; the
	 * caller gets {@code LeaseExpiredException}, with what the method threw as its cause,
	 * and the thread's interrupt flag cleared again;</li>
	 * <li>a method that returns a {@link java.util.concurrent.CompletionStage}: the stage
	 * it returned is cancelled, and the caller's stage fails with
	 * {@code LeaseExpiredException}.</li>
	 * </ul>
	 * What the method already wrote stays written, and work that ignores interrupts (or a
	 * cancelled stage) runs on: guard its writes with the fencing token too. A loss found
	 * only at the release is thrown as with {@link #THROW}.
	 * @since 0.1.0
	 */
	INTERRUPT

}
