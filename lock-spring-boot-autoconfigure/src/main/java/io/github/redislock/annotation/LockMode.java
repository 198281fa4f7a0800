package io.github.redislock.annotation;

/**
 * Which lock of its name a {@link DistributedLock} method takes.
 *
 * @since 0.1.0
 */
public enum LockMode {

	/**
	 * The exclusive lock of the name ({@code RedisLockClient.getLock}): one caller at a
	 * time. The default.
	 */
	EXCLUSIVE,

	/**
	 * The read lock of the name's read/write lock
	 * ({@code RedisLockClient.getReadWriteLock}): shared with other {@code READ} callers,
	 * never with a {@code WRITE} one. A method holding it cannot call a {@code WRITE}
	 * method on the same name (the upgrade throws {@link IllegalMonitorStateException} at
	 * once). A method returning a {@code CompletionStage} holds it, by a handle, until
	 * that completes, as does one returning {@code Mono} or {@code Flux}. With
	 * {@code holdAtLeast}, a call that ends sooner keeps writers out until the minimum
	 * has passed since its acquisition; other readers still come in. Not allowed on a
	 * {@code @Scheduled} method: shared, it would let every instance run each tick, and
	 * the read kept after each run would keep writers out most of the time; start-up
	 * fails saying so.
	 */
	READ,

	/**
	 * The write lock of the name's read/write lock: one caller, while nobody reads. A
	 * method holding it may call a {@code READ} method on the same name (a downgrade).
	 * With {@code holdAtLeast}, a call that ends sooner keeps the lock for nobody until
	 * the minimum has passed: no other caller reads or writes until then (one that
	 * downgraded reads on), and the next one gets it then, without waiting for a lease. A
	 * method returning a {@code CompletionStage}, {@code Mono} or {@code Flux} holds it
	 * as {@link #READ} does.
	 */
	WRITE,

	/**
	 * The fair lock of the name ({@code RedisLockClient.getFairLock}): one caller at a
	 * time, in the order they asked, across all instances. Works with
	 * {@code holdAtLeast}: the next caller in turn gets the lock once the minimum has
	 * passed.
	 */
	FAIR

}
