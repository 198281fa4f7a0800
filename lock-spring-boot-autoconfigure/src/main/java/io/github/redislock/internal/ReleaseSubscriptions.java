package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.SubscriptionListener;

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

	private final byte[] clientChannel;

	private final Map<String, Waiters> waitersByChannel = new ConcurrentHashMap<>();

	private final ScheduledExecutorService janitor;

	private final long gracePeriodMillis;

	private RedisConnection connection;

	private boolean closed;

	ReleaseSubscriptions(RedisConnectionFactory connectionFactory, String clientChannel, long gracePeriodMillis) {
		this.connectionFactory = connectionFactory;
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
	 */
	Membership join(LockKeys keys) {
		for (;;) {
			Waiters waiters = this.waitersByChannel.computeIfAbsent(keys.channel(), (channel) -> new Waiters(keys));
			synchronized (waiters) {
				if (waiters.removed) {
					continue;
				}
				boolean subscribing = !waiters.subscribed;
				if (subscribing) {
					subscribe(keys, waiters);
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
		if (waiters != null && waiters.subscribed) {
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
		if (this.connection != null) {
			try {
				this.connection.close();
			}
			catch (DataAccessException ex) {
				logger.debug("Could not close the pub/sub connection cleanly", ex);
			}
			this.connection = null;
		}
	}

	// An interrupt must not cut a SUBSCRIBE short: Lettuce would give up waiting for its
	// confirmation, and whether the channel is subscribed would be unknown. The interrupt
	// status is cleared meanwhile and restored after; one landing during the call makes
	// it try again (subscribing twice is harmless).
	private void subscribe(LockKeys keys, Waiters waiters) {
		boolean interrupted = Thread.interrupted();
		try {
			for (;;) {
				try {
					subscription().subscribe(waiters.channelBytes);
					waiters.subscribed = true;
					return;
				}
				catch (RuntimeException ex) {
					if (isInterruption(ex)) {
						interrupted = true;
						Thread.interrupted();
						continue;
					}
					this.waitersByChannel.remove(waiters.channel, waiters);
					waiters.removed = true;
					throw new RedisLockException("Could not wait for lock '" + keys.name() + "' (key '" + keys.lockKey()
							+ "'): subscribing to '" + keys.channel() + "' failed: " + ex.getMessage(), ex);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static boolean isInterruption(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof InterruptedException || cause.getClass().getSimpleName().contains("Interrupted")) {
				return true;
			}
		}
		return false;
	}

	private void unsubscribe(Waiters waiters) {
		Subscription subscription = currentSubscription();
		if (subscription == null) {
			return;
		}
		try {
			subscription.unsubscribe(waiters.channelBytes);
		}
		catch (RuntimeException ex) {
			// The connection is broken; Lettuce would re-subscribe this channel on
			// reconnect, which costs a little traffic until the connection is replaced,
			// but no correctness.
			logger.debug("Could not unsubscribe from " + waiters.channel, ex);
		}
	}

	private synchronized Subscription currentSubscription() {
		return (this.connection != null) ? this.connection.getSubscription() : null;
	}

	private synchronized Subscription subscription() {
		if (this.closed) {
			throw new IllegalStateException("The lock client is closed");
		}
		Subscription subscription = currentSubscription();
		if (subscription != null && subscription.isAlive()) {
			return subscription;
		}
		if (this.connection != null) {
			this.connection.close();
		}
		this.connection = this.connectionFactory.getConnection();
		this.connection.subscribe(this, this.clientChannel);
		return this.connection.getSubscription();
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
