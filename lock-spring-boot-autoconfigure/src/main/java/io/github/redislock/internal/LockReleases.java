package io.github.redislock.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.Assert;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LeaseLostEvent;
import io.github.redislock.RedisLockException;

/**
 * Releases the holds of one client's owners: a nested hold counts down here, the last one
 * passes the lock to this client's next waiter ({@link LocalPasses}) or frees it in
 * Redis, one round trip. A release Redis did not run, or whose outcome is unknown, is
 * left to the {@link Settlements}; a lease found lost is reported and thrown.
 */
final class LockReleases {

	private static final Log logger = LogFactory.getLog(LockReleases.class);

	private final LockCommands commands;

	private final Holds holds;

	private final HoldLedger ledger;

	private final Settlements settlements;

	// in-JVM passing of a released lock to this client's next waiter
	private final LocalPasses passes;

	// where a hold given back from a thread that must not wait is released
	private final AsyncThread asyncThread;

	LockReleases(LockCommands commands, Holds holds, HoldLedger ledger, Settlements settlements,
			LockObservations observations, AsyncThread asyncThread, int maxLocalPasses) {
		this.commands = commands;
		this.holds = holds;
		this.ledger = ledger;
		this.settlements = settlements;
		this.asyncThread = asyncThread;
		this.passes = new LocalPasses(commands, holds, observations, maxLocalPasses, new LocalPasses.Releases() {

			@Override
			public RuntimeException failed(Hold hold, RuntimeException ex) {
				return releaseFailed(hold, ex);
			}

			@Override
			public void released(Hold hold, LockReply reply) {
				LockReleases.this.released(hold, reply);
			}

		});
	}

	/**
	 * Releases one hold of the owner; the last one leaves the lock taken for nobody until
	 * it has been held {@code holdAtLeastMillis} in all, when it was held for less.
	 * @throws IllegalMonitorStateException when the owner holds no hold here
	 * @throws io.github.redislock.LeaseExpiredException when it did, but its lease was
	 * lost
	 */
	void release(LockKeys keys, Owner owner, long holdAtLeastMillis) {
		Hold hold = this.holds.get(keys, owner);
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + keys.name() + "' (key '" + keys.lockKey()
					+ "') is not held by " + (owner.isHandle() ? "this handle: it was released already"
							: "the current thread '" + owner.thread().getName() + "'"));
		}
		release(hold, holdAtLeastMillis);
	}

	private void release(Hold hold, long holdAtLeastMillis) {
		if (hold.count() > 1) {
			// the nested holds are this client's own count: Redis keeps the lock for the
			// outermost one, and the last release sends the count it still has (1)
			hold.count(hold.count() - 1);
			if (hold.isLost()) {
				// each release of a lost hold tells its owner, the outermost one in Redis
				throw new LeaseExpiredException(hold.keys().name(), hold.describeLoss());
			}
			return;
		}
		if (hold.count() == 1) {
			hold.releasing();
			if (holdAtLeastMillis == 0 && this.passes.passOn(hold, true)) {
				return;
			}
		}
		if (speaksForAnotherOwnerAfterLoss(hold)) {
			released(hold, LockReply.NOT_HELD);
		}
		LockReply reply;
		try {
			reply = this.commands.release(hold.keys(), request(hold, holdAtLeastMillis));
		}
		catch (RuntimeException ex) {
			throw releaseFailed(hold, ex);
		}
		released(hold, reply);
	}

	/**
	 * Releases the handle owner's hold without waiting, as
	 * {@link #release(LockKeys, Owner, long)} does: the future fails as that method
	 * throws.
	 */
	CompletableFuture<Void> releaseAsync(Hold hold, long holdAtLeastMillis) {
		hold.releasing();
		// passed on only when that needs no command: nothing here may wait for Redis
		if (holdAtLeastMillis == 0 && hold.count() == 1 && this.passes.passOn(hold, false)) {
			return CompletableFuture.completedFuture(null);
		}
		if (speaksForAnotherOwnerAfterLoss(hold)) {
			try {
				released(hold, LockReply.NOT_HELD);
			}
			catch (RuntimeException ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}
		return this.commands.releaseAsync(hold.keys(), request(hold, holdAtLeastMillis)).handle((reply, failure) -> {
			if (failure != null) {
				Throwable cause = RedisFailures.unwrap(failure);
				// an Error may have no message: its class then says what it was
				throw releaseFailed(hold, (cause instanceof RuntimeException ex) ? ex : new RedisLockException(
						Objects.toString(cause.getMessage(), cause.getClass().getSimpleName()), cause));
			}
			released(hold, reply);
			return null;
		});
	}

	/**
	 * Releases a hold nobody wants any more (its acquisition was cancelled as it was
	 * granted) on the client's async thread; a failure is left to the settlements.
	 */
	void giveBack(Hold hold) {
		try {
			this.asyncThread.executor().execute(() -> releaseAsync(hold, 0).exceptionally((ex) -> null));
		}
		catch (RejectedExecutionException closed) {
			this.ledger.forget(hold, null);
			this.settlements.settle(hold.keys(), hold.redisOwner(), Settlements.Reason.RELEASE);
		}
	}

	/**
	 * Checks a {@code holdAtLeast} argument, before anything is sent: a minimum the
	 * lock's kind cannot keep is refused, so that the caller still holds the lock rather
	 * than finding it freed at once without a word.
	 * @param release the call, for the message: {@code "unlock"} or {@code "release"}
	 * @param holder who holds the lock, for the message: {@code "thread"} or
	 * {@code "handle"}
	 */
	static long holdAtLeastMillis(Duration holdAtLeast, LockKeys keys, String release, String holder) {
		Assert.notNull(holdAtLeast, () -> "holdAtLeast of lock '" + keys.name() + "' must not be null");
		Assert.isTrue(!holdAtLeast.isNegative(),
				() -> "holdAtLeast of lock '" + keys.name() + "' must not be negative, was " + holdAtLeast);
		long millis = holdAtLeast.toMillis();
		if (millis > 0 && !(keys.kind() instanceof LockKind.KeepsForNobody)) {
			throw new UnsupportedOperationException(release + "(holdAtLeast) is not supported by the "
					+ keys.kind().mode() + " lock '" + keys.name() + "' yet; the " + holder + " still holds it: call "
					+ release + "() and keep it held longer before");
		}
		return millis;
	}

	/**
	 * Whether the hold was passed on to its owner in a run (it speaks to Redis as the
	 * run's first owner) and is known lost: nothing is sent for it then. Redis may have
	 * granted the lock since to that first owner, a thread of this client taking it anew
	 * under the same owner id, and a release in that name would free the new hold. What
	 * the lost run left in Redis ends with its lease, which nobody renews.
	 * <p>
	 * The release scripts refuse such a release on their own (the {@link Grant}'s token
	 * no longer matches the hash's): this check only spares the round trip when the loss
	 * is already known here, and is not what keeps the new hold safe.
	 */
	private static boolean speaksForAnotherOwnerAfterLoss(Hold hold) {
		return hold.isLost() && !hold.redisOwner().equals(hold.owner());
	}

	// the release of one of the hold's counts, sent in the name Redis knows its grant by
	private static Release request(Hold hold, long holdAtLeastMillis) {
		return new Release(hold.run().grant(), hold.count(), keep(hold, holdAtLeastMillis), wakesOwnWaiters(hold));
	}

	/**
	 * Whether this client's own waiters for the lock are woken here when the hold ends
	 * (its wait queue tracks it: {@link WaitQueue#notHeld}), so that Redis needs to
	 * announce the release only to other clients' waiters.
	 */
	private static boolean wakesOwnWaiters(Hold hold) {
		return hold.queue() != null;
	}

	// what is left of a holdAtLeast when the last hold goes
	private static KeepForNobody keep(Hold hold, long holdAtLeastMillis) {
		if (hold.count() != 1 || holdAtLeastMillis <= 0) {
			return KeepForNobody.NONE;
		}
		// a hold passed on within this client has a token reserved at an earlier grant
		long grantToken = (hold.token() == hold.run().firstToken()) ? hold.token() : 0;
		return KeepForNobody.after(holdAtLeastMillis, hold.heldForMillis(), grantToken);
	}

	// Redis did not run it (refused it for now, LOADING say), or it is unknown whether
	// it did. Keep the hold while nested holds remain; after the last one stop renewing
	// it, and release it once Redis answers rather than leave it held for the rest of
	// its lease.
	private RuntimeException releaseFailed(Hold hold, RuntimeException ex) {
		if (hold.count() > 1) {
			return ex;
		}
		this.ledger.forget(hold, ex);
		this.settlements.settle(hold.keys(), hold.redisOwner(), Settlements.Reason.RELEASE);
		return new RedisLockException(ex.getMessage() + "; the client releases the lock in the background "
				+ "once Redis answers (or its lease ends first)", ex);
	}

	private void released(Hold hold, LockReply reply) {
		LockKeys keys = hold.keys();
		if (reply instanceof LockReply.Released released && released.holdsLeft() > 0) {
			hold.count(released.holdsLeft());
			return;
		}
		if (reply == LockReply.NOT_HELD) {
			LeaseExpiredException expired = new LeaseExpiredException(keys.name(), hold.describeLoss());
			this.ledger.forget(hold, expired);
			this.ledger.reportLost(hold, LeaseLostEvent.DetectedBy.UNLOCK);
			throw expired;
		}
		this.ledger.forget(hold, null);
		if (logger.isDebugEnabled()) {
			logger.debug("Released lock '" + keys.name() + "' after " + Durations.formatMillis(hold.heldForMillis()));
		}
	}

}
