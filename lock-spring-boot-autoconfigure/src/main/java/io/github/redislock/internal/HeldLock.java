package io.github.redislock.internal;

import java.time.Duration;
import java.time.Instant;

/**
 * One owner's hold on one lock, as its client knows it.
 *
 * @param name the lock's name
 * @param key the lock's Redis key
 * @param owner the owner's id, its field in the lock's hash
 * @param handle whether the owner is a {@link io.github.redislock.LockHandle}, not a
 * thread
 * @param thread the holding thread's name; for a handle, the thread that acquired it
 * @param holdCount how many times the owner holds it (re-entry; always 1 for a handle)
 * @param heldSince when the owner first acquired it
 * @param lease the lease it holds it with
 * @param watchdog whether the watchdog renews the lease
 * @param fencingToken the token of this hold
 * @param mode which kind of lock: {@code exclusive}, {@code read}, {@code write} or
 * {@code fair}
 */
public record HeldLock(String name, String key, String owner, boolean handle, String thread, int holdCount,
		Instant heldSince, Duration lease, boolean watchdog, long fencingToken, String mode) {
}
