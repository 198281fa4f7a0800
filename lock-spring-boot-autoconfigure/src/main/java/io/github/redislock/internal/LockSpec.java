package io.github.redislock.internal;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;

/**
 * A kind of lock as one entry point asks for it, chosen once: the registry's
 * {@link LockType} and the {@link LockKind} for the limit the request brings (a
 * semaphore's permits; 1 for the other kinds). What the interceptor, the reactive client
 * and the client's handles carry instead of naming a kind. A kind whose locks a thread
 * can own is a {@link ThreadOwned}; one that cannot is not, rather than a method that
 * throws. Not API.
 */
public sealed class LockSpec permits LockSpec.ThreadOwned {

	private final LockType type;

	private final LockKind kind;

	private final int limit;

	LockSpec(LockType type, LockKind kind, int limit) {
		this.type = type;
		this.kind = kind;
		this.limit = limit;
	}

	/** The kind with one holder at a time (or one permit). */
	public static LockSpec of(LockType type) {
		return type.spec(1);
	}

	/**
	 * The kind whose acquisitions bring that limit.
	 * @throws IllegalArgumentException if the kind cannot have that many holders
	 */
	public static LockSpec of(LockType type, int limit) {
		return type.spec(limit);
	}

	LockType type() {
		return this.type;
	}

	LockKind kind() {
		return this.kind;
	}

	/**
	 * What a caller's scope knows this lock of the name by: the same for every limit, and
	 * different for each kind (lock names contain no '{').
	 */
	public String scope(String name) {
		return "{" + this.type.name() + "}" + name;
	}

	/** The request for this lock of the name, with that wait and lease. */
	public LockRequest request(String name, Duration waitTime, @Nullable Duration leaseTime) {
		return new LockRequest(name, this, waitTime, leaseTime);
	}

	Optional<LockHandle> tryAcquire(RedisLockClient client, String name, Duration waitTime,
			@Nullable Duration leaseTime) {
		return this.type.tryAcquire(client, name, this.limit, waitTime, leaseTime);
	}

	CompletableFuture<LockHandle> acquireAsync(RedisLockClient client, String name, Duration waitTime,
			@Nullable Duration leaseTime) {
		return this.type.acquireAsync(client, name, this.limit, waitTime, leaseTime);
	}

	@Override
	public String toString() {
		return (this.limit == 1) ? this.type.name() : this.type.name() + "(" + this.limit + ")";
	}

	/** A kind whose lock of a name a thread can own ({@link RedisLock}). */
	public static final class ThreadOwned extends LockSpec {

		private final LockType.Locks locks;

		ThreadOwned(LockType type, LockKind kind, int limit, LockType.Locks locks) {
			super(type, kind, limit);
			this.locks = locks;
		}

		/** The thread-owned lock of the name, through the client's public API. */
		public RedisLock lock(RedisLockClient client, String name) {
			return this.locks.lock(client, name);
		}

	}

}
