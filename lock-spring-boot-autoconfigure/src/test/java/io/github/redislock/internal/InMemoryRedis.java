package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * Exclusive locks in memory, for the Lincheck tests of the client's in-JVM structures
 * only: it answers {@link LockCommands} at the seam where the client's structures call
 * Redis, and its pub/sub through a {@link ReleaseTransport}, deterministically and
 * without threads. What the scripts do is tested against a real Redis elsewhere; here a
 * lock has one holder or none, and its release is announced on its channel. A waiter of
 * another client than the holder's marks the lock (as {@code lock.lua} counts it in)
 * until it is granted the lock, withdraws, or the lock is freed.
 *
 * <p>
 * An asynchronous command runs at once, and its reply arrives when the test says so
 * ({@link #answer()}), as Redis' replies come on Lettuce's event loop.
 */
final class InMemoryRedis {

	// what is left of a holder's lease, as a busy reply says: a day, so that a waiter's
	// sleep never ends by its time within a test, but when it is woken
	static final long BUSY_LEASE_MILLIS = TimeUnit.DAYS.toMillis(1);

	private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

	private static final byte[] RELEASED = "released".getBytes(StandardCharsets.UTF_8);

	// lock id -> owner id
	private final Map<String, String> holders = new HashMap<>();

	// lock id -> the fencing token of its holder's acquisition
	private final Map<String, Long> tokens = new HashMap<>();

	private long fence;

	// "<lock id> <owner id>" of the waiters that marked a lock
	private final Set<String> marks = new HashSet<>();

	// how many times a free lock was taken
	private long grants;

	private final ArrayDeque<Runnable> replies = new ArrayDeque<>();

	private final Commands commands = new Commands(this);

	@Nullable private Transport transport;

	@Nullable private Runnable beforeAcquire;

	LockCommands commands() {
		return this.commands;
	}

	/** The pub/sub of the client's release subscriptions. */
	synchronized ReleaseTransport transport(ReleaseTransport.Events events) {
		this.transport = new Transport(events, false);
		return this.transport;
	}

	/**
	 * The pub/sub of the client's release subscriptions, where Redis confirms a
	 * subscription as it is sent: for a test whose waiters block until they are
	 * subscribed.
	 */
	synchronized ReleaseTransport transportConfirmingAtOnce(ReleaseTransport.Events events) {
		this.transport = new Transport(events, true);
		return this.transport;
	}

	Transport transport() {
		Transport transport = this.transport;
		if (transport == null) {
			throw new IllegalStateException("No transport");
		}
		return transport;
	}

	synchronized @Nullable String holder(LockKeys keys) {
		return this.holders.get(keys.id());
	}

	/** The owner's acquisition was granted, but its reply never came. */
	synchronized void grantedWithoutReply(LockKeys keys, Owner owner) {
		this.holders.put(keys.id(), owner.id());
		this.tokens.put(keys.id(), ++this.fence);
	}

	/**
	 * Runs once, when the next asynchronous acquisition's command is sent, before it
	 * runs: for a test in which something reaches Redis ahead of that command (it left
	 * its client later).
	 */
	synchronized void onNextAcquireSent(Runnable action) {
		this.beforeAcquire = action;
	}

	private synchronized @Nullable Runnable takeBeforeAcquire() {
		Runnable action = this.beforeAcquire;
		this.beforeAcquire = null;
		return action;
	}

	/** Another client takes the lock. */
	synchronized void takenByAnotherClient(LockKeys keys) {
		this.holders.put(keys.id(), "another-client:1");
		this.grants++;
	}

	/** Another client takes the lock if it is free; returns whether it did. */
	synchronized boolean takenByAnotherClientIfFree(LockKeys keys) {
		if (this.holders.containsKey(keys.id())) {
			return false;
		}
		takenByAnotherClient(keys);
		return true;
	}

	/** Whether a waiter's mark of the owner is on the lock. */
	synchronized boolean isMarkedBy(LockKeys keys, Owner owner) {
		return this.marks.contains(mark(keys, owner.id()));
	}

	/** How many times a free lock was taken so far, by this client or another. */
	synchronized long grants() {
		return this.grants;
	}

	/** The holder releases the lock, which is announced. */
	void releasedByAnotherClient(LockKeys keys) {
		release(keys, "another-client:1");
	}

	/** The lock's lease ran out (or it was force-unlocked): it is free, unannounced. */
	synchronized void expired(LockKeys keys) {
		this.holders.remove(keys.id());
	}

	/** Delivers the replies sent so far; returns whether there was one. */
	boolean answer() {
		List<Runnable> due;
		synchronized (this) {
			due = new ArrayList<>(this.replies);
			this.replies.clear();
		}
		due.forEach(Runnable::run);
		return !due.isEmpty();
	}

	private synchronized LockReply acquire(LockKeys keys, Owner owner, int tokens, boolean waits) {
		String holder = this.holders.get(keys.id());
		if (owner.id().equals(holder)) {
			// a re-entry answers with the token of the holder's acquisition
			return new LockReply.Granted(this.tokens.get(keys.id()), 1);
		}
		if (holder == null) {
			this.holders.put(keys.id(), owner.id());
			this.marks.remove(mark(keys, owner.id()));
			this.grants++;
			long token = this.fence + 1;
			this.fence += tokens;
			this.tokens.put(keys.id(), token);
			return new LockReply.Granted(token, tokens);
		}
		if (waits && !client(holder).equals(client(owner.id()))) {
			this.marks.add(mark(keys, owner.id()));
		}
		return new LockReply.Busy(BUSY_LEASE_MILLIS);
	}

	private synchronized void withdraw(LockKeys keys, Owner owner) {
		this.marks.remove(mark(keys, owner.id()));
	}

	private static String mark(LockKeys keys, String owner) {
		return keys.id() + " " + owner;
	}

	// as lock.lua tells clients apart: "<client>:" of "<client>:<n>"
	private static String client(String owner) {
		return owner.substring(0, owner.indexOf(':') + 1);
	}

	private LockReply release(LockKeys keys, String owner) {
		synchronized (this) {
			if (!owner.equals(this.holders.get(keys.id()))) {
				return LockReply.NOT_HELD;
			}
			this.holders.remove(keys.id());
			// the lock's hash goes, and its waiters' marks with it
			this.marks.removeIf((mark) -> mark.startsWith(keys.id() + " "));
		}
		Transport transport = this.transport;
		if (transport != null) {
			transport.publish(keys.channel());
		}
		return new LockReply.Released(0);
	}

	private synchronized <T> CompletableFuture<T> later(T reply) {
		CompletableFuture<T> future = new CompletableFuture<>();
		this.replies.add(() -> future.complete(reply));
		return future;
	}

	/**
	 * Time bounds of calls that never reach a server, for the time budgets of the
	 * structures: a future they bound ends when it completes, never by a timeout: a
	 * time-out would need the JDK's timer thread, which Lincheck does not schedule, and
	 * these tests fire no timers.
	 */
	static CallDeadlines calls() {
		return new CallDeadlines() {

			@Override
			public long deadline(long budgetNanos) {
				return System.nanoTime() + Math.max(0, Math.min(TIMEOUT_NANOS, budgetNanos));
			}

			@Override
			public <T> CompletableFuture<T> within(String what, CompletionStage<T> command, long deadline) {
				return command.toCompletableFuture().copy();
			}

		};
	}

	/** The commands of the client, answered in memory. */
	private static final class Commands implements LockCommands {

		private final InMemoryRedis redis;

		Commands(InMemoryRedis redis) {
			this.redis = redis;
		}

		@Override
		public long timeoutMillis() {
			return TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NANOS);
		}

		@Override
		public long yieldMillis() {
			return 0;
		}

		@Override
		public CompletableFuture<LockReply> acquireAsync(LockKeys keys, Owner owner, Lease lease, int tokens,
				boolean waits, long budgetNanos) {
			Runnable before = this.redis.takeBeforeAcquire();
			if (before != null) {
				before.run();
			}
			return this.redis.later(this.redis.acquire(keys, owner, Math.max(1, tokens), waits));
		}

		@Override
		public LockReply acquire(LockKeys keys, Owner owner, Lease lease, int holdsBefore, int tokens, boolean waits,
				long budgetNanos) {
			return this.redis.acquire(keys, owner, Math.max(1, tokens), waits);
		}

		@Override
		public LockReply release(LockKeys keys, Release release) {
			return this.redis.release(keys, release.owner().id());
		}

		@Override
		public CompletableFuture<LockReply> releaseAsync(LockKeys keys, Release release) {
			return CompletableFuture.completedFuture(this.redis.release(keys, release.owner().id()));
		}

		@Override
		public LockReply continueRun(LockKeys keys, Grant holder, int tokens, Lease lease) {
			return this.redis.acquire(keys, holder.owner(), Math.max(1, tokens), false);
		}

		@Override
		public CompletableFuture<LockReply> continueRunAhead(LockKeys keys, Grant holder, int tokens, Lease lease) {
			return CompletableFuture.completedFuture(continueRun(keys, holder, tokens, lease));
		}

		@Override
		public CompletableFuture<?> withdrawAsync(LockKind.MarksWaiters kind, LockKeys keys, Owner owner) {
			this.redis.withdraw(keys, owner);
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public void withdraw(LockKind.MarksWaiters kind, LockKeys keys, Owner owner, long budgetNanos) {
			this.redis.withdraw(keys, owner);
		}

		@Override
		public boolean extend(LockKeys keys, Owner owner, long leaseMillis) {
			return owner.id().equals(this.redis.holder(keys));
		}

		@Override
		public boolean forceRelease(LockKeys keys) {
			String holder = this.redis.holder(keys);
			return holder != null && this.redis.release(keys, holder) != LockReply.NOT_HELD;
		}

		@Override
		public List<Hold> renew(List<Hold> holds, long leaseMillis) {
			List<Hold> lost = new ArrayList<>();
			synchronized (this.redis) {
				for (Hold hold : holds) {
					if (!hold.redisOwner().id().equals(this.redis.holders.get(hold.keys().id()))) {
						lost.add(hold);
					}
				}
			}
			return lost;
		}

	}

	/**
	 * Pub/sub in memory: a subscription is confirmed when the test says so
	 * ({@link #confirm()}), or as it is sent; a release reaches the channels subscribed
	 * by then.
	 */
	static final class Transport implements ReleaseTransport {

		private final ReleaseTransport.Events events;

		private final Map<String, CompletableFuture<Void>> sent = new HashMap<>();

		private final Set<String> subscribed = new HashSet<>();

		private final boolean confirmsAtOnce;

		private boolean closed;

		Transport(ReleaseTransport.Events events, boolean confirmsAtOnce) {
			this.events = events;
			this.confirmsAtOnce = confirmsAtOnce;
		}

		@Override
		public CompletableFuture<Void> subscribe(String what, String channel, long deadline, Runnable sending) {
			CompletableFuture<Void> subscription;
			synchronized (this) {
				if (this.closed) {
					return CompletableFuture.failedFuture(new ClientClosedException());
				}
				sending.run();
				subscription = this.sent.computeIfAbsent(channel, (name) -> new CompletableFuture<>());
			}
			if (this.confirmsAtOnce) {
				confirm();
			}
			return subscription;
		}

		/**
		 * Redis confirms the subscriptions sent so far; returns whether there was one.
		 */
		boolean confirm() {
			Map<String, CompletableFuture<Void>> confirmed;
			synchronized (this) {
				confirmed = new HashMap<>(this.sent);
				this.sent.clear();
				this.subscribed.addAll(confirmed.keySet());
			}
			// as Lettuce does, outside any monitor of the transport
			confirmed.forEach((channel, subscription) -> {
				this.events.subscribed(channel);
				subscription.complete(null);
			});
			return !confirmed.isEmpty();
		}

		synchronized boolean isSubscribed(String channel) {
			return this.subscribed.contains(channel);
		}

		@Override
		public synchronized void unsubscribe(String channel) {
			this.subscribed.remove(channel);
		}

		// fails the subscriptions under way outside its monitor, as the real transports
		// do
		@Override
		public void close() {
			List<CompletableFuture<Void>> failed;
			synchronized (this) {
				this.closed = true;
				this.subscribed.clear();
				failed = new ArrayList<>(this.sent.values());
				this.sent.clear();
			}
			failed.forEach((subscription) -> subscription.completeExceptionally(new ClientClosedException()));
		}

		void publish(String channel) {
			if (isSubscribed(channel)) {
				this.events.message(channel, RELEASED);
			}
		}

	}

}
