package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.lang.Nullable;

import io.github.redislock.RedisLockException;

/**
 * Lets threads sleep until a lock they wait for is released. The client subscribes to a
 * lock's release channel when its first thread starts waiting for it and unsubscribes
 * when its last one stops; all threads waiting for one lock share the subscription. A
 * release message wakes one of them (FIFO), which tries again; if it gets the lock, the
 * next release wakes the next one.
 *
 * <p>
 * All subscriptions share one pub/sub connection, opened at the first wait and kept open
 * by a channel of the client's own, so that a burst of contention does not open and close
 * connections. Lettuce confirms each SUBSCRIBE before returning and re-subscribes by
 * itself after a reconnect.
 *
 * <p>
 * A release published while the pub/sub connection is down (cut, killed, partitioned) is
 * lost. So when Lettuce re-subscribes a channel after reconnecting, every thread waiting
 * for that lock wakes and tries again, as if a release had been announced: a waiter
 * learns of a release it missed once the connection is back, not when the holder's lease
 * ends.
 *
 * <p>
 * A lock's subscription is dropped by a background thread once nobody has waited for it
 * for a short grace period: the last waiter does not pay for an UNSUBSCRIBE round trip
 * (which would stretch its wait when Redis is slow), and a lock that is contended again
 * soon keeps its subscription.
 */
final class ReleaseSubscriptions implements MessageListener, SubscriptionListener {

	private static final Log logger = LogFactory.getLog(ReleaseSubscriptions.class);

	private static final AtomicInteger threadCount = new AtomicInteger();

	private final RedisConnectionFactory connectionFactory;

	private final RedisCalls calls;

	private final byte[] clientChannel;

	private final Map<String, Waiters> waitersByChannel = new ConcurrentHashMap<>();

	private final ScheduledExecutorService janitor;

	private final long gracePeriodMillis;

	@Nullable
	private RedisConnection connection;

	// the connection being opened on the janitor thread, which callers wait for within
	// their own time
	@Nullable
	private CompletableFuture<RedisPubSubAsyncCommands<byte[], byte[]>> opening;

	private boolean closed;

	ReleaseSubscriptions(RedisConnectionFactory connectionFactory, RedisCalls calls, String clientChannel,
			long gracePeriodMillis) {
		this.connectionFactory = connectionFactory;
		this.calls = calls;
		this.clientChannel = clientChannel.getBytes(StandardCharsets.UTF_8);
		this.gracePeriodMillis = gracePeriodMillis;
		this.janitor = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "redis-lock-unsubscribe-" + threadCount.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * Registers the calling thread as a waiter on the lock; returns once its release
	 * channel is subscribed, so that a release after this call cannot be missed. Pair
	 * with {@link #leave(Waiters)}.
	 * @param budgetNanos the longest this may take: what is left of the caller's wait and
	 * command timeout, or {@link RedisCalls#NO_LIMIT}; it never takes longer than the
	 * command timeout
	 * @throws RedisLockException when the subscription could not be made in time; a
	 * thread that was queued behind one that failed fails too, at once
	 */
	Membership join(LockKeys keys, long budgetNanos) {
		long joinedAt = System.nanoTime();
		long deadline = this.calls.deadline(budgetNanos);
		for (;;) {
			Waiters waiters = this.waitersByChannel.computeIfAbsent(keys.channel(), (channel) -> new Waiters(keys));
			synchronized (waiters) {
				if (waiters.removed) {
					continue;
				}
				boolean subscribing = !waiters.subscribed;
				if (subscribing) {
					waiters.throwIfFailedSince(joinedAt);
					subscribe(keys, waiters, deadline);
				}
				waiters.count++;
				return new Membership(waiters, subscribing);
			}
		}
	}

	/**
	 * A thread's place among the waiters of a lock.
	 *
	 * @param waiters the lock's waiters
	 * @param subscribedHere whether this join made the subscription; if it did, a release
	 * may have come before it and the caller must try the lock once more before it
	 * sleeps. If not, whoever made the subscription tried after making it, and any later
	 * release wakes a waiter.
	 */
	record Membership(Waiters waiters, boolean subscribedHere) {
	}

	/**
	 * Unregisters a waiter; after the last one, the subscription goes once the grace
	 * period passes idle.
	 */
	void leave(Waiters waiters) {
		synchronized (waiters) {
			if (--waiters.count > 0) {
				return;
			}
			long idleSince = ++waiters.idleGeneration;
			try {
				this.janitor.schedule(() -> dropIfStillIdle(waiters, idleSince), this.gracePeriodMillis,
						TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException closed) {
				dropIfStillIdle(waiters, idleSince);
			}
		}
	}

	private void dropIfStillIdle(Waiters waiters, long idleSince) {
		synchronized (waiters) {
			if (waiters.count > 0 || waiters.removed || waiters.idleGeneration != idleSince) {
				return;
			}
			// UNSUBSCRIBE goes out before the entry leaves the map: a thread that starts
			// waiting after that subscribes anew, and its SUBSCRIBE cannot be overtaken
			// by this UNSUBSCRIBE
			waiters.removed = true;
			unsubscribe(waiters);
			this.waitersByChannel.remove(waiters.channel, waiters);
		}
	}

	@Override
	public void onMessage(Message message, byte[] pattern) {
		Waiters waiters = this.waitersByChannel.get(new String(message.getChannel(), StandardCharsets.UTF_8));
		if (waiters != null) {
			waiters.wakeOne();
		}
	}

	/**
	 * Called on Lettuce's event loop for every SUBSCRIBE Redis confirms: this client's
	 * own, and Lettuce's re-subscriptions after a reconnect. Before a channel's first
	 * subscription has returned, its waiters are not marked subscribed and nobody is
	 * woken; after that, a confirmation is a re-subscription. Takes no lock: the thread
	 * that subscribes holds the waiters' monitor while it waits for this event loop.
	 */
	@Override
	public void onChannelSubscribed(byte[] channel, long count) {
		Waiters waiters = this.waitersByChannel.get(new String(channel, StandardCharsets.UTF_8));
		if (waiters == null || waiters.confirmsOwnSubscribe()) {
			return;
		}
		if (waiters.subscribed) {
			if (logger.isDebugEnabled()) {
				logger
					.debug("Re-subscribed to " + waiters.channel + "; waking its waiters in case a release was missed");
			}
			waiters.wakeAll();
		}
	}

	/**
	 * How many locks this client has subscribed to, for waiters now or within the grace
	 * period.
	 */
	int channelCount() {
		return this.waitersByChannel.size();
	}

	/** How many threads of this client wait for each lock now, by lock name. */
	Map<String, Integer> waitingThreadsByLock() {
		Map<String, Integer> waiting = new TreeMap<>();
		for (Waiters waiters : this.waitersByChannel.values()) {
			synchronized (waiters) {
				if (waiters.count > 0) {
					waiting.merge(waiters.lockName, waiters.count, Integer::sum);
				}
			}
		}
		return waiting;
	}

	/** How many threads of this client wait for a lock now. */
	int waitingThreadCount() {
		int waiting = 0;
		for (Waiters waiters : this.waitersByChannel.values()) {
			synchronized (waiters) {
				waiting += waiters.count;
			}
		}
		return waiting;
	}

	synchronized void close() {
		this.closed = true;
		this.janitor.shutdownNow();
		if (this.opening != null) {
			this.opening.completeExceptionally(new IllegalStateException("The lock client is closed"));
		}
		if (this.connection != null) {
			closeQuietly(this.connection);
			this.connection = null;
		}
	}

	// The confirmation is awaited within the deadline, uninterruptibly: an interrupt
	// must not leave it unknown whether the channel is subscribed. A SUBSCRIBE that
	// failed or timed out may still take effect: the janitor unsubscribes the channel.
	private void subscribe(LockKeys keys, Waiters waiters, long deadline) {
		String what = "wait for lock '" + keys.name() + "' (key '" + keys.lockKey() + "'): subscribing to '"
				+ keys.channel() + "'";
		try {
			RedisPubSubAsyncCommands<byte[], byte[]> pubSub = pubSubCommands(what, deadline);
			waiters.ownSubscribes.incrementAndGet();
			try {
				this.calls.await(what, pubSub.subscribe(waiters.channelBytes), deadline);
			}
			catch (RuntimeException ex) {
				waiters.ownSubscribes.set(0);
				throw ex;
			}
			waiters.subscribed = true;
		}
		catch (RedisLockException ex) {
			throw failedToSubscribe(waiters, ex);
		}
		catch (RuntimeException ex) {
			throw failedToSubscribe(waiters, new RedisLockException("Could not " + what + ": " + ex.getMessage(), ex));
		}
	}

	private RedisLockException failedToSubscribe(Waiters waiters, RedisLockException ex) {
		waiters.failed(ex);
		long idleSince = ++waiters.idleGeneration;
		try {
			this.janitor.execute(() -> dropIfStillIdle(waiters, idleSince));
		}
		catch (RejectedExecutionException closed) {
			waiters.removed = true;
			this.waitersByChannel.remove(waiters.channel, waiters);
		}
		return ex;
	}

	private void unsubscribe(Waiters waiters) {
		RedisPubSubAsyncCommands<byte[], byte[]> pubSub = currentPubSubCommands();
		if (pubSub == null) {
			return;
		}
		try {
			this.calls.await("unsubscribe from '" + waiters.channel + "'", pubSub.unsubscribe(waiters.channelBytes),
					this.calls.deadline(RedisCalls.NO_LIMIT));
		}
		catch (RuntimeException ex) {
			// The connection is broken; Lettuce would re-subscribe this channel on
			// reconnect, which costs a little traffic until the connection is replaced,
			// but no correctness.
			logger.debug("Could not unsubscribe from " + waiters.channel, ex);
		}
	}

	@Nullable
	private synchronized RedisPubSubAsyncCommands<byte[], byte[]> currentPubSubCommands() {
		Subscription subscription = (this.connection != null) ? this.connection.getSubscription() : null;
		return (subscription != null && subscription.isAlive()) ? nativePubSub(this.connection) : null;
	}

	// The connection is opened (and its first channel subscribed) through Spring Data
	// Redis, which registers this listener with Lettuce, and which waits with the
	// connection's own timeout (Lettuce's default is 60 s): so it is opened on the
	// janitor thread, and callers wait for it within their deadline. The lock channels
	// are then subscribed on Lettuce's asynchronous API of the same connection.
	private RedisPubSubAsyncCommands<byte[], byte[]> pubSubCommands(String what, long deadline) {
		CompletableFuture<RedisPubSubAsyncCommands<byte[], byte[]>> open;
		synchronized (this) {
			if (this.closed) {
				throw new IllegalStateException("The lock client is closed");
			}
			RedisPubSubAsyncCommands<byte[], byte[]> current = currentPubSubCommands();
			if (current != null) {
				return current;
			}
			if (this.opening == null || this.opening.isDone()) {
				CompletableFuture<RedisPubSubAsyncCommands<byte[], byte[]>> opening = new CompletableFuture<>();
				try {
					this.janitor.execute(() -> open(opening));
				}
				catch (RejectedExecutionException ex) {
					throw new IllegalStateException("The lock client is closed");
				}
				this.opening = opening;
			}
			open = this.opening;
		}
		// a copy: a caller that gives up cancels what it waited for, and the opening is
		// shared
		return this.calls.await(what + " (opening the pub/sub connection)", open.copy(), deadline);
	}

	private void open(CompletableFuture<RedisPubSubAsyncCommands<byte[], byte[]>> opening) {
		RedisConnection connection = null;
		try {
			RedisConnection previous;
			synchronized (this) {
				previous = this.connection;
				this.connection = null;
			}
			if (previous != null) {
				closeQuietly(previous);
			}
			connection = this.connectionFactory.getConnection();
			connection.subscribe(this, this.clientChannel);
			synchronized (this) {
				if (!this.closed) {
					this.connection = connection;
					opening.complete(nativePubSub(connection));
					return;
				}
			}
			closeQuietly(connection);
			opening.completeExceptionally(new IllegalStateException("The lock client is closed"));
		}
		catch (RuntimeException ex) {
			if (connection != null) {
				closeQuietly(connection);
			}
			opening.completeExceptionally(ex);
		}
	}

	private static void closeQuietly(RedisConnection connection) {
		try {
			connection.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Could not close the pub/sub connection cleanly", ex);
		}
	}

	// With an open subscription, a Lettuce connection's native connection is its pub/sub
	// connection's asynchronous API
	@SuppressWarnings("unchecked")
	private static RedisPubSubAsyncCommands<byte[], byte[]> nativePubSub(RedisConnection connection) {
		return (RedisPubSubAsyncCommands<byte[], byte[]>) connection.getNativeConnection();
	}

	/** The threads of this client waiting for one lock. */
	static final class Waiters {

		private final String lockName;

		private final String channel;

		private final byte[] channelBytes;

		// fair: the thread waiting longest is woken first
		private final Semaphore wakeUps = new Semaphore(0, true);

		private volatile int count;

		private volatile boolean subscribed;

		// SUBSCRIBEs sent by this client whose confirmation has not come yet: those
		// confirmations are not re-subscriptions
		private final AtomicInteger ownSubscribes = new AtomicInteger();

		// the last failure to subscribe, and when: threads that were already queued for
		// the monitor then fail at once instead of trying again one after the other
		@Nullable
		private RedisLockException failure;

		private long failedAt;

		private boolean removed;

		// changes each time the last waiter leaves, so a drop scheduled then is void once
		// a waiter came back
		private long idleGeneration;

		private Waiters(LockKeys keys) {
			this.lockName = keys.name();
			this.channel = keys.channel();
			this.channelBytes = this.channel.getBytes(StandardCharsets.UTF_8);
		}

		/**
		 * Sleeps until a release is announced or the time is up.
		 * @return whether a release woke this thread
		 */
		boolean await(long nanos) throws InterruptedException {
			return this.wakeUps.tryAcquire(nanos, TimeUnit.NANOSECONDS);
		}

		private void failed(RedisLockException failure) {
			this.failure = failure;
			this.failedAt = System.nanoTime();
		}

		private void throwIfFailedSince(long joinedAt) {
			RedisLockException failure = this.failure;
			if (failure != null && this.failedAt - joinedAt >= 0) {
				throw new RedisLockException(failure.getMessage(), failure);
			}
		}

		private boolean confirmsOwnSubscribe() {
			return this.ownSubscribes.getAndUpdate((pending) -> Math.max(0, pending - 1)) > 0;
		}

		// After a reconnect every waiter tries: each may have missed its release. Not
		// exact (no lock is taken here), and a spare wake-up costs one attempt.
		private void wakeAll() {
			int missing = this.count - this.wakeUps.availablePermits();
			if (missing > 0) {
				this.wakeUps.release(missing);
			}
		}

		// One pending wake-up is enough: whoever takes it tries the lock again, and a
		// release that finds a wake-up still pending has nobody asleep to wake.
		private void wakeOne() {
			if (this.wakeUps.availablePermits() == 0) {
				this.wakeUps.release();
			}
		}

	}

}
