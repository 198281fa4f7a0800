package io.github.redislock.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LeaseLostEvent;

/**
 * Finds, on this client's own clock, the holds whose lease could end before their owner
 * stops: a renewal Redis confirmed tells that the lease runs at least until the sending
 * of that renewal plus the lease ({@link Hold#surelyHeldUntilNanos()}); when Redis
 * stalls, the network parts or this JVM pauses, no renewal is confirmed, and that time
 * comes. A hold is declared lost a {@linkplain #marginMillis margin} before it, so that
 * its owner can stop before Redis could grant the lock to anyone else; the renewals go on
 * (the lock stays held while the owner stops, if Redis still has it).
 * <p>
 * Only holds whose loss someone awaits are watched ({@code LockHandle#leaseLost()}, a
 * method with {@code IfLeaseLost.INTERRUPT}): for the others, a late renewal that does
 * get through is no loss, and a lease that did end is found by the watchdog or the
 * release, as always. The watch runs on a thread of its own, so that a renewal stuck
 * until its command timeout cannot delay it.
 */
final class LeaseDeadlines implements AutoCloseable {

	private static final AtomicInteger clientCount = new AtomicInteger();

	private final Holds holds;

	private final LeaseLostNotifier notifier;

	private final long periodMillis;

	private final Set<Hold> watched = ConcurrentHashMap.newKeySet();

	@Nullable private volatile ScheduledExecutorService scheduler;

	private volatile boolean closed;

	/**
	 * @param watchdogMillis the watchdog's lease: the watch looks every fortieth of it
	 * (between 5 and 100 ms)
	 */
	LeaseDeadlines(Holds holds, LeaseLostNotifier notifier, long watchdogMillis) {
		this.holds = holds;
		this.notifier = notifier;
		this.periodMillis = Math.max(5, Math.min(100, watchdogMillis / 40));
	}

	/**
	 * How long before its lease could end a hold is declared lost: a tenth of the lease,
	 * at least two periods of the watch (so that it is seen in time), at most half the
	 * lease. It covers the watch's delay and a Redis clock that runs up to that much
	 * faster than this JVM's over one lease.
	 */
	long marginMillis(long leaseMillis) {
		return Math.min(leaseMillis / 2, Math.max(leaseMillis / 10, 2 * this.periodMillis));
	}

	/** Watches the hold until it ends or is found lost. */
	void watch(Hold hold) {
		if (this.closed) {
			return;
		}
		this.watched.add(hold);
		if (this.scheduler == null) {
			start();
		}
	}

	private synchronized void start() {
		if (this.scheduler != null || this.closed) {
			return;
		}
		int client = clientCount.incrementAndGet();
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "redis-lock-lease-watch-" + client);
			thread.setDaemon(true);
			return thread;
		});
		scheduler.scheduleWithFixedDelay(this::check, this.periodMillis, this.periodMillis, TimeUnit.MILLISECONDS);
		this.scheduler = scheduler;
	}

	void check() {
		try {
			long now = System.nanoTime();
			for (Hold hold : this.watched) {
				if (hold.isLost() || hold.isReleasing() || !this.holds.contains(hold)) {
					this.watched.remove(hold);
					continue;
				}
				long margin = TimeUnit.MILLISECONDS.toNanos(marginMillis(hold.lease().millis()));
				if (now - (hold.surelyHeldUntilNanos() - margin) >= 0) {
					this.watched.remove(hold);
					declareLost(hold);
				}
			}
		}
		catch (RuntimeException ex) {
			// anything escaping here would cancel the schedule
			LockLogs.lease.error("Could not watch the leases of this client's locks; trying again", ex);
		}
	}

	private void declareLost(Hold hold) {
		LeaseLostEvent event = hold.lose(LeaseLostEvent.DetectedBy.CLIENT_CLOCK);
		if (event != null) {
			LockLogs.lease.warn(hold.describeUnconfirmed(marginMillis(hold.lease().millis())));
			this.notifier.notify(event);
		}
	}

	@Override
	public synchronized void close() {
		this.closed = true;
		ScheduledExecutorService scheduler = this.scheduler;
		if (scheduler != null) {
			scheduler.shutdownNow();
		}
		this.watched.clear();
	}

}
