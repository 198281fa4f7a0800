package io.github.redislock.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * This client's callers waiting for one lock, threads and asynchronous acquisitions
 * alike, in the order they went to sleep. A caller enters before its first attempt, so
 * that a release announced between that attempt and its sleep is not lost. A release
 * message wakes the one asleep longest, which tries again; if it gets the lock, its
 * release wakes the next. A message that finds nobody asleep (all are trying right now)
 * is kept for the next to fall asleep, so that it tries once more instead of sleeping
 * through a release.
 */
final class WaitQueue {

	/** One sleeping caller. */
	interface Waiter {

		/**
		 * Wakes the caller to try again; called at most once per sleep, on whatever
		 * thread delivered the release, so it must not block.
		 */
		void wake();

	}

	private final LockKeys keys;

	private final ArrayDeque<Waiter> asleep = new ArrayDeque<>();

	private boolean pendingWake;

	// callers between enter and exit: trying, asleep or subscribing
	private int members;

	// members whose first attempt found the lock taken
	private int waiting;

	private boolean removed;

	WaitQueue(LockKeys keys) {
		this.keys = keys;
	}

	LockKeys keys() {
		return this.keys;
	}

	/**
	 * Puts the waiter to sleep, or wakes it at once when a release came while nobody was
	 * asleep.
	 */
	void sleep(Waiter waiter) {
		synchronized (this) {
			if (!this.pendingWake) {
				this.asleep.add(waiter);
				return;
			}
			this.pendingWake = false;
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

	/** A release was announced: wakes the waiter asleep longest. */
	void released() {
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
		List<Waiter> all;
		synchronized (this) {
			all = new ArrayList<>(this.asleep);
			this.asleep.clear();
			this.pendingWake = true;
		}
		all.forEach(Waiter::wake);
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
