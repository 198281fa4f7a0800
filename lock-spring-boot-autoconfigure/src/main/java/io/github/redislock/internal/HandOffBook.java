package io.github.redislock.internal;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The books a {@link WaitQueue} keeps on one lock beside its waiters: which hold of this
 * client has the lock and may pass it on locally, whether a pass is under way, until when
 * this client gave the lock up for other clients' waiters, and whether others waited.
 * From these its callers learn whether to ask Redis at all or to hold off. Split from
 * {@link WaitQueue}, whose job is waking the waiters, so that each can be read alone.
 *
 * <p>
 * For a kind several owners hold at once ({@link LockKind.PassesOneOfMany}) it keeps
 * every hold of this client that may pass its place on instead of one holder: a holder
 * here then keeps nobody from asking Redis, and a hold that ends wakes nobody (its
 * release message does, as it wakes the other clients' waiters).
 *
 * <p>
 * Guarded by its own monitor. {@link WaitQueue} takes it inside its own where a step must
 * see both waiters and books at once (choosing a waiter to pass to, counting a release
 * message); never the other way round.
 */
final class HandOffBook {

	// whether several owners hold the lock at once, each passing its own place on
	private final boolean many;

	// for such a kind: this client's holds that may pass their place on
	private final Set<Hold> holders = Collections.newSetFromMap(new IdentityHashMap<>());

	// this client's hold on the lock when one of its owners holds it and may pass it on
	@Nullable private Hold holder;

	// the holder chose a waiter to pass the lock to, and is passing it
	private boolean passing;

	// until when this client gave the lock up for the other clients' waiters (0: it did
	// not), unless one of them releases it first
	private long reservedForOthersUntilNanos;

	// whether another client's waiter made this client give the lock up, or would have,
	// when it last asked Redis to go on passing it
	private boolean othersWaited;

	HandOffBook(boolean many) {
		this.many = many;
	}

	/** Records the hold of this client's owner that holds the lock now. */
	synchronized void held(Hold hold) {
		if (this.many) {
			this.holders.add(hold);
			return;
		}
		this.holder = hold;
		this.passing = false;
	}

	/**
	 * Forgets the hold if it is the holder.
	 * @return whether it was: then a waiter is to try Redis
	 */
	synchronized boolean notHeld(Hold hold) {
		if (this.many) {
			this.holders.remove(hold);
			return false;
		}
		if (this.holder != hold) {
			return false;
		}
		this.holder = null;
		return true;
	}

	/**
	 * Whether another owner of this client holds the lock, or is being given it, and will
	 * pass it on: then the owner waits for it instead of asking Redis.
	 */
	synchronized boolean isHeldHereByOtherThan(Owner owner) {
		if (this.many) {
			return false;
		}
		if (this.passing) {
			return true;
		}
		Hold hold = this.holder;
		if (hold == null || hold.owner().equals(owner)) {
			return false;
		}
		if (hold.lease().watchdog()) {
			return !hold.isLost();
		}
		// A lease set later (a handle's extend) passes nothing on, so the waiter may ask
		// Redis, unless Redis names another owner of this client as the holder, which
		// would re-enter there: then it waits until that lease must have ended.
		return !hold.redisOwner().equals(hold.owner()) && hold.mayStillBeHeld();
	}

	/** This client's callers hold off asking Redis until then (see {@link WaitQueue}). */
	synchronized void reserveForOthers(long untilNanos) {
		this.reservedForOthersUntilNanos = untilNanos;
	}

	/** Another client let the lock go, or it may have: the reservation is over. */
	synchronized void endReservation() {
		this.reservedForOthersUntilNanos = 0;
	}

	/**
	 * How long the owner should wait before asking Redis for the lock, unless a release
	 * message wakes it: {@link LockAcquirer#PASS_RECHECK_NANOS} while another owner of
	 * this client holds it (see {@link #isHeldHereByOtherThan}), what is left of a
	 * reservation for other clients, else 0: ask now.
	 */
	long holdOffNanos(Owner owner) {
		if (isHeldHereByOtherThan(owner)) {
			return LockAcquirer.PASS_RECHECK_NANOS;
		}
		synchronized (this) {
			if (this.reservedForOthersUntilNanos == 0) {
				return 0;
			}
			long left = this.reservedForOthersUntilNanos - System.nanoTime();
			if (left <= 0) {
				this.reservedForOthersUntilNanos = 0;
				return 0;
			}
			return left;
		}
	}

	/**
	 * Starts passing the lock on, if the hold still holds it: it is no longer the holder,
	 * and owners wait for the pass meanwhile.
	 * @return whether the pass may go ahead
	 */
	synchronized boolean startPass(Hold hold) {
		if (this.many) {
			return this.holders.remove(hold);
		}
		if (this.holder != hold) {
			return false;
		}
		this.holder = null;
		this.passing = true;
		return true;
	}

	/** Undoes {@link #startPass}: the hold keeps the lock, to release it in Redis. */
	synchronized void notPassed(Hold hold) {
		if (this.many) {
			this.holders.add(hold);
			return;
		}
		this.holder = hold;
		this.passing = false;
	}

	/** The pass started did not happen: the lock left this client. */
	synchronized void passFailed() {
		this.passing = false;
	}

	synchronized void othersWaited(boolean othersWaited) {
		this.othersWaited = othersWaited;
	}

	synchronized boolean othersWaited() {
		return this.othersWaited;
	}

}
