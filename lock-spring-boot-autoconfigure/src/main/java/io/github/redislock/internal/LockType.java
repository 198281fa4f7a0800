package io.github.redislock.internal;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.annotation.LockMode;

/**
 * The registry of lock kinds: which lock of a name a caller wants, each constant one
 * {@link LockKind} and how the public API reaches it. What the annotation's modes, the
 * interceptor and the reactive client ask for; a new kind is one constant here (and one
 * {@link LockMode}). Not API.
 */
public enum LockType {

	EXCLUSIVE(ExclusiveLock.INSTANCE, RedisLockClient::getLock, RedisLockClient::tryAcquire,
			RedisLockClient::acquireAsync),

	READ(ReadWriteLocks.READ, (client, name) -> client.getReadWriteLock(name).readLock(),
			(client, name, wait, lease) -> client.getReadWriteLock(name).tryAcquireRead(wait, lease),
			(client, name, wait, lease) -> client.getReadWriteLock(name).acquireReadAsync(wait, lease)),

	WRITE(ReadWriteLocks.WRITE, (client, name) -> client.getReadWriteLock(name).writeLock(),
			(client, name, wait, lease) -> client.getReadWriteLock(name).tryAcquireWrite(wait, lease),
			(client, name, wait, lease) -> client.getReadWriteLock(name).acquireWriteAsync(wait, lease)),

	FAIR(FairLock.INSTANCE, RedisLockClient::getFairLock,
			(client, name, wait, lease) -> client.getFairLock(name).tryAcquire(wait, lease),
			(client, name, wait, lease) -> client.getFairLock(name).acquireAsync(wait, lease)),

	// one permit: the limit travels with each call (RedisLockClient#getSemaphore), this
	// constant lays out the keys and reads the state; a permit is only ever a handle
	SEMAPHORE(SemaphoreLock.of(1), LockType::noThreadLock,
			(client, name, wait, lease) -> client.getSemaphore(name, 1).tryAcquire(wait, lease),
			(client, name, wait, lease) -> client.getSemaphore(name, 1).acquireAsync(wait, lease));

	private final LockKind kind;

	private final Locks locks;

	private final Tries tries;

	private final Asyncs asyncs;

	LockType(LockKind kind, Locks locks, Tries tries, Asyncs asyncs) {
		this.kind = kind;
		this.locks = locks;
		this.tries = tries;
		this.asyncs = asyncs;
	}

	/** The type an annotation's mode asks for. */
	public static LockType of(LockMode mode) {
		return valueOf(mode.name());
	}

	LockKind kind() {
		return this.kind;
	}

	LockKeys keys(String keyPrefix, String name) {
		return this.kind.keys(keyPrefix, name);
	}

	/**
	 * Whether a release of this kind may keep the lock taken for nobody for a while
	 * ({@code holdAtLeast}).
	 */
	public boolean keepsForNobody() {
		return this.kind instanceof LockKind.KeepsForNobody;
	}

	/**
	 * Whether an owner that holds the {@code held} lock of a name holds this one of the
	 * name too (a writer reads), so that taking it needs nothing more.
	 */
	public boolean isCoveredBy(LockType held) {
		return this.kind.isCoveredBy(held.kind);
	}

	/**
	 * Whether an owner that holds the {@code held} lock of a name would wait for itself
	 * if it took this one (a reader that asks to write).
	 */
	public boolean waitsForItselfHolding(LockType held) {
		return this.kind.waitsForItselfHolding(held.kind);
	}

	/** The lock of the name that a thread holds, through the client's public API. */
	public RedisLock lock(RedisLockClient client, String name) {
		return this.locks.lock(client, name);
	}

	/**
	 * Acquires this lock of the name for a new handle through the public API; see
	 * {@link RedisLockClient#tryAcquire}.
	 */
	public Optional<LockHandle> tryAcquire(RedisLockClient client, String name, Duration waitTime,
			@Nullable Duration leaseTime) {
		return this.tries.tryAcquire(client, name, waitTime, leaseTime);
	}

	/**
	 * Acquires this lock of the name for a new handle through the public API, without
	 * waiting; see {@link RedisLockClient#acquireAsync}.
	 */
	public CompletableFuture<LockHandle> acquireAsync(RedisLockClient client, String name, Duration waitTime,
			@Nullable Duration leaseTime) {
		return this.asyncs.acquireAsync(client, name, waitTime, leaseTime);
	}

	private static RedisLock noThreadLock(RedisLockClient client, String name) {
		throw new UnsupportedOperationException(
				"A semaphore permit of '" + name + "' is a LockHandle, never owned by a thread");
	}

	// how the public API reaches a kind's lock of a name

	@FunctionalInterface
	private interface Locks {

		RedisLock lock(RedisLockClient client, String name);

	}

	@FunctionalInterface
	private interface Tries {

		Optional<LockHandle> tryAcquire(RedisLockClient client, String name, Duration waitTime,
				@Nullable Duration leaseTime);

	}

	@FunctionalInterface
	private interface Asyncs {

		CompletableFuture<LockHandle> acquireAsync(RedisLockClient client, String name, Duration waitTime,
				@Nullable Duration leaseTime);

	}

}
