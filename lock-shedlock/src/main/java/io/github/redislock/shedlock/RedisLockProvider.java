package io.github.redislock.shedlock;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Optional;
import java.util.OptionalLong;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LockHandle;
import io.github.redislock.RedisLockClient;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import org.springframework.util.Assert;

/**
 * A ShedLock {@code LockProvider} on a {@link RedisLockClient}: {@code @SchedulerLock}
 * jobs keep their code and run under this library's locks.
 * <p>
 * How ShedLock's settings map:
 * <ul>
 * <li>the lock's name is {@code shedlock:} followed by ShedLock's name (so that it never
 * meets a {@code @DistributedLock} of the same name); the {@code locks} endpoint, the
 * meters and the traces show it. Every name ShedLock accepts works, braces and very long
 * names included (their keys carry a hash of the name);</li>
 * <li>{@code lockAtMostFor} is the lease: a job still running then loses the lock, as
 * with ShedLock's own providers;</li>
 * <li>{@code lockAtLeastFor} is a minimum hold counted in Redis' time from the
 * acquisition: a job that ends sooner leaves the lock taken, for nobody, until then. No
 * application clock is read for it (neither the configuration's {@code createdAt} nor
 * ShedLock's {@code ClockProvider}), so a clock that is off or stepped while the job runs
 * does not move the end of the hold (ShedLock's own Redis providers turn
 * {@code createdAt + lockAtLeastFor} into an expiry with the application's clock at
 * unlock). After {@link SimpleLock#extend}, the new {@code lockAtLeastFor} counts from
 * the extension, on this JVM's monotonic clock;</li>
 * <li>{@link SimpleLock#extend} (and ShedLock's {@code KeepAliveLockProvider}) sets a new
 * lease through the lock's {@link LockHandle}; an unlock from another thread works.</li>
 * </ul>
 * A lock is never waited for (ShedLock skips a run whose lock is taken) and never
 * re-entered: a nested {@code @SchedulerLock} of the same name is skipped.
 * <p>
 * A job reads its fencing token with {@link #fencingToken()}, to pass it to a store that
 * rejects writes of a holder whose lock has passed on.
 *
 * @since 0.1.0
 */
public class RedisLockProvider implements ExtensibleLockProvider {

	/** What a ShedLock name is prefixed with to make the lock's name. */
	public static final String NAME_PREFIX = "shedlock:";

	// how many locks of one thread fencingToken() knows: ShedLock nests them only when a
	// locked job calls another
	private static final int MAX_TRACKED = 16;

	private static final ThreadLocal<Deque<HandleLock>> held = ThreadLocal.withInitial(ArrayDeque::new);

	private final RedisLockClient client;

	/**
	 * Creates a provider that takes its locks with the given client.
	 * @param client the lock client, usually the auto-configured one
	 */
	public RedisLockProvider(RedisLockClient client) {
		Assert.notNull(client, "client must not be null");
		this.client = client;
	}

	/**
	 * The fencing token of the lock of the innermost ShedLock-locked job running on this
	 * thread through a {@code RedisLockProvider}, empty when there is none. Tokens
	 * increase with every acquisition of a name.
	 */
	public static OptionalLong fencingToken() {
		Deque<HandleLock> locks = held.get();
		for (Iterator<HandleLock> it = locks.descendingIterator(); it.hasNext();) {
			HandleLock lock = it.next();
			if (lock.released) {
				// unlocked on another thread
				it.remove();
			}
			else {
				return OptionalLong.of(lock.handle.fencingToken());
			}
		}
		return OptionalLong.empty();
	}

	@Override
	public Optional<SimpleLock> lock(LockConfiguration configuration) {
		Optional<LockHandle> handle = this.client.tryAcquire(NAME_PREFIX + configuration.getName(), Duration.ZERO,
				configuration.getLockAtMostFor());
		return handle.map((acquired) -> {
			long now = System.nanoTime();
			HandleLock lock = new HandleLock(configuration, acquired, now, now);
			Deque<HandleLock> locks = held.get();
			if (locks.size() == MAX_TRACKED) {
				// locks a caller took and never unlocked (ShedLock always unlocks): not
				// kept here for ever
				locks.removeFirst();
			}
			locks.addLast(lock);
			return lock;
		});
	}

	private static final class HandleLock extends AbstractSimpleLock {

		private final LockHandle handle;

		// On this JVM's monotonic clock: when the handle was acquired (give or take the
		// round trip), and when this configuration took effect (the acquisition, or an
		// extension, from which ShedLock counts the new lockAtLeastFor)
		private final long acquiredNanos;

		private final long configuredNanos;

		volatile boolean released;

		HandleLock(LockConfiguration configuration, LockHandle handle, long acquiredNanos, long configuredNanos) {
			super(configuration);
			this.handle = handle;
			this.acquiredNanos = acquiredNanos;
			this.configuredNanos = configuredNanos;
		}

		@Override
		protected void doUnlock() {
			this.released = true;
			held.get().remove(this);
			Duration lockAtLeastFor = this.lockConfiguration.getLockAtLeastFor();
			// the handle counts a minimum hold from its acquisition, in Redis' time
			Duration holdAtLeast = lockAtLeastFor.isZero() ? Duration.ZERO
					: Duration.ofNanos(this.configuredNanos - this.acquiredNanos).plus(lockAtLeastFor);
			try {
				this.handle.release(holdAtLeast);
			}
			catch (LeaseExpiredException ex) {
				// lockAtMostFor ran out before the job ended: the lock is gone already,
				// as with ShedLock's own providers
			}
		}

		@Override
		protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
			if (!this.handle.extend(newConfiguration.getLockAtMostFor())) {
				return Optional.empty();
			}
			HandleLock extended = new HandleLock(newConfiguration, this.handle, this.acquiredNanos, System.nanoTime());
			Deque<HandleLock> locks = held.get();
			if (locks.remove(this)) {
				locks.addLast(extended);
			}
			this.released = true;
			return Optional.of(extended);
		}

	}

}
