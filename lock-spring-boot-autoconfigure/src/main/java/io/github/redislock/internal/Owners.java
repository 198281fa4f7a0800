package io.github.redislock.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The owners of one client: its threads, each one owner for all its locks, and its
 * handles, a new owner for each acquisition (see {@link Owner}). The caller picks the
 * owner once, at the API's entry point.
 */
final class Owners {

	private final String clientId;

	private final AtomicLong handleSequence = new AtomicLong();

	// every lock() and unlock() asks for its thread's owner: made once per thread (its id
	// and the id's bytes), and gone with the thread
	private final ThreadLocal<Owner> threadOwners;

	Owners(String clientId) {
		this.clientId = clientId;
		this.threadOwners = ThreadLocal.withInitial(() -> Owner.thread(clientId, Thread.currentThread()));
	}

	/** The current thread as an owner. */
	Owner currentThread() {
		return this.threadOwners.get();
	}

	/** A fresh handle owner, for one acquisition. */
	Owner newHandle() {
		return Owner.handle(this.clientId, this.handleSequence.incrementAndGet());
	}

	/** Whether an owner id found in Redis is one of this client's. */
	boolean isOwnedHere(String ownerId) {
		return ownerId.startsWith(this.clientId + ":");
	}

}
