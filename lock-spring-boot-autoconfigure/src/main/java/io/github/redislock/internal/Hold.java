package io.github.redislock.internal;

import java.time.Duration;

import io.github.redislock.LeaseLostEvent;

/**
 * What this client knows of one thread's hold on one lock: enough to renew it, to report
 * its loss and to answer for its fencing token without asking Redis. Written by the
 * owning thread; the watchdog only reads it.
 */
final class Hold {

	private final LockKeys keys;

	private final String owner;

	private final Thread thread;

	private final long token;

	private final long acquiredAtNanos;

	private final long leaseMillis;

	private final boolean watchdog;

	private volatile int count = 1;

	private volatile boolean releasing;

	Hold(LockKeys keys, String owner, Thread thread, long token, long leaseMillis, boolean watchdog) {
		this.keys = keys;
		this.owner = owner;
		this.thread = thread;
		this.token = token;
		this.acquiredAtNanos = System.nanoTime();
		this.leaseMillis = leaseMillis;
		this.watchdog = watchdog;
	}

	LockKeys keys() {
		return this.keys;
	}

	String owner() {
		return this.owner;
	}

	Thread thread() {
		return this.thread;
	}

	long token() {
		return this.token;
	}

	long leaseMillis() {
		return this.leaseMillis;
	}

	boolean isWatchdog() {
		return this.watchdog;
	}

	int count() {
		return this.count;
	}

	void count(int count) {
		this.count = count;
	}

	/**
	 * Whether the owner is releasing its last hold now; a renewal that finds the lock
	 * gone is then no loss.
	 */
	boolean isReleasing() {
		return this.releasing;
	}

	void releasing() {
		this.releasing = true;
	}

	long heldForMillis() {
		return (System.nanoTime() - this.acquiredAtNanos) / 1_000_000;
	}

	LeaseLostEvent lostEvent(LeaseLostEvent.DetectedBy detectedBy) {
		return new LeaseLostEvent(this.keys.name(), this.keys.lockKey(), this.thread.getName(),
				Duration.ofMillis(heldForMillis()), Duration.ofMillis(this.leaseMillis), this.watchdog, detectedBy);
	}

	String describeLoss() {
		String lease = this.watchdog
				? "its watchdog lease of " + Durations.formatMillis(this.leaseMillis)
						+ " was not renewed in time (Redis unreachable, or this JVM paused)"
				: "its lease of " + Durations.formatMillis(this.leaseMillis) + " ran out";
		return "Lock '" + this.keys.name() + "' (key '" + this.keys.lockKey() + "') was acquired by this thread "
				+ Durations.formatMillis(heldForMillis()) + " ago but is no longer held: " + lease
				+ ", or it was force-unlocked. Another holder may have run at the same time; "
				+ "use a longer lease, the watchdog, or fencing tokens.";
	}

}
