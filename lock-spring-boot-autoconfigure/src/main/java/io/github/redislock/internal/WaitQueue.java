package io.github.redislock.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * This client's callers waiting for one lock, threads and asynchronous acquisitions
 * alike, in the order they went to sleep. A caller enters before its first attempt, so
 * that a release announced between that attempt and its sleep is not lost. A release
 * message wakes the one asleep longest, which tries again; if it gets the lock, its
 * release wakes the next. A message that finds nobody asleep (all are trying right now)
 * is kept for the next to fall asleep, so that it tries once more instead of sleeping
 * through a release.
 *
 * <p>
 * Its one job is waking; what it knows of the lock's holder here, of a local pass under
 * way and of a reservation for other clients is kept in its {@link HandOffBook}, which it
 * answers for so that its callers have one object per lock.
 */
final class WaitQueue {

	/** One sleeping caller. */
	interface Waiter {

		/**
		 * Wakes the caller to try again; called at most once per sleep, on whatever
		 * thread delivered the release, so it must not block.
		 */
		void wake();

		/** Who waits. */
		Owner owner();

		/**
		 * The owner the lock may be passed to without being freed in Redis, or
		 * {@code null} when this waiter takes no pass (it wants a fixed lease).
		 */
		default @Nullable Owner passableOwner() {
			return null;
		}

		/**
		 * Hands the lock to this waiter, instead of {@link #wake()}: only after
		 * {@link WaitQueue#takeForPass} chose it.
		 */
		default void pass(Hold hold) {
			throw new UnsupportedOperationException();
		}

	}

	private final LockKeys keys;

	// small to start with: every hold a client may pass on has a queue, and most never
	// see a waiter (it grows as needed)
	private final ArrayDeque<Waiter> asleep = new ArrayDeque<>(2);

	private boolean pendingWake;

	// a release named this owner while it was not asleep (a fair lock): its next sleep
	// ends at once
	@Nullable private String pendingWakeFor;

	// callers between enter and exit: trying, asleep or subscribing
	private int members;

	// members whose first attempt found the lock taken
	private int waiting;

	private boolean removed;

	private final HandOffBook books;

	// release messages received (other than this client's own giving up)
	private long messages;

	WaitQueue(LockKeys keys) {
		this.keys = keys;
		this.books = HandOffBook.forKind(keys.kind());
	}

	LockKeys keys() {
		return this.keys;
	}

	/**
	 * Puts the waiter to sleep, or wakes it at once when a release came while nobody was
	 * asleep.
	 */
	void sleep(Waiter waiter) {
		sleep(waiter, -1);
	}

	/**
	 * Puts the waiter to sleep as {@link #sleep(Waiter)} does; for a lock every waiter
	 * may share (readers), also wakes it at once when a release message came since its
	 * last attempt began: one kept pending wake-up would let only the first of them
	 * retry.
	 * @param messagesBefore {@link #messages()} when its last attempt began, or -1
	 */
	void sleep(Waiter waiter, long messagesBefore) {
		synchronized (this) {
			if (messagesBefore >= 0 && this.messages != messagesBefore
					&& this.keys.kind().wakes() == LockKind.Wakes.ALL) {
				// woken below, outside the lock
			}
			else if (this.pendingWakeFor != null && this.pendingWakeFor.equals(waiter.owner().id())) {
				this.pendingWakeFor = null;
			}
			else if (!this.pendingWake) {
				this.asleep.add(waiter);
				return;
			}
			else {
				this.pendingWake = false;
			}
		}
		waiter.wake();
	}

	/**
	 * Takes a waiter out that stopped sleeping on its own (its time is up, or it was
	 * cancelled).
	 * @return whether it was still asleep; if not, a wake-up is on its way to it
	 */
	synchronized boolean remove(Waiter waiter) {
		return this.asleep.remove(waiter);
	}

	/**
	 * A release was announced: ends a reservation for other clients (one of them released
	 * the lock, or it is free), and wakes the waiter asleep longest; all of them for a
	 * lock they may share (readers).
	 */
	void released() {
		synchronized (this) {
			this.books.endReservation();
			this.messages++;
		}
		if (this.keys.kind().wakes() == LockKind.Wakes.ALL) {
			wakeAll();
		}
		else {
			wakeOne();
		}
	}

	/**
	 * A release message named the waiter whose turn it is (a fair lock): wakes it if it
	 * is asleep here; if it is this client's but trying right now, its next sleep ends at
	 * once.
	 * @param ownerId the waiter's owner id
	 * @param ours whether the owner is one of this client's
	 */
	void releasedTo(String ownerId, boolean ours) {
		Waiter named = null;
		synchronized (this) {
			for (Waiter waiter : this.asleep) {
				if (waiter.owner().id().equals(ownerId)) {
					named = waiter;
					break;
				}
			}
			if (named != null) {
				this.asleep.remove(named);
			}
			else if (ours) {
				this.pendingWakeFor = ownerId;
			}
		}
		if (named != null) {
			named.wake();
		}
	}

	/**
	 * Wakes the waiter asleep longest, for a wake-up another one did not use (or a lock
	 * found lost); a release message is {@link #released()}.
	 */
	void wakeOne() {
		Waiter next;
		synchronized (this) {
			next = this.asleep.poll();
			if (next == null) {
				this.pendingWake = true;
				return;
			}
		}
		next.wake();
	}

	// after a reconnect every waiter tries: each may have missed its release, also those
	// trying right now
	void missedReleases() {
		this.books.endReservation();
		wakeAll();
	}

	// every waiter tries, also one trying right now
	private void wakeAll() {
		List<Waiter> all;
		synchronized (this) {
			all = new ArrayList<>(this.asleep);
			this.asleep.clear();
			this.pendingWake = true;
		}
		all.forEach(Waiter::wake);
	}

	/** Records the hold of this client's owner that holds the lock now. */
	void held(Hold hold) {
		this.books.held(hold);
	}

	/**
	 * The hold no longer holds the lock (released in Redis, lost, abandoned, given up for
	 * other clients): the waiter asleep longest tries Redis now, or once the reservation
	 * for other clients is over. Its release message may have come already, and found
	 * that waiter still bound to wait for a pass.
	 */
	void notHeld(Hold hold) {
		if (this.books.notHeld(hold)) {
			wakeOne();
		}
	}

	/** See {@link HandOffBook#isHeldHereByOtherThan}. */
	boolean isHeldHereByOtherThan(Owner owner) {
		return this.books.isHeldHereByOtherThan(owner);
	}

	/** How many release messages came so far; see {@link #reservedForOthers}. */
	synchronized long messages() {
		return this.messages;
	}

	/**
	 * This client gave the lock up for other clients' waiters until then: its own callers
	 * hold off asking Redis, where they would find it kept from them, until a release
	 * message says another client let it go. Unless such a message came already since
	 * {@code messagesBefore} (the other client's turn may be over before this client
	 * hears back from giving the lock up).
	 */
	synchronized void reservedForOthers(long untilNanos, long messagesBefore) {
		if (this.messages == messagesBefore) {
			this.books.reserveForOthers(untilNanos);
		}
	}

	/**
	 * See {@link HandOffBook#holdOffNanos}; the reservation is
	 * {@link #reservedForOthers}.
	 */
	long holdOffNanos(Owner owner) {
		return this.books.holdOffNanos(owner);
	}

	/**
	 * How long a caller that has not asked Redis yet holds off because callers of this
	 * client already wait for the lock, for a kind whose callers
	 * {@link LockKind.WaitsInLine wait in line}: until a release wakes it in its turn, or
	 * at most {@link LockAcquirer#PASS_RECHECK_NANOS} (a permit that comes back at a
	 * lease end sends no message). 0 for any other kind, or when nobody waits. The caller
	 * then sleeps without asking: once it sleeps, it is in line, and asks when woken, at
	 * the latest at the end of its wait.
	 */
	long inLineNanos() {
		if (!(this.keys.kind() instanceof LockKind.WaitsInLine)) {
			// the other kinds' hot path takes no monitor for it
			return 0;
		}
		synchronized (this) {
			return (this.waiting > 0) ? LockAcquirer.PASS_RECHECK_NANOS : 0;
		}
	}

	/**
	 * Called by the holder at its last release: chooses the waiter asleep longest to pass
	 * the lock to, if it accepts a pass; otherwise the lock is freed in Redis and its
	 * release message wakes that waiter. Follow with {@link #held} for the new hold, or
	 * {@link #passFailed} and a wake-up of the waiter.
	 * @return the waiter, taken out of the queue, or {@code null} when the lock is not
	 * passed on: once the hold is released in Redis, this client's owners ask Redis for
	 * it
	 */
	synchronized @Nullable Waiter takeForPass(Hold hold) {
		Waiter next = this.asleep.peek();
		if (next == null || next.passableOwner() == null) {
			// Not passed on: the hold stays the holder until it is forgotten, after its
			// release in Redis. Until then the owner Redis knows (perhaps another thread
			// of this client, which passed the lock to this one) would re-enter there.
			return null;
		}
		if (!this.books.startPass(hold)) {
			return null;
		}
		this.asleep.poll();
		return next;
	}

	/**
	 * Undoes {@link #takeForPass}: the hold keeps the lock, to release it in Redis, and
	 * the waiter is first again.
	 */
	synchronized void notPassed(Hold hold, Waiter next) {
		this.books.notPassed(hold);
		this.asleep.addFirst(next);
	}

	/**
	 * The pass chosen by {@link #takeForPass} did not happen: the lock left this client.
	 */
	void passFailed() {
		this.books.passFailed();
	}

	/**
	 * Records whether another client waited when this client last asked Redis to go on
	 * passing the lock (see {@link LocalRun}).
	 */
	void othersWaited(boolean othersWaited) {
		this.books.othersWaited(othersWaited);
	}

	boolean othersWaited() {
		return this.books.othersWaited();
	}

	/** The owners of the waiters asleep now. */
	synchronized List<String> asleepOwnerIds() {
		List<String> owners = new ArrayList<>(this.asleep.size());
		for (Waiter waiter : this.asleep) {
			owners.add(waiter.owner().id());
		}
		return owners;
	}

	/** Wakes the waiters of these owners, if asleep: they try again. */
	void wake(java.util.Set<String> ownerIds) {
		List<Waiter> woken = new ArrayList<>();
		synchronized (this) {
			this.asleep.removeIf((waiter) -> ownerIds.contains(waiter.owner().id()) && woken.add(waiter));
		}
		woken.forEach(Waiter::wake);
	}

	/** Whether callers other than one are in the queue (or a holder and a caller). */
	synchronized boolean hasOthers() {
		return this.members > 1;
	}

	/** Callers that found the lock taken and wait for it now. */
	synchronized int waiting() {
		return this.waiting;
	}

	/** Counts a member as waiting: its first attempt found the lock taken. */
	synchronized void startWaiting() {
		this.waiting++;
	}

	synchronized void stopWaiting() {
		this.waiting--;
	}

	/** Counts a caller in; false when this queue was retired and a new one is needed. */
	synchronized boolean enter() {
		if (this.removed) {
			return false;
		}
		this.members++;
		return true;
	}

	/** Counts a caller out; true when it was the last, and the queue is retired. */
	synchronized boolean exit() {
		if (--this.members > 0) {
			return false;
		}
		this.removed = true;
		return true;
	}

}
