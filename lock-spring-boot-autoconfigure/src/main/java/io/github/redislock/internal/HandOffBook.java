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
 * What is kept of the holders depends on the kind: {@link #forKind}.
 *
 * <p>
 * Guarded by its own monitor. {@link WaitQueue} takes it inside its own where a step must
 * see both waiters and books at once (choosing a waiter to pass to, counting a release
 * message); never the other way round.
 */
abstract sealed class HandOffBook permits HandOffBook.OneHolder, HandOffBook.ManyHolders {

	// until when this client gave the lock up for the other clients' waiters (0: it did
	// not), unless one of them releases it first
	private long reservedForOthersUntilNanos;

	// whether another client's waiter made this client give the lock up, or would have,
	// when it last asked Redis to go on passing it
	private boolean othersWaited;

	/** The books for a lock of this kind. */
	static HandOffBook forKind(LockKind kind) {
		return (kind instanceof LockKind.PassesOneOfMany) ? new ManyHolders() : new OneHolder();
	}

	/** Records the hold of this client's owner that holds the lock now. */
	abstract void held(Hold hold);

	/**
	 * Forgets the hold if it is the holder.
	 * @return whether it was: then a waiter is to try Redis
	 */
	abstract boolean notHeld(Hold hold);

	/**
	 * Whether another owner of this client holds the lock, or is being given it, and will
	 * pass it on: then the owner waits for it instead of asking Redis.
	 */
	abstract boolean isHeldHereByOtherThan(Owner owner);

	/**
	 * Starts passing the lock on, if the hold still holds it: it is no longer the holder,
	 * and owners wait for the pass meanwhile.
	 * @return whether the pass may go ahead
	 */
	abstract boolean startPass(Hold hold);

	/** Undoes {@link #startPass}: the hold keeps the lock, to release it in Redis. */
	abstract void notPassed(Hold hold);

	/** The pass started did not happen: the lock left this client. */
	abstract void passFailed();

	/** This client's callers hold off asking Redis until then (see {@link WaitQueue}). */
	final synchronized void reserveForOthers(long untilNanos) {
		this.reservedForOthersUntilNanos = untilNanos;
	}

	/** Another client let the lock go, or it may have: the reservation is over. */
	final synchronized void endReservation() {
		this.reservedForOthersUntilNanos = 0;
	}

	/**
	 * How long the owner should wait before asking Redis for the lock, unless a release
	 * message wakes it: {@link LockAcquirer#PASS_RECHECK_NANOS} while another owner of
	 * this client holds it (see {@link #isHeldHereByOtherThan}), what is left of a
	 * reservation for other clients, else 0: ask now.
	 */
	final long holdOffNanos(Owner owner) {
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

	final synchronized void othersWaited(boolean othersWaited) {
		this.othersWaited = othersWaited;
	}

	final synchronized boolean othersWaited() {
		return this.othersWaited;
	}

	/** A kind one owner holds at a time: its holder here, and whether it is passing. */
	static final class OneHolder extends HandOffBook {

		// this client's hold on the lock when one of its owners holds it and may pass it
		// on
		@Nullable private Hold holder;

		// the holder chose a waiter to pass the lock to, and is passing it
		private boolean passing;

		@Override
		synchronized void held(Hold hold) {
			this.holder = hold;
			this.passing = false;
		}

		@Override
		synchronized boolean notHeld(Hold hold) {
			if (this.holder != hold) {
				return false;
			}
			this.holder = null;
			return true;
		}

		@Override
		synchronized boolean isHeldHereByOtherThan(Owner owner) {
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
			// A lease set later (a handle's extend) passes nothing on, so the waiter may
			// ask Redis, unless Redis names another owner of this client as the holder,
			// which would re-enter there: then it waits until that lease must have ended.
			return !hold.redisOwner().equals(hold.owner()) && hold.mayStillBeHeld();
		}

		@Override
		synchronized boolean startPass(Hold hold) {
			if (this.holder != hold) {
				return false;
			}
			this.holder = null;
			this.passing = true;
			return true;
		}

		@Override
		synchronized void notPassed(Hold hold) {
			this.holder = hold;
			this.passing = false;
		}

		@Override
		synchronized void passFailed() {
			this.passing = false;
		}

	}

	/**
	 * A kind several owners hold at once ({@link LockKind.PassesOneOfMany}): every hold
	 * of this client that may pass its place on. A holder here keeps nobody from asking
	 * Redis, and a hold that ends wakes nobody (its release message does, as it wakes the
	 * other clients' waiters).
	 */
	static final class ManyHolders extends HandOffBook {

		private final Set<Hold> holders = Collections.newSetFromMap(new IdentityHashMap<>());

		@Override
		synchronized void held(Hold hold) {
			this.holders.add(hold);
		}

		@Override
		synchronized boolean notHeld(Hold hold) {
			this.holders.remove(hold);
			return false;
		}

		@Override
		boolean isHeldHereByOtherThan(Owner owner) {
			return false;
		}

		@Override
		synchronized boolean startPass(Hold hold) {
			return this.holders.remove(hold);
		}

		@Override
		synchronized void notPassed(Hold hold) {
			this.holders.add(hold);
		}

		@Override
		void passFailed() {
			// nothing to undo: the place left the books at startPass
		}

	}

}
