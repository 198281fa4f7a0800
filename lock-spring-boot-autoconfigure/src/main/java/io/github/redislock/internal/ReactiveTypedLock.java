package io.github.redislock.internal;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.util.Assert;

import io.github.redislock.LockHandle;
import io.github.redislock.ReactiveLock;

/**
 * One lock of a name, as {@link ReactiveLocks} hands it out ({@code readLock},
 * {@code semaphore}, ...): the request it makes for each call carries the kind, so this
 * class never names one.
 */
final class ReactiveTypedLock implements ReactiveLock {

	private final ReactiveLocks locks;

	private final LockSpec spec;

	private final String name;

	ReactiveTypedLock(ReactiveLocks locks, LockSpec spec, String name) {
		LockArguments.checkName(name);
		this.locks = locks;
		this.spec = spec;
		this.name = name;
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public Mono<LockHandle> acquire(Duration waitTime, @Nullable Duration leaseTime) {
		LockArguments.check(this.name, waitTime, leaseTime);
		return this.locks.acquireChecked(this.spec.request(this.name, waitTime, leaseTime));
	}

	@Override
	public <T> Mono<T> withLock(Duration waitTime, @Nullable Duration leaseTime, Mono<T> action) {
		Assert.notNull(action, "action must not be null");
		return withLock(waitTime, leaseTime, Flux.from(action)).singleOrEmpty();
	}

	@Override
	public <T> Flux<T> withLock(Duration waitTime, @Nullable Duration leaseTime, Flux<T> action) {
		Assert.notNull(action, "action must not be null");
		LockArguments.check(this.name, waitTime, leaseTime);
		return this.locks.withLocks(List.of(this.spec.request(this.name, waitTime, leaseTime)),
				ReactiveLocks.CLIENT_POLICY, () -> action, Flux::error);
	}

	@Override
	public String toString() {
		return "ReactiveLock[" + this.spec + " " + this.name + "]";
	}

}
