package io.github.redislock.torture;

import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.ReactiveLock;
import io.github.redislock.ReactiveRedisLockClient;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisLockException;
import io.github.redislock.RedisSemaphore;

/**
 * The calls of a {@link TortureWorker} thread when each name is a semaphore of
 * {@code permits} permits ({@code redislock.torture.permits} above 1): a permit of a
 * random name, with a random wait and lease as for locks, taken each time one of four
 * ways ({@link RedisSemaphore#tryAcquire}, {@link RedisSemaphore#acquire},
 * {@link RedisSemaphore#acquireAsync} and {@link ReactiveLock#acquire} of
 * {@link ReactiveRedisLockClient#semaphore}) and released one of three
 * ({@link LockHandle#release()} by the thread that took it,
 * {@link LockHandle#releaseAsync()} sent by the client, or {@link LockHandle#release()}
 * on another thread).
 *
 * <p>
 * Inside each hold the thread counts itself in the name's live count of holders in the
 * {@link TortureStore} and out again, and stays inside up to 2 ms (longer than a lock's
 * hold, so that all the permits of a name are often held at once and callers queue behind
 * them), or longer when the test freezes this JVM. It leaves the fenced counter alone:
 * holders of one semaphore write at once by design, so their updates race.
 *
 * <p>
 * Each call is one line in the format of {@link TortureWorker}'s (with {@code read} 0 and
 * {@code write} {@link TortureStore#NOT_WRITTEN}) followed by how it was taken
 * ({@code t}, {@code a}, {@code f} or {@code r}) and, when acquired, how it was released
 * ({@code h} here, {@code c} by the client, {@code o} on another thread) and the live
 * count the holder found on entering, itself included.
 */
final class TorturePermits implements AutoCloseable {

	/**
	 * How long a future or a {@code Mono} may take before the call counts as hung: far
	 * beyond any wait plus command timeout, even with the JVM frozen meanwhile.
	 */
	private static final Duration HUNG = Duration.ofSeconds(30);

	private static final int MAX_HOLD_NANOS = 2_000_000;

	private static final char[] WAYS = { 't', 'a', 'f', 'r' };

	private static final char[] RELEASES = { 'h', 'c', 'o' };

	private final RedisLockClient client;

	private final ReactiveRedisLockClient reactive;

	private final TortureStore store;

	private final int worker;

	private final int names;

	private final int permits;

	private final ExecutorService releasers;

	TorturePermits(RedisLockClient client, TortureStore store, int worker, int names, int permits) {
		this.client = client;
		this.reactive = ReactiveRedisLockClient.create(client);
		this.store = store;
		this.worker = worker;
		this.names = names;
		this.permits = permits;
		AtomicInteger releasers = new AtomicInteger();
		this.releasers = Executors
			.newCachedThreadPool((task) -> new Thread(task, "torture-releaser-" + releasers.incrementAndGet()));
	}

	/** Takes a permit of a random name, holds it, releases it, and describes the call. */
	String acquireOnce(Random random) {
		int name = random.nextInt(this.names);
		long wait = random.nextInt((int) TortureWorker.MAX_WAIT.toMillis());
		long lease = TortureWorker.leaseMillis(random);
		char way = WAYS[random.nextInt(WAYS.length)];
		char releasedBy = RELEASES[random.nextInt(RELEASES.length)];
		long epochBefore = this.store.epoch();
		long start = System.nanoTime();
		LockHandle handle = null;
		char outcome;
		try {
			handle = acquire("torture-" + name, way, Duration.ofMillis(wait),
					(lease > 0) ? Duration.ofMillis(lease) : null);
			outcome = (handle != null) ? 'A' : 'T';
		}
		catch (RedisLockException ex) {
			outcome = 'E';
			TortureWorker.failed("acquire", ex);
		}
		catch (InterruptedException | RuntimeException ex) {
			outcome = 'X';
			TortureWorker.unexpected("acquire (" + way + ")", ex);
		}
		long end = System.nanoTime();
		String call = name + " " + start + " " + end + " " + wait + " " + lease + " " + outcome;
		if (handle == null) {
			if (outcome != 'T') {
				LockSupport.parkNanos(20_000_000);
			}
			return call + " " + way;
		}
		long epochAt = this.store.epoch();
		long enter = System.nanoTime();
		long token = handle.fencingToken();
		// counted in after the entry time and out before the exit time, so that everyone
		// counted at once has an entry-to-exit interval containing that moment
		long inside = this.store.enter(name);
		LockSupport.parkNanos(random.nextInt(MAX_HOLD_NANOS));
		this.store.holdIfPauseRequested(this.worker, lease);
		this.store.leave(name);
		long exit = System.nanoTime();
		char unlocked = release(handle, releasedBy);
		long unlockEnd = System.nanoTime();
		return call + " " + epochBefore + " " + epochAt + " " + token + " " + enter + " " + exit + " 0 "
				+ TortureStore.NOT_WRITTEN + " " + exit + " " + unlockEnd + " " + unlocked + " " + way + " "
				+ releasedBy + " " + inside;
	}

	// null when no permit was free for the whole wait
	private @Nullable LockHandle acquire(String name, char way, Duration wait, @Nullable Duration lease)
			throws InterruptedException {
		RedisSemaphore semaphore = this.client.getSemaphore(name, this.permits);
		try {
			return switch (way) {
				case 't' -> semaphore.tryAcquire(wait, lease).orElse(null);
				case 'a' -> semaphore.acquire(wait, lease);
				case 'f' -> await(semaphore.acquireAsync(wait, lease));
				default ->
					Objects.requireNonNull(this.reactive.semaphore(name, this.permits).acquire(wait, lease).block(HUNG),
							"the Mono completed empty");
			};
		}
		catch (LockNotAcquiredException ex) {
			// tryAcquire throws it only when interrupted, which nothing here does
			if (way == 't') {
				throw ex;
			}
			return null;
		}
	}

	private char release(LockHandle handle, char releasedBy) {
		try {
			switch (releasedBy) {
				case 'h' -> handle.release();
				case 'c' -> await(handle.releaseAsync());
				default -> await(CompletableFuture.runAsync(handle::release, this.releasers));
			}
			return 'O';
		}
		catch (LeaseExpiredException ex) {
			return 'L';
		}
		catch (RedisLockException | IllegalMonitorStateException ex) {
			TortureWorker.failed("release", ex);
			return (ex instanceof RedisLockException) ? 'E' : 'M';
		}
		catch (InterruptedException | RuntimeException ex) {
			TortureWorker.unexpected("release (" + releasedBy + ")", ex);
			return 'X';
		}
	}

	/**
	 * The future's value, or what it failed with, as the blocking call would have thrown
	 * it; a future that takes longer than {@link #HUNG} is cancelled and reported.
	 */
	private static <T> T await(Future<T> future) throws InterruptedException {
		try {
			return future.get(HUNG.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException failure) {
				throw failure;
			}
			throw new IllegalStateException(ex.getCause());
		}
		catch (TimeoutException ex) {
			future.cancel(false);
			throw new IllegalStateException("hung for " + HUNG, ex);
		}
	}

	@Override
	public void close() throws InterruptedException {
		this.releasers.shutdown();
		this.releasers.awaitTermination(1, TimeUnit.MINUTES);
	}

}
