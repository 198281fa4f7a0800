package io.github.redislock.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redislock.RedisLockException;

/**
 * The commands the client's in-JVM structures send to Redis to take, pass on, release,
 * keep and give up locks ({@link LockAcquirer}, {@link AsyncAcquisition},
 * {@link LockReleases}, {@link LocalPasses}, {@link Settlements},
 * {@link WaiterWithdrawals}, {@link LeaseWatchdog}, {@link LockEngine}), each one round
 * trip: {@link RedisLockCommands}. The seam where the model-checking tests of those
 * structures (the {@code *LincheckTests}) answer in memory instead.
 */
interface LockCommands {

	/**
	 * The lock command timeout: the longest a command takes when its caller has no limit.
	 */
	long timeoutMillis();

	/** How long a lock given up for other clients stays reserved for them. */
	long yieldMillis();

	/**
	 * Runs the acquire command.
	 * @param holdsBefore this owner's hold count before the call
	 * @param tokens how many fencing tokens a first acquisition reserves
	 * @param waits whether the caller waits if the lock is taken
	 * @param budgetNanos what is left of the caller's time (wait plus command timeout),
	 * or {@link RedisCalls#NO_LIMIT}
	 */
	LockReply acquire(LockKeys keys, Owner owner, Lease lease, int holdsBefore, int tokens, boolean waits,
			long budgetNanos);

	/**
	 * Runs the acquire command of an owner that holds nothing yet, as {@link #acquire}
	 * does, without waiting: the future fails as {@link #acquire} throws.
	 */
	CompletableFuture<LockReply> acquireAsync(LockKeys keys, Owner owner, Lease lease, int tokens, boolean waits,
			long budgetNanos);

	/**
	 * Runs the release command for one hold (see {@link LockKind#release}).
	 */
	LockReply release(LockKeys keys, Release release);

	/** Runs the release command as {@link #release} does, without waiting. */
	CompletableFuture<LockReply> releaseAsync(LockKeys keys, Release release);

	/**
	 * Runs the command that lets this client go on passing the lock among its owners; see
	 * {@link LockKind#continueRun}.
	 */
	LockReply continueRun(LockKeys keys, Grant holder, int tokens, Lease lease);

	/**
	 * Asks, without waiting, whether this client may go on passing the lock once the
	 * run's tokens are spent, and if so reserves the next tokens; gives nothing up (see
	 * {@link LocalRun#askedAhead}). For a kind held by many, each pass's token, asked for
	 * without the releasing owner waiting (see {@link LocalPasses}).
	 */
	CompletableFuture<LockReply> continueRunAhead(LockKeys keys, Grant holder, int tokens, Lease lease);

	/**
	 * Withdraws the mark a waiter of the lock left in Redis, without waiting for the
	 * answer; a failure only leaves the mark until it expires.
	 */
	CompletableFuture<?> withdrawAsync(LockKind.MarksWaiters kind, LockKeys keys, Owner owner);

	/**
	 * Withdraws the mark a waiter of the lock left in Redis, and waits for the answer as
	 * every call does: at most the command timeout and at most {@code budgetNanos}, not
	 * giving way to an interrupt (which stays set).
	 * @param budgetNanos what is left of the waiter's time (wait plus command timeout),
	 * or {@link RedisCalls#NO_LIMIT}
	 * @throws io.github.redislock.LockOutcomeUnknownException when no answer came in time
	 * @throws RedisLockException when Redis refused the script, or could not be reached
	 */
	void withdraw(LockKind.MarksWaiters kind, LockKeys keys, Owner owner, long budgetNanos);

	/** Sets what is left of the owner's lease; false when it no longer holds the lock. */
	boolean extend(LockKeys keys, Owner owner, long leaseMillis);

	/** Frees the lock in Redis whoever holds it; whether it was held. */
	boolean forceRelease(LockKeys keys);

	/**
	 * Renews the given watchdog holds (all in one slot), in one round trip; returns those
	 * no longer held.
	 */
	List<Hold> renew(List<Hold> holds, long leaseMillis);

}
