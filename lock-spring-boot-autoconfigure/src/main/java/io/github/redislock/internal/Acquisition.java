package io.github.redislock.internal;

import java.util.concurrent.TimeUnit;

import org.springframework.core.NestedExceptionUtils;
import org.jspecify.annotations.Nullable;

import io.github.redislock.RedisLockException;

/**
 * The decisions of one acquisition that do not depend on how it waits: how many tokens an
 * attempt reserves, how long the next command may take, how long to sleep after a reply,
 * when the wait is over, and what to report when Redis refused every attempt. A thread
 * that waits ({@link LockAcquirer}) and an acquisition no thread waits for
 * ({@link AsyncAcquisition}) run the same algorithm through this: enter the lock's wait
 * queue, try, subscribe, try again if the subscription came after the first attempt,
 * sleep until a release message or the holder's lease end, try. Only the sleeping
 * differs: a parked thread, or a timer and a callback.
 */
final class Acquisition {

	/**
	 * How long a waiter sleeps when the holder's lease is unknown (a key without expiry).
	 */
	private static final long UNKNOWN_LEASE_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

	/**
	 * How long a waiter sleeps when Redis refused the acquire for now (a slot being
	 * migrated, a data set being loaded).
	 */
	private static final long REFUSED_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	final LockKeys keys;

	final Owner owner;

	final Lease lease;

	final Wait wait;

	/** When the caller started, from {@link System#nanoTime()}. */
	final long start;

	private final long commandTimeoutNanos;

	private final int passTokens;

	// the last refusal for now, kept for the report when every attempt was refused
	private volatile @Nullable RedisLockException refusal;

	/**
	 * @param passTokens how many fencing tokens an attempt reserves when other callers of
	 * this client wait: the local passes before the client asks Redis again
	 */
	Acquisition(LockKeys keys, Owner owner, Lease lease, Wait wait, long start, long commandTimeoutMillis,
			int passTokens) {
		this.keys = keys;
		this.owner = owner;
		this.lease = lease;
		this.wait = wait;
		this.start = start;
		this.commandTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(commandTimeoutMillis);
		this.passTokens = Math.max(1, passTokens);
	}

	/**
	 * How many fencing tokens the next attempt reserves: one, or enough to pass the lock
	 * on to the other callers of this client waiting in its queue.
	 */
	int tokens(@Nullable WaitQueue queue) {
		// a kind held by many asks Redis for every pass's token (see PassesOneOfMany)
		return (queue != null && queue.hasOthers() && !(this.keys.kind() instanceof LockKind.PassesOneOfMany))
				? this.passTokens : 1;
	}

	/**
	 * How long to hold off before the next attempt without asking Redis (see
	 * {@link WaitQueue#holdOffNanos}); before the first, also while callers of this
	 * client already wait in line for a kind whose callers do
	 * ({@link WaitQueue#inLineNanos}): once asleep, the caller is one of those waiters.
	 * @param first whether no attempt was made or held off yet
	 */
	long holdOffNanos(WaitQueue queue, boolean first) {
		long holdOff = queue.holdOffNanos(this.owner);
		return (holdOff == 0 && first) ? queue.inLineNanos() : holdOff;
	}

	/**
	 * What is left of the wait time plus the command timeout: the longest the next
	 * command may take.
	 */
	long budget() {
		return this.wait.budgetNanos(this.start, this.commandTimeoutNanos);
	}

	long remainingNanos() {
		return this.wait.remainingNanos(this.start);
	}

	/**
	 * How long to sleep after an attempt: until the holder's lease ends when no release
	 * message comes first, or while the acquisition holds off for another owner of this
	 * client; never past the wait's end.
	 * @param reply the attempt's reply, {@code null} when Redis refused it for now or it
	 * was not made
	 * @param holdOffNanos how long the acquisition holds off without asking Redis, 0 for
	 * not at all (see {@link WaitQueue#holdOffNanos})
	 */
	long sleepNanos(@Nullable LockReply reply, long holdOffNanos) {
		return Math.min(remainingNanos(), (holdOffNanos > 0) ? holdOffNanos : sleepAfter(reply));
	}

	static long sleepAfter(@Nullable LockReply reply) {
		if (reply instanceof LockReply.Busy busy && busy.isLeaseKnown()) {
			return TimeUnit.MILLISECONDS.toNanos(busy.remainingLeaseMillis());
		}
		return (reply == null) ? REFUSED_RETRY_NANOS : UNKNOWN_LEASE_RECHECK_NANOS;
	}

	/**
	 * Whether a failed attempt is a refusal for now that a later attempt may overcome (a
	 * slot being migrated, a data set being loaded); if so, it is kept for
	 * {@link #refusedThroughout()}.
	 */
	boolean refusedForNow(RedisLockException ex) {
		if (!RedisFailures.isTransientRefusal(ex)) {
			return false;
		}
		this.refusal = ex;
		return true;
	}

	/**
	 * Whether the wait ended with every attempt refused: the last attempt was refused for
	 * now, rather than answered busy or not made.
	 */
	boolean endedRefused(@Nullable LockReply lastReply, long lastHoldOffNanos) {
		return lastReply == null && lastHoldOffNanos == 0 && this.refusal != null;
	}

	/** The failure of a wait whose attempts Redis refused throughout. */
	RedisLockException refusedThroughout() {
		RedisLockException refusal = this.refusal;
		if (refusal == null) {
			throw new IllegalStateException("No refusal to report");
		}
		Throwable cause = NestedExceptionUtils.getMostSpecificCause(refusal);
		String reply = (cause.getMessage() != null) ? cause.getMessage() : "";
		String why;
		if (reply.startsWith("TRYAGAIN")) {
			why = "its Redis Cluster slot was being migrated to another node all that time (TRYAGAIN)";
		}
		else if (reply.startsWith("LOADING")) {
			why = "Redis was loading its data set all that time (LOADING)";
		}
		else {
			why = "Redis refused it all that time: " + reply;
		}
		return new RedisLockException("Could not acquire lock '" + this.keys.name() + "' (key '" + this.keys.lockKey()
				+ "') " + this.wait.describe() + ": " + why, refusal);
	}

}
