package io.github.redislock.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.observation.Observation;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LeaseLostEvent;

/**
 * What this client knows of one owner's hold on one lock: enough to renew it, to report
 * its loss and to answer for its fencing token without asking Redis. Written by whoever
 * acts for the owner (the owning thread, or the thread using a handle); the watchdog only
 * reads it.
 */
final class Hold {

	private final LockKeys keys;

	private final Owner owner;

	private final long token;

	private final LocalRun run;

	// the lock's queue of this client while this hold may pass the lock on, or null
	@Nullable private WaitQueue queue;

	private final long acquiredAtNanos;

	private volatile Lease lease;

	// for a lease its owner set after the acquisition: when Redis will surely have ended
	// it
	private volatile long fixedLeaseEndsNanos;

	// a time until which Redis surely keeps the lock: the sending of the command that set
	// its expiry (an acquisition, a nested one that lengthened it) plus that lease
	private volatile long leaseHoldsUntilNanos;

	private final Observation observation;

	private final AtomicBoolean ended = new AtomicBoolean();

	private final AtomicBoolean lost = new AtomicBoolean();

	// Redis said it no longer holds the lock for this hold: nothing left to renew
	private volatile boolean gone;

	// the loss, once found; and the stage leaseLost() hands out, made on first demand
	// (most holds never have one asked for)
	@Nullable private volatile LeaseLostEvent lostEvent;

	@Nullable private volatile CompletableFuture<LeaseLostEvent> lostStage;

	private volatile int count = 1;

	private volatile boolean releasing;

	// the same owner's hold this one replaced, lost, when Redis granted the owner's
	// re-entry anew; written before this hold is published, read by the owner
	@Nullable private Hold outer;

	Hold(LockKeys keys, Owner owner, long token, Lease lease, LockObservations observations, LocalRun run) {
		this.keys = keys;
		this.owner = owner;
		this.token = token;
		this.run = run;
		this.acquiredAtNanos = System.nanoTime();
		this.leaseHoldsUntilNanos = this.acquiredAtNanos;
		this.lease = lease;
		this.observation = observations.startHold(keys, token, lease.watchdog());
	}

	LockKeys keys() {
		return this.keys;
	}

	/**
	 * The owner's lost hold this one replaced: the owner entered the lock again after its
	 * lease was lost, and Redis granted it anew. Its holds are the owner's outer ones,
	 * which it still releases once this hold is gone, each release telling it the lease
	 * was lost.
	 */
	@Nullable Hold outer() {
		return this.outer;
	}

	void outer(Hold outer) {
		this.outer = outer;
	}

	Owner owner() {
		return this.owner;
	}

	long token() {
		return this.token;
	}

	/** The run of local holders this hold belongs to. */
	LocalRun run() {
		return this.run;
	}

	/**
	 * Who Redis knows as the holder: this owner, or the one of this client that took the
	 * lock in Redis and passed it on without freeing it there.
	 */
	Owner redisOwner() {
		return this.run.redisOwner();
	}

	@Nullable WaitQueue queue() {
		return this.queue;
	}

	void queue(@Nullable WaitQueue queue) {
		this.queue = queue;
	}

	Lease lease() {
		return this.lease;
	}

	/**
	 * Records a lease set by its owner: from then on a fixed one, which nobody renews.
	 */
	void lease(Lease lease) {
		// Set before the command that changes the expiry is sent, which may shorten it:
		// until it lands Redis keeps the old one, after it the new one from its sending
		// at least, so the earlier of the two holds throughout.
		long now = System.nanoTime();
		long until = now + TimeUnit.MILLISECONDS.toNanos(lease.millis());
		long known = surelyHeldUntilNanos();
		this.leaseHoldsUntilNanos = (until - known < 0) ? until : known;
		this.lease = lease;
		// set before Redis applied it: Redis' expiry comes later, so allow for that
		this.fixedLeaseEndsNanos = now + TimeUnit.MILLISECONDS.toNanos(lease.millis() + 1000);
	}

	/**
	 * Records that a command sent at {@code sentAtNanos} set the lock's expiry to exactly
	 * {@code leaseMillis} (an extension, which may shorten it).
	 */
	void leaseReset(long sentAtNanos, long leaseMillis) {
		this.leaseHoldsUntilNanos = sentAtNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
	}

	/**
	 * Records that a command sent at {@code sentAtNanos} (or later) set the lock's expiry
	 * at least {@code leaseMillis} ahead.
	 */
	void leaseSet(long sentAtNanos, long leaseMillis) {
		long end = sentAtNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
		if (end - this.leaseHoldsUntilNanos > 0) {
			this.leaseHoldsUntilNanos = end;
		}
	}

	/**
	 * Whether Redis surely keeps the lock at least {@code leaseMillis} from now: a nested
	 * acquisition asking for that lease would not lengthen it, so it need not ask Redis.
	 */
	boolean leaseOutlasts(long leaseMillis) {
		return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis) - surelyHeldUntilNanos() <= 0;
	}

	/**
	 * A time ({@link System#nanoTime()}) until which Redis surely keeps the lock for this
	 * hold, as far as this client's clock can tell: the sending of the last command Redis
	 * confirmed that set its expiry (an acquisition, a renewal, an extension) plus that
	 * lease. Redis counts the lease from when the command arrived, later.
	 */
	long surelyHeldUntilNanos() {
		long known = this.leaseHoldsUntilNanos;
		if (this.lease.watchdog()) {
			long renewed = this.run.confirmedAtNanos() + TimeUnit.MILLISECONDS.toNanos(this.lease.millis());
			known = (renewed - known > 0) ? renewed : known;
		}
		return known;
	}

	/**
	 * Whether the lock may still be held in Redis for this hold: it is not known lost,
	 * and its lease is the watchdog's or a fixed one that may not have run out yet.
	 */
	boolean mayStillBeHeld() {
		return !isLost() && (this.lease.watchdog() || System.nanoTime() - this.fixedLeaseEndsNanos < 0);
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

	/** Whether the hold was found lost. */
	boolean isLost() {
		return this.lost.get();
	}

	/**
	 * Records that the hold was found lost.
	 * @return whether this is the first time, so that one loss is reported once, whether
	 * the watchdog, the unlock or a new acquisition finds it
	 */
	private boolean markLost() {
		return this.lost.compareAndSet(false, true);
	}

	/**
	 * Records that the hold was found lost, and by what.
	 * @return the loss to report, or {@code null} when it was found before (one loss is
	 * reported once, whoever finds it)
	 */
	@Nullable LeaseLostEvent lose(LeaseLostEvent.DetectedBy detectedBy) {
		if (!markLost()) {
			return null;
		}
		LeaseLostEvent event = lostEvent(detectedBy);
		this.lostEvent = event;
		CompletableFuture<LeaseLostEvent> stage = this.lostStage;
		if (stage != null) {
			stage.complete(event);
		}
		return event;
	}

	/**
	 * Completes with the loss once it is found (at once if it was); never after a
	 * release.
	 */
	CompletionStage<LeaseLostEvent> leaseLost() {
		CompletableFuture<LeaseLostEvent> stage = this.lostStage;
		if (stage == null) {
			synchronized (this.lost) {
				stage = this.lostStage;
				if (stage == null) {
					stage = new CompletableFuture<>();
					this.lostStage = stage;
				}
			}
		}
		// the loss may have been found between lose()'s two steps: complete it here too
		LeaseLostEvent event = this.lostEvent;
		if (event != null) {
			stage.complete(event);
		}
		return stage.minimalCompletionStage();
	}

	/**
	 * Whether Redis said it no longer holds the lock for this hold (a renewal found it
	 * gone or another's): there is nothing left to renew. A hold found lost by this
	 * client's clock alone (no renewal confirmed in time) is not gone: its renewals go
	 * on, so that the lock stays held while its owner stops.
	 */
	boolean isGone() {
		return this.gone;
	}

	void gone() {
		this.gone = true;
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

	private LeaseLostEvent lostEvent(LeaseLostEvent.DetectedBy detectedBy) {
		Lease lease = this.lease;
		return new LeaseLostEvent(this.keys.name(), this.keys.lockKey(), this.owner.thread().getName(),
				Duration.ofMillis(heldForMillis()), Duration.ofMillis(lease.millis()), lease.watchdog(), detectedBy);
	}

	/**
	 * Why the client's own clock declared this hold lost ({@link LeaseDeadlines}).
	 */
	String describeUnconfirmed(long marginMillis) {
		Lease lease = this.lease;
		String why = lease.watchdog() ? "no renewal of its " + lease.describe()
				+ " was confirmed by Redis in time (Redis stalled or " + "unreachable, or this JVM paused)"
				: "its " + lease.describe() + " is running out";
		String by = this.owner.isHandle() ? "by " + this.owner.describe()
				: "by thread '" + this.owner.thread().getName() + "'";
		return "Lock '" + this.keys.name() + "' (key '" + this.keys.lockKey() + "'), acquired " + by + " "
				+ Durations.formatMillis(heldForMillis()) + " ago, is treated as lost: " + why
				+ ", and Redis may give it to another holder within " + Durations.formatMillis(marginMillis)
				+ ". Its holder is told to stop (LockHandle#leaseLost(), IfLeaseLost.INTERRUPT).";
	}

	String describeLoss() {
		Lease lease = this.lease;
		String why = lease.watchdog()
				? "its " + lease.describe() + " was not renewed in time (Redis unreachable, or this JVM paused)"
				: "its " + lease.describe() + " ran out";
		String by = this.owner.isHandle() ? "by " + this.owner.describe() : "by this thread";
		return "Lock '" + this.keys.name() + "' (key '" + this.keys.lockKey() + "') was acquired " + by + " "
				+ Durations.formatMillis(heldForMillis()) + " ago but is no longer held: " + why
				+ ", or it was force-unlocked. Another holder may have run at the same time; "
				+ "use a longer lease, the watchdog, or fencing tokens.";
	}

}
