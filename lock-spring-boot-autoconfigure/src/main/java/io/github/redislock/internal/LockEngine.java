package io.github.redislock.internal;

import java.util.List;
import java.util.Map;

import io.micrometer.observation.Observation;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.lang.Nullable;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LeaseLostEvent;
import io.github.redislock.RedisLockException;

/**
 * Acquires and releases locks for the threads of one client, and keeps its holds: what
 * each thread holds, renewed by the watchdog when its lease is the watchdog's, observed
 * from first acquisition to last release. Uncontended, an acquire and a release are one
 * round trip each and nothing else; {@link LockAcquirer} does the waiting.
 */
public final class LockEngine implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LockEngine.class);

	private final String clientId;

	private final LockCommands commands;

	private final Holds holds;

	private final ReleaseSubscriptions subscriptions;

	private final LeaseWatchdog watchdog;

	private final long watchdogLeaseMillis;

	private final LeaseLostNotifier notifier;

	private final LockObservations observations;

	private final LockAcquirer acquirer;

	private final Settlements settlements;

	private volatile boolean closed;

	LockEngine(String clientId, LockCommands commands, Holds holds, ReleaseSubscriptions subscriptions,
			LeaseWatchdog watchdog, long watchdogLeaseMillis, LeaseLostNotifier notifier,
			LockObservations observations) {
		this.notifier = notifier;
		this.observations = observations;
		this.clientId = clientId;
		this.commands = commands;
		this.holds = holds;
		this.subscriptions = subscriptions;
		this.watchdog = watchdog;
		this.watchdogLeaseMillis = watchdogLeaseMillis;
		this.acquirer = new LockAcquirer(commands, holds, subscriptions);
		this.settlements = new Settlements(commands);
	}

	/**
	 * Acquires the lock for the current thread.
	 * @param waitNanos how long to wait; negative for no limit
	 * @param leaseMillis the lease; 0 or less for a watchdog lease
	 * @param interruptible whether an interrupt ends the wait with InterruptedException;
	 * if not, the interrupt status is restored once the method returns
	 * @return whether the lock is held
	 */
	boolean acquire(LockKeys keys, long waitNanos, long leaseMillis, boolean interruptible)
			throws InterruptedException {
		if (this.closed) {
			// its watchdog is stopped: a lock taken now would silently lose its lease
			throw new IllegalStateException("The lock client is closed; cannot acquire lock '" + keys.name() + "'");
		}
		Observation observation = this.observations.startAcquire(keys);
		boolean acquired;
		try {
			acquired = acquireObserved(keys, waitNanos, leaseMillis, interruptible);
		}
		catch (InterruptedException ex) {
			LockObservations.endAcquire(observation, "interrupted", null);
			throw ex;
		}
		catch (RuntimeException | Error ex) {
			LockObservations.endAcquire(observation, "error", ex);
			throw ex;
		}
		LockObservations.endAcquire(observation, acquired ? "acquired" : "timed-out", null);
		return acquired;
	}

	private boolean acquireObserved(LockKeys keys, long waitNanos, long leaseMillis, boolean interruptible)
			throws InterruptedException {
		long start = System.nanoTime();
		Thread thread = Thread.currentThread();
		String owner = owner(thread);
		boolean watchdogLease = leaseMillis <= 0;
		long lease = watchdogLease ? this.watchdogLeaseMillis : leaseMillis;
		boolean firstHold = this.holds.get(keys.lockKey(), thread) == null;
		boolean claimed = firstHold && this.settlements.claim(keys, owner);
		long token;
		try {
			token = this.acquirer.acquire(keys, owner, thread, lease, start, waitNanos, interruptible);
		}
		catch (RuntimeException | InterruptedException ex) {
			// Redis may grant it later: a lock held for a whole lease by an owner that
			// was told it failed. Or this acquisition took over a settlement it could not
			// finish in its place. A nested acquisition adds nothing the owner's own
			// count does not already undo at its last release.
			if (claimed || (firstHold && ex instanceof RedisCalls.OutcomeUnknownException)) {
				this.settlements.settle(keys, owner, Settlements.Reason.ACQUIRE);
			}
			throw ex;
		}
		if (token > 0) {
			onAcquired(keys, owner, thread, token, lease, watchdogLease, start);
			return true;
		}
		return false;
	}

	/**
	 * Releases one hold of the current thread.
	 */
	void release(LockKeys keys) {
		Thread thread = Thread.currentThread();
		Hold hold = this.holds.get(keys.lockKey(), thread);
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + keys.name() + "' (key '" + keys.lockKey()
					+ "') is not held by the current thread '" + thread.getName() + "'");
		}
		if (hold.count() == 1) {
			hold.releasing();
		}
		long left;
		try {
			left = this.commands.release(keys, hold.owner(), hold.count());
		}
		catch (RuntimeException ex) {
			// Redis did not run it (refused it for now, LOADING say), or it is unknown
			// whether it did. Keep the hold while nested holds remain; after the last one
			// stop renewing it, and release it once Redis answers rather than leave it
			// held for the rest of its lease.
			if (hold.count() <= 1) {
				forget(hold, ex);
				this.settlements.settle(keys, hold.owner(), Settlements.Reason.RELEASE);
				throw new RedisLockException(ex.getMessage() + "; the client releases the lock in the background "
						+ "once Redis answers (or its lease ends first)", ex);
			}
			throw ex;
		}
		if (left > 0) {
			hold.count((int) left);
			return;
		}
		if (left < 0) {
			LeaseExpiredException expired = new LeaseExpiredException(keys.name(), hold.describeLoss());
			forget(hold, expired);
			reportLost(hold, LeaseLostEvent.DetectedBy.UNLOCK);
			throw expired;
		}
		forget(hold, null);
		if (logger.isDebugEnabled()) {
			logger.debug("Released lock '" + keys.name() + "' after " + Durations.formatMillis(hold.heldForMillis()));
		}
	}

	boolean forceRelease(LockKeys keys) {
		return this.commands.forceRelease(keys);
	}

	boolean isLocked(LockKeys keys) {
		return this.commands.exists(keys);
	}

	/**
	 * The current thread's holds: what this client counts, provided Redis still has the
	 * thread as the lock's owner. A grant this client does not account for (an
	 * acquisition that failed, settled in the background) is not one.
	 */
	int holdCount(LockKeys keys) {
		Hold hold = this.holds.get(keys.lockKey(), Thread.currentThread());
		if (hold == null) {
			return 0;
		}
		return (this.commands.holdCount(keys, hold.owner()) > 0) ? hold.count() : 0;
	}

	long remainingLeaseMillis(LockKeys keys) {
		return this.commands.remainingLeaseMillis(keys);
	}

	long fencingToken(LockKeys keys) {
		Hold hold = this.holds.get(keys.lockKey(), Thread.currentThread());
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + keys.name() + "' is not held by the current thread " + "'"
					+ Thread.currentThread().getName() + "', so it has no fencing token");
		}
		return hold.token();
	}

	/** Locks this client's threads hold now. */
	public int heldCount() {
		return this.holds.size();
	}

	/** Locks this client is subscribed to: waited for now, or within the last second. */
	public int subscribedCount() {
		return this.subscriptions.channelCount();
	}

	/** Threads of this client waiting for a lock now. */
	public int waitingThreadCount() {
		return this.subscriptions.waitingThreadCount();
	}

	/** The locks this client's threads hold now, by lock name, then thread. */
	public List<HeldLock> heldLocks() {
		return this.holds.describe();
	}

	/** How many threads of this client wait for each lock now, by lock name. */
	public Map<String, Integer> waitingThreadsByLock() {
		return this.subscriptions.waitingThreadsByLock();
	}

	LockState state(LockKeys keys) {
		return this.commands.state(keys);
	}

	/**
	 * What Redis says is left of each lock's lease, in one round trip; see
	 * {@link io.github.redislock.RedisLock#remainingLease()} for the values.
	 */
	public List<Long> remainingLeaseMillis(List<String> lockKeys) {
		return this.commands.remainingLeaseMillis(lockKeys);
	}

	/** Holds the watchdog renews now. */
	public int watchdogCount() {
		return this.watchdog.watchedCount();
	}

	/** Runs one renewal round now instead of at the next period, for tests. */
	public void renewNow() {
		this.watchdog.renewAll();
	}

	/** Acquisitions and releases whose outcome is being settled in the background. */
	public int settlingCount() {
		return this.settlements.pendingCount();
	}

	@Override
	public void close() {
		this.closed = true;
		this.settlements.close();
		this.watchdog.close();
		this.subscriptions.close();
	}

	private void onAcquired(LockKeys keys, String owner, Thread thread, long token, long lease, boolean watchdogLease,
			long start) {
		Hold hold = this.holds.get(keys.lockKey(), thread);
		if (hold != null && hold.token() == token) {
			hold.count(hold.count() + 1);
		}
		else {
			if (hold != null) {
				// the earlier hold was lost (lease ran out) and this is a fresh
				// acquisition
				forget(hold, new LeaseExpiredException(keys.name(), hold.describeLoss()));
				reportLost(hold, LeaseLostEvent.DetectedBy.ACQUIRE);
			}
			hold = new Hold(keys, owner, thread, token, lease, watchdogLease, this.observations);
			this.holds.add(hold);
			if (watchdogLease) {
				this.watchdog.watch(hold);
			}
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Acquired lock '" + keys.name() + "' (hold " + hold.count() + ", token " + token + ") in "
					+ Durations.formatMillis((System.nanoTime() - start) / 1_000_000));
		}
	}

	// the watchdog may have reported this loss already
	private void reportLost(Hold hold, LeaseLostEvent.DetectedBy detectedBy) {
		if (hold.markLost()) {
			this.notifier.notify(hold.lostEvent(detectedBy));
		}
	}

	private void forget(Hold hold, @Nullable Throwable failure) {
		this.holds.remove(hold);
		this.watchdog.unwatch(hold);
		hold.ended(failure);
	}

	private String owner(Thread thread) {
		return this.clientId + ":" + thread.getId();
	}

}
