package io.github.redislock.internal;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;

/**
 * The registry of lock kinds: which lock of a name a caller wants, each constant one
 * {@link LockKind} and how the public API reaches it. A request picks a constant once
 * ({@link LockSpec#of(LockType, int)}, or {@link #forMode(String, int)} for an
 * annotation), with the limit it brings; a new kind is one constant here. Not API.
 */
public enum LockType {

	EXCLUSIVE(ExclusiveLock.INSTANCE, RedisLockClient::getLock,
			(client, name, limit, wait, lease) -> client.tryAcquire(name, wait, lease),
			(client, name, limit, wait, lease) -> client.acquireAsync(name, wait, lease)),

	READ(ReadWriteLocks.READ, (client, name) -> client.getReadWriteLock(name).readLock(),
			(client, name, limit, wait, lease) -> client.getReadWriteLock(name).tryAcquireRead(wait, lease),
			(client, name, limit, wait, lease) -> client.getReadWriteLock(name).acquireReadAsync(wait, lease)),

	WRITE(ReadWriteLocks.WRITE, (client, name) -> client.getReadWriteLock(name).writeLock(),
			(client, name, limit, wait, lease) -> client.getReadWriteLock(name).tryAcquireWrite(wait, lease),
			(client, name, limit, wait, lease) -> client.getReadWriteLock(name).acquireWriteAsync(wait, lease)),

	FAIR(FairLock.INSTANCE, RedisLockClient::getFairLock,
			(client, name, limit, wait, lease) -> client.getFairLock(name).tryAcquire(wait, lease),
			(client, name, limit, wait, lease) -> client.getFairLock(name).acquireAsync(wait, lease)),

	// the limit travels with each request; a permit is only ever a handle, so this kind
	// has no thread-owned lock (its specs are not LockSpec.ThreadOwned)
	SEMAPHORE("EXCLUSIVE", SemaphoreLock::of,
			(client, name, limit, wait, lease) -> client.getSemaphore(name, limit).tryAcquire(wait, lease),
			(client, name, limit, wait, lease) -> client.getSemaphore(name, limit).acquireAsync(wait, lease));

	// the annotation mode (a LockMode's name) this kind answers: with a limit of 1 for
	// the one-holder kinds, with a limit above 1 for the others
	private final String mode;

	// whether requests of this kind bring a limit above 1
	private final boolean limited;

	// the kind for a request's limit; the one-holder kinds take only 1
	private final IntFunction<LockKind> kinds;

	// the key layout and the state every limit shares
	private final LockKind kind;

	// how the public API reaches a thread-owned lock of the kind; null for a kind that
	// has none (see spec: such a kind's specs lack that capability)
	@Nullable private final Locks locks;

	private final Tries tries;

	private final Asyncs asyncs;

	// spec(1), what nearly every request asks for: made once
	private final LockSpec single;

	LockType(LockKind kind, Locks locks, Tries tries, Asyncs asyncs) {
		this.mode = name();
		this.limited = false;
		this.kinds = (limit) -> oneHolder(kind, limit);
		this.kind = kind;
		this.locks = locks;
		this.tries = tries;
		this.asyncs = asyncs;
		this.single = newSpec(1);
	}

	LockType(String mode, IntFunction<LockKind> kinds, Tries tries, Asyncs asyncs) {
		this.mode = mode;
		this.limited = true;
		this.kinds = kinds;
		this.kind = kinds.apply(1);
		this.locks = null;
		this.tries = tries;
		this.asyncs = asyncs;
		this.single = newSpec(1);
	}

	/**
	 * The kind an annotation with that mode and limit asks for: the one-holder kind of
	 * the mode for a limit of 1, the kind that counts holders for more.
	 * @param mode the name of the annotation's mode
	 * @param limit how many may hold the name at once
	 * @throws IllegalArgumentException if no kind answers that mode with that limit; the
	 * message says which modes take a limit above 1
	 */
	public static LockType forMode(String mode, int limit) {
		boolean limited = limit > 1;
		for (LockType type : values()) {
			if (type.mode.equals(mode) && type.limited == limited) {
				return type;
			}
		}
		if (!limited) {
			throw new IllegalArgumentException("No lock kind answers mode " + mode);
		}
		StringBuilder takers = new StringBuilder();
		for (LockType type : values()) {
			if (type.limited) {
				takers.append((takers.length() > 0) ? ", " : "")
					.append("mode = ")
					.append(type.mode)
					.append(" (a ")
					.append(type.kind.mode())
					.append(')');
			}
		}
		throw new IllegalArgumentException(
				"mode = " + mode + " has one holder at a time; only " + takers + " lets several hold a name at once");
	}

	LockKind kind() {
		return this.kind;
	}

	LockKeys keys(String keyPrefix, String name) {
		return this.kind.keys(keyPrefix, name);
	}

	/**
	 * This kind as a request with that limit asks for it: with the thread-owned lock when
	 * the kind has one.
	 * @throws IllegalArgumentException if the kind cannot have that many holders
	 */
	LockSpec spec(int limit) {
		return (limit == 1) ? this.single : newSpec(limit);
	}

	private LockSpec newSpec(int limit) {
		LockKind limited = this.kinds.apply(limit);
		return (this.locks != null) ? new LockSpec.ThreadOwned(this, limited, limit, this.locks::lock)
				: new LockSpec(this, limited, limit);
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

	/**
	 * Acquires this lock of the name (with a limit of 1) for a new handle through the
	 * public API; see {@link RedisLockClient#tryAcquire}.
	 */
	public Optional<LockHandle> tryAcquire(RedisLockClient client, String name, Duration waitTime,
			@Nullable Duration leaseTime) {
		return tryAcquire(client, name, 1, waitTime, leaseTime);
	}

	/**
	 * Acquires this lock of the name (with a limit of 1) for a new handle through the
	 * public API, without waiting; see {@link RedisLockClient#acquireAsync}.
	 */
	public CompletableFuture<LockHandle> acquireAsync(RedisLockClient client, String name, Duration waitTime,
			@Nullable Duration leaseTime) {
		return acquireAsync(client, name, 1, waitTime, leaseTime);
	}

	Optional<LockHandle> tryAcquire(RedisLockClient client, String name, int limit, Duration waitTime,
			@Nullable Duration leaseTime) {
		return this.tries.tryAcquire(client, name, limit, waitTime, leaseTime);
	}

	CompletableFuture<LockHandle> acquireAsync(RedisLockClient client, String name, int limit, Duration waitTime,
			@Nullable Duration leaseTime) {
		return this.asyncs.acquireAsync(client, name, limit, waitTime, leaseTime);
	}

	private static LockKind oneHolder(LockKind kind, int limit) {
		if (limit != 1) {
			throw new IllegalArgumentException(
					"The " + kind.mode() + " lock of a name has one holder at a time, not " + limit);
		}
		return kind;
	}

	// how the public API reaches a kind's lock of a name

	@FunctionalInterface
	interface Locks {

		RedisLock lock(RedisLockClient client, String name);

	}

	@FunctionalInterface
	private interface Tries {

		Optional<LockHandle> tryAcquire(RedisLockClient client, String name, int limit, Duration waitTime,
				@Nullable Duration leaseTime);

	}

	@FunctionalInterface
	private interface Asyncs {

		CompletableFuture<LockHandle> acquireAsync(RedisLockClient client, String name, int limit, Duration waitTime,
				@Nullable Duration leaseTime);

	}

}
