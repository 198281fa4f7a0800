package io.github.redislock;

import java.time.Duration;

/**
 * Tells that a thread or a {@link LockHandle} of this process held a lock and no longer
 * does, without having released it: its lease ran out (an explicit lease was overrun, or
 * a pause or outage stopped the watchdog), the lock was force-unlocked, or its holder was
 * abandoned (see {@link DetectedBy#ABANDONED}). Another holder may have run at the same
 * time. Spring Boot publishes it as an application event
 * ({@code @EventListener void on(LeaseLostEvent event)}); without Boot, register a
 * listener with {@link RedisLockClient.Builder#leaseLostListener}.
 *
 * @param lockName the lock's name
 * @param lockKey the lock's Redis key
 * @param threadName the thread that held it; for a {@link LockHandle}, the thread that
 * acquired it
 * @param heldFor how long ago the thread had acquired it
 * @param lease the lease it held it with
 * @param watchdog whether the watchdog renewed that lease
 * @param detectedBy what found the loss
 * @since 0.1.0
 */
public record LeaseLostEvent(String lockName, String lockKey, String threadName, Duration heldFor, Duration lease,
		boolean watchdog, DetectedBy detectedBy) {

	/** What found that the lease was lost. */
	public enum DetectedBy {

		/**
		 * The watchdog, trying to renew the lease while the thread still held the lock.
		 */
		WATCHDOG,

		/**
		 * The holder's own {@code unlock()}, which then threw
		 * {@link LeaseExpiredException}.
		 */
		UNLOCK,

		/**
		 * The holding thread acquiring the lock again, before unlocking, and getting it
		 * afresh: its earlier hold had been lost.
		 */
		ACQUIRE,

		/**
		 * The holder can no longer release the lock: a thread that ended while holding
		 * it, or a {@link LockHandle} that became unreachable (garbage-collected) without
		 * {@link LockHandle#release()}. The client stops renewing the lease, so the lock
		 * is free for others once the lease ends; it is not released at once, because
		 * code that dropped its handle may still be working under the lock.
		 * @since 0.1.0
		 */
		ABANDONED,

		/**
		 * This client's own clock, for a holder whose loss is awaited
		 * ({@link LockHandle#leaseLost()}, {@link RedisLock#leaseLost()}, a method with
		 * {@link io.github.redislock.annotation.IfLeaseLost#INTERRUPT}): no renewal of
		 * its lease was confirmed by Redis in time (Redis stalled or unreachable, the
		 * network parted, or this JVM paused), or a fixed lease is running out, so that
		 * Redis could give the lock to another holder soon. Declared a tenth of the lease
		 * before that could happen, so that the holder can stop first; the lock may still
		 * be held in Redis, and the watchdog keeps renewing it until it is released.
		 * @since 0.1.0
		 */
		CLIENT_CLOCK

	}

}
