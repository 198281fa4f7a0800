package io.github.redislock.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.observation.Observation;

import org.springframework.lang.Nullable;

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

	private final Observation observation;

	private final AtomicBoolean ended = new AtomicBoolean();

	private final AtomicBoolean lost = new AtomicBoolean();

	private volatile int count = 1;

	private volatile boolean releasing;

	Hold(LockKeys keys, String owner, Thread thread, long token, long leaseMillis, boolean watchdog,
			LockObservations observations) {
		this.keys = keys;
		this.owner = owner;
		this.thread = thread;
		this.token = token;
		this.acquiredAtNanos = System.nanoTime();
		this.leaseMillis = leaseMillis;
		this.watchdog = watchdog;
		this.observation = observations.startHold(keys, token, watchdog);
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

	/**
	 * Records that the hold was found lost.
	 * @return whether this is the first time, so that one loss is reported once, whether
	 * the watchdog, the unlock or a new acquisition finds it
	 */
	boolean markLost() {
		return this.lost.compareAndSet(false, true);
	}

	/**
	 * Ends the hold's observation, once, however the hold ended.
	 * @param failure why the hold ended other than by its last release, if it did
	 */
	void ended(@Nullable Throwable failure) {
		if (this.ended.compareAndSet(false, true)) {
			LockObservations.safely(() -> {
				if (failure != null) {
					this.observation.error(failure);
				}
				this.observation.stop();
				return this.observation;
			});
		}
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
