package io.github.redislock.internal;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LeaseLostEvent;

/**
 * This client's account of what its owners hold: enters each grant of Redis in
 * {@link Holds} (a new hold, or one more of a hold the owner has), and ends holds, with
 * their observations, reporting a lost lease once. The acquisitions, blocking and
 * asynchronous, and the releases keep their books here.
 */
final class HoldLedger {

	private static final Log logger = LogFactory.getLog(HoldLedger.class);

	private final Holds holds;

	private final LockObservations observations;

	private final LeaseLostNotifier notifier;

	HoldLedger(Holds holds, LockObservations observations, LeaseLostNotifier notifier) {
		this.holds = holds;
		this.observations = observations;
		this.notifier = notifier;
	}

	/**
	 * Enters a grant of Redis to the owner.
	 * @param start when the acquisition started ({@link System#nanoTime()}): the lease
	 * runs from then at the latest
	 * @return the owner's hold, counting this grant
	 */
	Hold granted(LockKeys keys, Owner owner, LockReply.Granted grant, Lease lease, long start) {
		long token = grant.fencingToken();
		Hold hold = this.holds.get(keys, owner);
		// a re-entry in Redis answers with the token of the run's acquisition
		if (hold != null && (hold.token() == token || hold.run().firstToken() == token)) {
			hold.count(hold.count() + 1);
		}
		else {
			Hold lost = hold;
			hold = new Hold(keys, owner, token, lease, this.observations, new LocalRun(owner, grant, start));
			if (lost != null) {
				// the earlier hold was lost (lease ran out) and this is a fresh
				// acquisition; the owner's releases of it come after this one's
				this.holds.remove(lost);
				lost.ended(new LeaseExpiredException(keys.name(), lost.describeLoss()));
				reportLost(lost, LeaseLostEvent.DetectedBy.ACQUIRE);
				hold.outer(lost);
			}
			this.holds.add(hold);
		}
		// the acquisition (a nested one too) left the lock's expiry at least this far out
		hold.leaseSet(start, lease.millis());
		if (logger.isDebugEnabled()) {
			logger.debug("Acquired lock '" + keys.name() + "' (hold " + hold.count() + ", token " + token + ") in "
					+ Durations.formatMillis((System.nanoTime() - start) / 1_000_000));
		}
		return hold;
	}

	/**
	 * Reports the hold's lease as lost, unless that was reported already (the watchdog
	 * may have found it first).
	 */
	void reportLost(Hold hold, LeaseLostEvent.DetectedBy detectedBy) {
		LeaseLostEvent event = hold.lose(detectedBy);
		if (event != null) {
			this.notifier.notify(event);
		}
	}

	/**
	 * Ends the hold: this client no longer counts it.
	 * @param failure why it ended other than by its last release, if it did
	 */
	void forget(Hold hold, @Nullable Throwable failure) {
		this.holds.remove(hold);
		hold.ended(failure);
		Hold outer = hold.outer();
		if (outer != null) {
			// the owner's outer holds, lost, are its again: each release of them throws
			this.holds.addLost(outer);
		}
	}

}
