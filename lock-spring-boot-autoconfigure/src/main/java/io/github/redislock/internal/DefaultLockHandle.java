package io.github.redislock.internal;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.util.Assert;

import io.github.redislock.LeaseLostEvent;
import io.github.redislock.LockHandle;

/**
 * A handle on one hold whose owner is the handle itself. The hold, not this object, is
 * what the engine keeps; so a handle nobody references any more can be found by the
 * {@link Cleaner}, which tells the engine it was abandoned.
 */
final class DefaultLockHandle implements LockHandle {

	private static final Cleaner cleaner = Cleaner.create((task) -> {
		Thread thread = new Thread(task, "redis-lock-abandoned-handles");
		thread.setDaemon(true);
		return thread;
	});

	private final LockEngine engine;

	private final LockQueries queries;

	private final Hold hold;

	private final Release release;

	private final Cleaner.Cleanable cleanable;

	DefaultLockHandle(LockEngine engine, LockQueries queries, Hold hold) {
		this.engine = engine;
		this.queries = queries;
		this.hold = hold;
		this.release = new Release(engine, hold);
		this.cleanable = cleaner.register(this, this.release);
	}

	@Override
	public String name() {
		return this.hold.keys().name();
	}

	@Override
	public long fencingToken() {
		return this.hold.token();
	}

	@Override
	public CompletionStage<LeaseLostEvent> leaseLost() {
		return this.engine.leaseLost(this.hold);
	}

	@Override
	public boolean isHeld() {
		try {
			return !this.release.done.get() && this.queries.isHeld(this.hold);
		}
		finally {
			// a caller's last use of the handle: it must not be found abandoned meanwhile
			Reference.reachabilityFence(this);
		}
	}

	@Override
	public Duration remainingLease() {
		try {
			return this.release.done.get() ? Duration.ZERO
					: Duration.ofMillis(this.queries.remainingLeaseMillis(this.hold));
		}
		finally {
			Reference.reachabilityFence(this);
		}
	}

	@Override
	public boolean extend(Duration leaseTime) {
		Assert.notNull(leaseTime, () -> "leaseTime of lock '" + name() + "' must not be null");
		Assert.isTrue(leaseTime.toMillis() > 0,
				() -> "leaseTime of lock '" + name() + "' must be at least 1ms, was " + leaseTime);
		try {
			return !this.release.done.get() && this.engine.extend(this.hold, leaseTime.toMillis());
		}
		finally {
			Reference.reachabilityFence(this);
		}
	}

	@Override
	public void release() {
		release(Duration.ZERO);
	}

	@Override
	public void release(Duration holdAtLeast) {
		long holdAtLeastMillis = LockReleases.holdAtLeastMillis(holdAtLeast, this.hold.keys(), "release", "handle");
		if (!this.release.done.compareAndSet(false, true)) {
			throw new IllegalMonitorStateException("Lock '" + name() + "' (key '" + this.hold.keys().lockKey()
					+ "') is not held by this handle: it was released already");
		}
		try {
			this.engine.release(this.hold.keys(), this.hold.owner(), holdAtLeastMillis);
		}
		finally {
			// released, lost or being settled: nothing is left for the cleaner to do
			this.cleanable.clean();
		}
	}

	@Override
	public CompletableFuture<Void> releaseAsync() {
		return releaseAsync(Duration.ZERO);
	}

	@Override
	public CompletableFuture<Void> releaseAsync(Duration holdAtLeast) {
		long holdAtLeastMillis = LockReleases.holdAtLeastMillis(holdAtLeast, this.hold.keys(), "release", "handle");
		if (!this.release.done.compareAndSet(false, true)) {
			return CompletableFuture.failedFuture(new IllegalMonitorStateException("Lock '" + name() + "' (key '"
					+ this.hold.keys().lockKey() + "') is not held by this handle: it was released already"));
		}
		return this.engine.releaseAsync(this.hold, holdAtLeastMillis)
			.whenComplete((released, failure) -> this.cleanable.clean());
	}

	@Override
	public void close() {
		if (!this.release.done.get()) {
			release();
		}
	}

	@Override
	public String toString() {
		return "LockHandle[" + name() + ", token " + this.hold.token() + "]";
	}

	/**
	 * Run by the cleaner once the handle is unreachable, or by {@link #release()}; it
	 * must not reference the handle, or the handle would never become unreachable.
	 */
	private static final class Release implements Runnable {

		private final LockEngine engine;

		private final Hold hold;

		private final AtomicBoolean done = new AtomicBoolean();

		Release(LockEngine engine, Hold hold) {
			this.engine = engine;
			this.hold = hold;
		}

		@Override
		public void run() {
			if (this.done.compareAndSet(false, true)) {
				this.engine.abandoned(this.hold);
			}
		}

	}

}
