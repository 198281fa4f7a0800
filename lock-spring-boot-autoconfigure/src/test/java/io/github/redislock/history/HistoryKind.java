package io.github.redislock.history;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.ReactiveRedisLockClient;
import io.github.redislock.RedisFairLock;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.RedisSemaphore;
import io.github.redislock.history.HistoryEntry.Side;
import org.jspecify.annotations.Nullable;

/**
 * A lock kind as the history checker's callers take it: which callers it has (a thread, a
 * handle, an asynchronous or a reactive caller), which sides they ask for, and how each
 * acquires and releases.
 */
enum HistoryKind {

	EXCLUSIVE(1, List.of("thread", "handle", "async", "reactive")) {
		@Override
		Acquired acquire(Caller client, String caller, Side side, String name, Duration wait) throws Exception {
			return switch (caller) {
				case "thread" -> thread(client.blocking().getLock(name), wait);
				case "handle" -> handle(client.blocking().tryAcquire(name, wait, null));
				case "async" -> async(client.blocking().acquireAsync(name, wait, null), wait);
				default -> reactive(client, name, wait);
			};
		}
	},

	FAIR(1, List.of("thread", "handle", "async")) {
		@Override
		Acquired acquire(Caller client, String caller, Side side, String name, Duration wait) throws Exception {
			RedisFairLock lock = client.blocking().getFairLock(name);
			return switch (caller) {
				case "thread" -> thread(lock, wait);
				case "handle" -> handle(lock.tryAcquire(wait, null));
				default -> async(lock.acquireAsync(wait, null), wait);
			};
		}
	},

	READ_WRITE(1, List.of("thread", "handle", "async")) {
		@Override
		Side side(Random random) {
			return random.nextInt(3) == 0 ? Side.EXCLUSIVE : Side.READ;
		}

		@Override
		Acquired acquire(Caller client, String caller, Side side, String name, Duration wait) throws Exception {
			RedisReadWriteLock lock = client.blocking().getReadWriteLock(name);
			boolean read = side == Side.READ;
			return switch (caller) {
				case "thread" -> thread(read ? lock.readLock() : lock.writeLock(), wait);
				case "handle" -> handle(read ? lock.tryAcquireRead(wait, null) : lock.tryAcquireWrite(wait, null));
				default -> async(read ? lock.acquireReadAsync(wait, null) : lock.acquireWriteAsync(wait, null), wait);
			};
		}
	},

	SEMAPHORE(3, List.of("handle", "async")) {
		@Override
		Side side(Random random) {
			return Side.PERMIT;
		}

		@Override
		Acquired acquire(Caller client, String caller, Side side, String name, Duration wait) throws Exception {
			RedisSemaphore semaphore = client.blocking().getSemaphore(name, permits());
			return "handle".equals(caller) ? handle(semaphore.tryAcquire(wait, null))
					: async(semaphore.acquireAsync(wait, null), wait);
		}
	};

	private final int permits;

	private final List<String> callers;

	HistoryKind(int permits, List<String> callers) {
		this.permits = permits;
		this.callers = callers;
	}

	/** How many may hold at once. */
	int permits() {
		return this.permits;
	}

	/** Who may call: "thread", "handle", "async", "reactive". */
	List<String> callers() {
		return this.callers;
	}

	/** Which side a call asks for. */
	Side side(Random random) {
		return Side.EXCLUSIVE;
	}

	/** The side the probe after a burst asks for: the one that needs the lock free. */
	Side probeSide() {
		return side(new Random(0)) == Side.PERMIT ? Side.PERMIT : Side.EXCLUSIVE;
	}

	/**
	 * Acquires the lock as the caller does.
	 * @param wait zero for {@code tryLock()}
	 * @return the hold, or {@code null} when the lock was not acquired
	 */
	abstract @Nullable Acquired acquire(Caller client, String caller, Side side, String name, Duration wait)
			throws Exception;

	/** A client as its blocking and its reactive callers see it. */
	record Caller(RedisLockClient blocking, ReactiveRedisLockClient reactive) {
	}

	/** A hold: its token, and how to release it. */
	record Acquired(long token, Release release) {
	}

	/** Releases a hold, on the thread that took it. */
	interface Release {

		void release() throws Exception;

	}

	static @Nullable Acquired thread(RedisLock lock, Duration wait) throws InterruptedException {
		boolean taken = wait.isZero() ? lock.tryLock() : lock.tryLock(wait, null);
		return taken ? new Acquired(lock.fencingToken(), lock::unlock) : null;
	}

	static @Nullable Acquired handle(Optional<LockHandle> handle) {
		return handle.map((held) -> new Acquired(held.fencingToken(), held::release)).orElse(null);
	}

	static @Nullable Acquired async(CompletableFuture<LockHandle> future, Duration wait) throws Exception {
		try {
			LockHandle handle = future.get(wait.toMillis() + 30_000, TimeUnit.MILLISECONDS);
			return new Acquired(handle.fencingToken(), handle::release);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof LockNotAcquiredException) {
				return null;
			}
			throw ex;
		}
	}

	static @Nullable Acquired reactive(Caller client, String name, Duration wait) {
		try {
			LockHandle handle = client.reactive().acquire(name, wait, null).block(wait.plusSeconds(30));
			return (handle != null) ? new Acquired(handle.fencingToken(), handle::release) : null;
		}
		catch (LockNotAcquiredException ex) {
			return null;
		}
	}

}
