package io.github.redislock.shedlock;

import java.time.Duration;
import java.util.Optional;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LockHandle;
import io.github.redislock.RedisLockClient;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@code LockProvider} built on {@link LockHandle}s, to run ShedLock's own
 * provider contract against this library: a handle is released or extended by whichever
 * thread ShedLock uses, and never re-enters. Test code, not a product: it shows that a
 * provider is a thin adapter.
 */
final class HandleLockProvider implements ExtensibleLockProvider {

	private final RedisLockClient client;

	HandleLockProvider(RedisLockClient client) {
		this.client = client;
	}

	static String lockName(String shedLockName) {
		return "shedlock:" + shedLockName;
	}

	@Override
	public Optional<SimpleLock> lock(LockConfiguration configuration) {
		return this.client
			.tryAcquire(lockName(configuration.getName()), Duration.ZERO, configuration.getLockAtMostFor())
			.map((handle) -> new HandleLock(configuration, handle, System.nanoTime()));
	}

	private static final class HandleLock extends AbstractSimpleLock {

		private final LockHandle handle;

		// when the handle was acquired, give or take a round trip: holdAtLeast counts
		// from
		// there
		private final long acquiredNanos;

		HandleLock(LockConfiguration configuration, LockHandle handle, long acquiredNanos) {
			super(configuration);
			this.handle = handle;
			this.acquiredNanos = acquiredNanos;
		}

		// ShedLock's lockAtLeastFor is holdAtLeast: an unlock before that time leaves the
		// lock taken, for nobody, until then
		@Override
		protected void doUnlock() {
			Duration keep = Duration.between(ClockProvider.now(), this.lockConfiguration.getLockAtLeastUntil());
			Duration held = Duration.ofNanos(System.nanoTime() - this.acquiredNanos);
			try {
				this.handle.release(keep.isNegative() ? Duration.ZERO : held.plus(keep));
			}
			catch (LeaseExpiredException ex) {
				// lockAtMostFor ran out first: nothing left to release
			}
		}

		@Override
		protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
			return this.handle.extend(newConfiguration.getLockAtMostFor())
					? Optional.of(new HandleLock(newConfiguration, this.handle, this.acquiredNanos)) : Optional.empty();
		}

	}

}
