package io.github.redislock.internal;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLockClient;

/**
 * What one entry point asks for one name: the lock's name, its kind (with a semaphore's
 * limit inside it), how long to wait and the lease ({@code null}: renewed by the
 * watchdog). Made once where the call comes in (the interceptor, the reactive client) and
 * carried unchanged to the kind; nothing on the way names a kind. How long the lock stays
 * taken at least is asked at the release, where it is known (a scheduled job's depends on
 * its grant). Not API.
 *
 * @param name the lock's name
 * @param spec which lock of the name, and the limit the request brings
 * @param waitTime how long to wait for it
 * @param leaseTime its lease, or {@code null} for one the watchdog renews
 */
public record LockRequest(String name, LockSpec spec, Duration waitTime, @Nullable Duration leaseTime) {

	/** What a caller's scope knows this lock by; see {@link LockSpec#scope}. */
	public String scope() {
		return this.spec.scope(this.name);
	}

	/** The same request with another wait (what is left of a wait shared by several). */
	public LockRequest withWaitTime(Duration remaining) {
		return new LockRequest(this.name, this.spec, remaining, this.leaseTime);
	}

	/**
	 * Acquires the lock for a new handle through the client's public API, waiting on the
	 * calling thread; see {@link RedisLockClient#tryAcquire}.
	 */
	public Optional<LockHandle> tryAcquire(RedisLockClient client) {
		return this.spec.tryAcquire(client, this.name, this.waitTime, this.leaseTime);
	}

	/**
	 * Acquires the lock for a new handle through the client's public API without waiting;
	 * see {@link RedisLockClient#acquireAsync}.
	 */
	public CompletableFuture<LockHandle> acquireAsync(RedisLockClient client) {
		return this.spec.acquireAsync(client, this.name, this.waitTime, this.leaseTime);
	}

}
