package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * A lock passed within one client: a first handle takes it in Redis while two more of the
 * same client wait; its release passes the lock to the second, which reserves a block of
 * fencing tokens (the client's maxLocalPasses), and the second's release would pass it to
 * the third from that block without asking Redis.
 */
final class LocalPassing {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final long firstToken;

	private final LockHandle second;

	private final CompletableFuture<LockHandle> third;

	private LocalPassing(long firstToken, LockHandle second, CompletableFuture<LockHandle> third) {
		this.firstToken = firstToken;
		this.second = second;
		this.third = third;
	}

	/**
	 * Takes the lock, queues one or two more handles and passes it to the second.
	 * @param waiters 1 or 2: whether a third handle waits to be passed the lock too
	 */
	static LocalPassing start(RedisLockClient client, String name, int waiters) throws Exception {
		LockHandle first = client.acquire(name, WAIT, null);
		CompletableFuture<LockHandle> second = client.acquireAsync(name, WAIT, null);
		CompletableFuture<LockHandle> third = (waiters > 1) ? client.acquireAsync(name, WAIT, null)
				: CompletableFuture.failedFuture(new IllegalStateException("No third handle waits"));
		await().atMost(Duration.ofSeconds(10)).until(() -> LockTestClients.inspector(client).waitingCount() == waiters);
		first.release();
		return new LocalPassing(first.fencingToken(), second.get(10, TimeUnit.SECONDS), third);
	}

	long firstToken() {
		return this.firstToken;
	}

	/** The first token of the block the pass to the second reserved: the second's. */
	long blockStart() {
		return this.second.fencingToken();
	}

	/**
	 * Releases the second; the third is passed the lock (or waits for it in Redis). A
	 * release that asks Redis may learn there that the lock was lost meanwhile.
	 */
	CompletableFuture<LockHandle> releaseSecond() {
		try {
			this.second.release();
		}
		catch (LeaseExpiredException ex) {
			// the third still gets its turn, in Redis
		}
		return this.third;
	}

	/** Releases the second and returns the third, passed the lock. */
	LockHandle passToThird() throws Exception {
		return releaseSecond().get(10, TimeUnit.SECONDS);
	}

}
