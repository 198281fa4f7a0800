package io.github.redislock.internal;

/**
 * What every acquisition of one client waits with, whichever way it waits (a thread in
 * {@link LockAcquirer}, callbacks in {@link AsyncAcquisition}): the commands it sends to
 * Redis, the client's wait queues and release subscriptions, and how many fencing tokens
 * an attempt reserves for the local passes it may make (see {@link LocalRun}).
 *
 * @param commands the client's lock commands
 * @param queues this client's callers waiting, per lock
 * @param subscriptions the client's release subscriptions
 * @param maxLocalPasses consecutive local passes while other clients wait; 0 for none
 */
record Waiting(LockCommands commands, WaitQueues queues, ReleaseSubscriptions subscriptions, int maxLocalPasses) {

	/** The decisions of one acquisition that starts now (see {@link Acquisition}). */
	Acquisition acquisition(LockKeys keys, Owner owner, Lease lease, Wait wait, long start) {
		return new Acquisition(keys, owner, lease, wait, start, this.commands.timeoutMillis(), this.maxLocalPasses);
	}

}
