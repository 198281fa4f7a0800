package io.github.redislock.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Gives back grants nobody accounts for. When a first acquisition's answer never came (a
 * timeout, a cut connection), Redis may have granted it anyway, or may still grant it
 * once it runs the queued script: a lock held for a whole lease by an owner that was told
 * it failed. The same holds for a last release that Redis refused for now ({@code
 * LOADING}) or whose answer never came. A settlement releases that owner's hold on that
 * lock in the background (the release script with a count of one: it removes the lock
 * only if this owner holds it, and tells waiters), retrying until Redis gives an answer.
 *
 * <p>
 * It runs on the connection the acquisition used, after it, so Redis runs it after the
 * acquisition it settles. The owner itself may lock the same name again meanwhile: its
 * acquisition first {@link #claim claims} the settlement, so that the two never overlap;
 * a pending one is then dropped, because the owner's acquire script adopts such a hold as
 * its own, and one under way is waited for (at most one command timeout). If that
 * acquisition fails too, it settles again.
 */
final class Settlements implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(Settlements.class);

	private static final long FIRST_RETRY_MILLIS = 100;

	private static final long LAST_RETRY_MILLIS = 2_000;

	private static final long REFUSED_RETRY_MILLIS = 50;

	private static final AtomicInteger clientCount = new AtomicInteger();

	private final LockCommands commands;

	private final Map<Key, Settlement> pending = new ConcurrentHashMap<>();

	private final ScheduledExecutorService executor;

	Settlements(LockCommands commands) {
		this(commands, settleThread());
	}

	/**
	 * @param executor where the settlements run, one after another
	 */
	Settlements(LockCommands commands, ScheduledExecutorService executor) {
		this.commands = commands;
		this.executor = executor;
	}

	private static ScheduledExecutorService settleThread() {
		int client = clientCount.incrementAndGet();
		return Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "redis-lock-settle-" + client);
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * Starts settling an acquisition of the lock by the owner whose outcome is unknown.
	 * The owner held no hold of the lock before it.
	 */
	void settle(LockKeys keys, Owner owner, Reason reason) {
		Settlement settlement = new Settlement(keys, owner, reason);
		Settlement earlier = this.pending.put(settlement.key, settlement);
		if (earlier != null) {
			earlier.cancel();
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Lock '" + keys.name() + "' may still be held for this client after its " + reason.what
					+ " failed; releasing it in the background");
		}
		schedule(settlement, 0);
	}

	/** Why a settlement is needed. */
	enum Reason {

		/** An acquisition failed, but Redis may have granted it, or may still. */
		ACQUIRE("acquisition"),

		/**
		 * A last release failed: Redis did not run it, or it is unknown whether it did.
		 */
		RELEASE("release");

		private final String what;

		Reason(String what) {
			this.what = what;
		}

	}

	/**
	 * Called before the owner acquires the lock: drops a pending settlement of it,
	 * waiting for one under way to end. If the acquisition then fails, the caller settles
	 * again.
	 * @return whether there was a settlement
	 */
	boolean claim(LockKeys keys, Owner owner) {
		if (this.pending.isEmpty()) {
			return false;
		}
		Settlement settlement = this.pending.get(new Key(keys.id(), owner.id()));
		if (settlement == null) {
			return false;
		}
		settlement.cancel();
		this.pending.remove(settlement.key, settlement);
		return true;
	}

	/** Settlements not finished yet. */
	int pendingCount() {
		return this.pending.size();
	}

	@Override
	public void close() {
		this.executor.shutdownNow();
	}

	private void schedule(Settlement settlement, long delayMillis) {
		try {
			this.executor.schedule(() -> run(settlement), delayMillis, TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException closed) {
			this.pending.remove(settlement.key, settlement);
		}
	}

	private void run(Settlement settlement) {
		if (!settlement.start()) {
			return;
		}
		boolean settled = false;
		long retryDelay = 0;
		try {
			LockReply reply = this.commands.release(settlement.keys, Release.last(Grant.anyOf(settlement.owner)));
			settled = true;
			if (reply instanceof LockReply.Released) {
				LockLogs.release
					.info("Released lock '" + settlement.keys.name() + "' in the background: Redis still held it "
							+ "for this client after its " + settlement.reason.what + " had failed");
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Could not settle lock '" + settlement.keys.name() + "' yet: " + ex.getMessage());
			// Redis answered "not now" (LOADING, say): it will be ready soon, try again
			// as the acquirer does; no answer at all: back off
			retryDelay = RedisFailures.isTransientRefusal(ex) ? REFUSED_RETRY_MILLIS : settlement.nextDelay();
		}
		finally {
			settlement.finish();
		}
		if (settled) {
			this.pending.remove(settlement.key, settlement);
		}
		else if (this.pending.get(settlement.key) == settlement) {
			schedule(settlement, retryDelay);
		}
	}

	private record Key(String lockId, String ownerId) {
	}

	private static final class Settlement {

		private final Key key;

		private final LockKeys keys;

		private final Owner owner;

		private final Reason reason;

		private boolean running;

		private boolean cancelled;

		private long delayMillis = FIRST_RETRY_MILLIS;

		Settlement(LockKeys keys, Owner owner, Reason reason) {
			this.key = new Key(keys.id(), owner.id());
			this.keys = keys;
			this.owner = owner;
			this.reason = reason;
		}

		synchronized boolean start() {
			if (this.cancelled) {
				return false;
			}
			this.running = true;
			return true;
		}

		synchronized void finish() {
			this.running = false;
			notifyAll();
		}

		// Waits for a release under way: it must reach Redis before the owner's next
		// acquire does, or it would free the lock the owner is taking.
		synchronized void cancel() {
			this.cancelled = true;
			boolean interrupted = false;
			while (this.running) {
				try {
					wait();
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}

		long nextDelay() {
			long delay = this.delayMillis;
			this.delayMillis = Math.min(LAST_RETRY_MILLIS, this.delayMillis * 2);
			return delay;
		}

	}

}
