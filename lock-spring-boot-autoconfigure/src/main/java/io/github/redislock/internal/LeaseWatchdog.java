package io.github.redislock.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

import io.github.redislock.LeaseLostEvent;
import io.github.redislock.RedisLockException;

/**
 * Keeps watchdog leases alive: one thread per client renews every watchdog hold every
 * third of the watchdog timeout, many holds per script call. A renewal checks ownership,
 * so a hold that turns out lost (expired during an outage or pause, or force-unlocked)
 * stops being renewed. Holds whose owner is gone (a thread that died, a handle that
 * became unreachable) without releasing are dropped, so their locks expire instead of
 * living forever.
 */
final class LeaseWatchdog implements AutoCloseable {

	/**
	 * At most this many keys per renewal script, to keep each call short on the Redis
	 * side.
	 */
	static final int BATCH_SIZE = 256;

	private static final AtomicInteger clientCount = new AtomicInteger();

	private final LockCommands commands;

	private final Holds holds;

	private final long leaseMillis;

	private final ToIntFunction<String> batchOf;

	private final ScheduledExecutorService scheduler;

	private final LeaseLostNotifier notifier;

	/**
	 * @param clustered whether keys of different slots must go in different script calls
	 */
	LeaseWatchdog(LockCommands commands, Holds holds, long leaseMillis, boolean clustered, LeaseLostNotifier notifier) {
		this(commands, holds, leaseMillis, clustered, notifier,
				Executors.newSingleThreadScheduledExecutor(daemonThreads()));
	}

	/**
	 * @param scheduler where the renewals run, one after another
	 */
	LeaseWatchdog(LockCommands commands, Holds holds, long leaseMillis, boolean clustered, LeaseLostNotifier notifier,
			ScheduledExecutorService scheduler) {
		this.notifier = notifier;
		this.commands = commands;
		this.holds = holds;
		this.leaseMillis = leaseMillis;
		this.batchOf = clustered ? ClusterSlotHashUtil::calculateSlot : (key) -> 0;
		this.scheduler = scheduler;
		long period = Math.max(1, leaseMillis / 3);
		this.scheduler.scheduleWithFixedDelay(this::renewAll, period, period, TimeUnit.MILLISECONDS);
	}

	/** The lease the watchdog renews, in milliseconds. */
	long leaseMillis() {
		return this.leaseMillis;
	}

	/** Runs another periodic task on the watchdog's thread. */
	void scheduleAlso(Runnable task, long periodMillis) {
		this.scheduler.scheduleWithFixedDelay(task, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
	}

	// What it renews is read off the client's holds, not kept in a set of its own: one
	// structure less to change on every acquisition and release, and none to forget. A
	// hold stops being renewed when it ends, is lost, or gets a fixed lease.
	private static boolean isRenewed(Hold hold) {
		return hold.lease().watchdog() && !hold.isGone();
	}

	int watchedCount() {
		int watched = 0;
		for (Hold hold : this.holds.all()) {
			if (isRenewed(hold)) {
				watched++;
			}
		}
		return watched;
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

	void renewAll() {
		try {
			dropHoldsOfDeadThreads();
			for (List<Hold> batch : batches()) {
				renewQuietly(batch);
			}
		}
		catch (Throwable ex) {
			// anything escaping here would cancel the schedule and stop all renewals
			LockLogs.lease.error("Lock lease renewal round failed; trying again next period", ex);
		}
	}

	// One batch failing (a node down, a slot being migrated) must not keep the others
	// from being renewed.
	private void renewQuietly(List<Hold> batch) {
		try {
			renew(batch);
		}
		catch (RuntimeException ex) {
			// try again next period; a lease that runs out meanwhile is found lost then.
			// Redis lost or refusing is told once by RedisAvailability, not every period
			String message = "Could not renew " + batch.size() + " lock lease(s): " + ex.getMessage();
			if (ex instanceof RedisLockException) {
				if (LockLogs.lease.isDebugEnabled()) {
					LockLogs.lease.debug(message);
				}
			}
			else {
				LockLogs.lease.warn(message);
			}
		}
	}

	private void renew(List<Hold> batch) {
		long sentAt = System.nanoTime();
		List<Hold> lostHolds = this.commands.renew(batch, this.leaseMillis);
		for (Hold hold : batch) {
			if (!lostHolds.contains(hold)) {
				hold.run().renewed(sentAt);
			}
		}
		for (Hold lost : lostHolds) {
			// a hold whose owner released it, passed it on or set its lease while the
			// renewal was under way is not lost
			if (lost.isReleasing() || !lost.lease().watchdog() || !this.holds.contains(lost)) {
				continue;
			}
			lost.gone();
			LeaseLostEvent event = lost.lose(LeaseLostEvent.DetectedBy.WATCHDOG);
			if (event != null) {
				LockLogs.lease.warn(lost.describeLoss());
				this.notifier.notify(event);
				WaitQueue queue = lost.queue();
				if (queue != null) {
					// threads of this client waiting for it to be passed on ask Redis now
					queue.wakeOne();
				}
			}
		}
	}

	private void dropHoldsOfDeadThreads() {
		for (Hold hold : this.holds.all()) {
			if (hold.owner().isGone()) {
				abandoned(hold, "Thread '" + hold.owner().thread().getName() + "' ended without unlocking lock '"
						+ hold.keys().name() + "'");
			}
		}
	}

	/**
	 * Forgets a hold whose owner can no longer release it: its lease is no longer
	 * renewed, so the lock expires with it.
	 * @param ending what happened, for the log and the hold's observation
	 */
	void abandoned(Hold hold, String ending) {
		if (!this.holds.contains(hold)) {
			return;
		}
		this.holds.remove(hold);
		hold.ended(new IllegalStateException(ending));
		LockLogs.lease.warn(ending + "; its lease is no longer renewed and ends within "
				+ Durations.formatMillis(hold.lease().millis()));
		LeaseLostEvent event = hold.lose(LeaseLostEvent.DetectedBy.ABANDONED);
		if (event != null) {
			this.notifier.notify(event);
		}
	}

	private List<List<Hold>> batches() {
		Map<Integer, List<Hold>> bySlot = new LinkedHashMap<>();
		List<List<Hold>> batches = new ArrayList<>();
		for (Hold hold : this.holds.all()) {
			if (!isRenewed(hold)) {
				continue;
			}
			List<Hold> batch = bySlot.computeIfAbsent(this.batchOf.applyAsInt(hold.keys().lockKey()),
					(slot) -> new ArrayList<>());
			batch.add(hold);
			if (batch.size() == BATCH_SIZE) {
				batches.add(batch);
				bySlot.remove(this.batchOf.applyAsInt(hold.keys().lockKey()));
			}
		}
		batches.addAll(bySlot.values());
		return batches;
	}

	private static ThreadFactory daemonThreads() {
		int client = clientCount.incrementAndGet();
		return (task) -> {
			Thread thread = new Thread(task, "redis-lock-watchdog-" + client);
			thread.setDaemon(true);
			return thread;
		};
	}

}
