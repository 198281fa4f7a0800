package io.github.redislock.internal;

import java.time.Duration;
import java.time.Instant;

/**
 * One thread's hold on one lock, as its client knows it.
 *
 * @param name the lock's name
 * @param key the lock's Redis key
 * @param thread the holding thread's name
 * @param holdCount how many times the thread holds it (re-entry)
 * @param heldSince when the thread first acquired it
 * @param lease the lease it was taken with
 * @param watchdog whether the watchdog renews the lease
 * @param fencingToken the token of this hold
 */
public record HeldLock(String name, String key, String thread, int holdCount, Instant heldSince, Duration lease,
		boolean watchdog, long fencingToken) {
}
