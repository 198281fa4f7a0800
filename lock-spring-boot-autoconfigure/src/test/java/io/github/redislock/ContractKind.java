package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

/**
 * One way of holding a name that {@link LockKindContract} checks: a kind of lock (its
 * {@code mode}), reached one way (thread-owned, a handle, asynchronously, reactively).
 * The adapter says how to take and give back a hold of that kind and what the kind
 * promises: how many may hold it at once, whether an owner re-enters it, and which kind
 * it excludes.
 * <p>
 * A new kind plugs in with one adapter here and one line in {@link #all()}.
 */
abstract class ContractKind {

	/** The limit of a kind whose holders share it (the read side): no limit. */
	static final int SHARED = Integer.MAX_VALUE;

	/** The semaphore's limit in the contract. */
	static final int PERMITS = 3;

	private static final Map<RedisLockClient, ReactiveRedisLockClient> reactiveClients = new ConcurrentHashMap<>();

	private final String label;

	private final String mode;

	private final String endpointMode;

	private final int limit;

	private final boolean reentrant;

	private final boolean threadOwned;

	ContractKind(String label, String mode, String endpointMode, int limit, boolean reentrant, boolean threadOwned) {
		this.label = label;
		this.mode = mode;
		this.endpointMode = endpointMode;
		this.limit = limit;
		this.reentrant = reentrant;
		this.threadOwned = threadOwned;
	}

	/**
	 * Every kind the contract runs: each kind at least once thread-owned (where it can
	 * be) and once as a handle, and each access (blocking, asynchronous, reactive) at
	 * least once.
	 */
	static List<ContractKind> all() {
		return List.of(exclusiveLock(), exclusiveAsyncHandle(), fairLock(), fairHandle(), readLock(), writeLock(),
				writeAsyncHandle(), semaphoreHandle(), semaphoreReactive());
	}

	/** Its name in the test report. */
	@Override
	public String toString() {
		return this.label;
	}

	/** Its {@code mode} tag on the meters ({@code exclusive}, {@code read}, ...). */
	String mode() {
		return this.mode;
	}

	/** Its {@code mode} in the {@code kinds} of the {@code locks} endpoint. */
	String endpointMode() {
		return this.endpointMode;
	}

	/** How many may hold it at once: 1, N, or {@link #SHARED}. */
	int limit() {
		return this.limit;
	}

	/** Whether its owner takes it again at once, as one more hold of the same owner. */
	boolean reentrant() {
		return this.reentrant;
	}

	/**
	 * Whether the thread that took it owns it (then it is released on that thread); a
	 * handle is owned by its acquisition instead.
	 */
	boolean threadOwned() {
		return this.threadOwned;
	}

	/**
	 * Whether a caller of this kind gives up by cancelling (an asynchronous or reactive
	 * acquisition): then it takes back what it left in Redis in the background, after its
	 * cancel returned, rather than before its call returns (see docs/guarantees.md).
	 */
	boolean givesUpInTheBackground() {
		return false;
	}

	/**
	 * The kind a holder of this one keeps out, besides holders past the limit: itself, or
	 * for a side of a read/write lock, the other side.
	 */
	ContractKind rival() {
		return this;
	}

	/**
	 * Takes a hold of the named lock of this kind for a new owner, on the calling thread,
	 * waiting up to {@code waitTime}.
	 * @return the hold, or empty when it was not acquired in time
	 * @throws InterruptedException when the calling thread was interrupted while it
	 * waited (an asynchronous or reactive acquisition is then cancelled, its way of
	 * giving up)
	 */
	abstract Optional<Hold> tryAcquire(RedisLockClient client, String name, Duration waitTime,
			@Nullable Duration leaseTime) throws InterruptedException;

	/**
	 * Takes a hold as {@link #tryAcquire} does, waiting without end: a thread-owned kind
	 * with {@code lockInterruptibly()}, a handle with a wait no test reaches.
	 * @throws InterruptedException when the calling thread was interrupted while it
	 * waited
	 */
	abstract Hold acquireUntilInterrupted(RedisLockClient client, String name) throws InterruptedException;

	/** One hold of a kind, released by its owner. */
	interface Hold {

		long fencingToken();

		/** How many times its owner holds it: 1 for a handle. */
		int holdCount();

		/** Whether it is still held (asked on the owning thread). */
		boolean isHeld();

		/**
		 * Sets what is left of its lease to exactly {@code leaseTime}, which the watchdog
		 * then no longer renews (on the owning thread).
		 */
		boolean extend(Duration leaseTime);

		/** Gives it back (on the owning thread). */
		void release();

	}

	static ContractKind exclusiveLock() {
		return new ThreadOwned("exclusive lock (thread-owned)", "exclusive", "exclusive", 1) {
			@Override
			RedisLock lock(RedisLockClient client, String name) {
				return client.getLock(name);
			}
		};
	}

	static ContractKind fairLock() {
		return new ThreadOwned("fair lock (thread-owned)", "fair", "fair", 1) {
			@Override
			RedisLock lock(RedisLockClient client, String name) {
				return client.getFairLock(name);
			}
		};
	}

	static ContractKind readLock() {
		return new ThreadOwned("read lock (thread-owned)", "read", "readWrite", SHARED) {
			@Override
			RedisLock lock(RedisLockClient client, String name) {
				return client.getReadWriteLock(name).readLock();
			}

			@Override
			ContractKind rival() {
				return writeAsyncHandle();
			}
		};
	}

	static ContractKind writeLock() {
		return new ThreadOwned("write lock (thread-owned)", "write", "readWrite", 1) {
			@Override
			RedisLock lock(RedisLockClient client, String name) {
				return client.getReadWriteLock(name).writeLock();
			}

			@Override
			ContractKind rival() {
				return readLock();
			}
		};
	}

	static ContractKind exclusiveAsyncHandle() {
		return new Handles("exclusive lock (asynchronous handle)", "exclusive", "exclusive", 1) {
			@Override
			Optional<LockHandle> acquire(RedisLockClient client, String name, Duration waitTime,
					@Nullable Duration leaseTime) throws InterruptedException {
				return await(client.acquireAsync(name, waitTime, leaseTime));
			}

			@Override
			boolean givesUpInTheBackground() {
				return true;
			}
		};
	}

	static ContractKind fairHandle() {
		return new Handles("fair lock (handle)", "fair", "fair", 1) {
			@Override
			Optional<LockHandle> acquire(RedisLockClient client, String name, Duration waitTime,
					@Nullable Duration leaseTime) {
				return client.getFairLock(name).tryAcquire(waitTime, leaseTime);
			}
		};
	}

	static ContractKind writeAsyncHandle() {
		return new Handles("write lock (asynchronous handle)", "write", "readWrite", 1) {
			@Override
			Optional<LockHandle> acquire(RedisLockClient client, String name, Duration waitTime,
					@Nullable Duration leaseTime) throws InterruptedException {
				return await(client.getReadWriteLock(name).acquireWriteAsync(waitTime, leaseTime));
			}

			@Override
			boolean givesUpInTheBackground() {
				return true;
			}

			@Override
			ContractKind rival() {
				return readLock();
			}
		};
	}

	static ContractKind semaphoreHandle() {
		return new Handles("semaphore permit (handle)", "semaphore", "semaphore", PERMITS) {
			@Override
			Optional<LockHandle> acquire(RedisLockClient client, String name, Duration waitTime,
					@Nullable Duration leaseTime) {
				return client.getSemaphore(name, PERMITS).tryAcquire(waitTime, leaseTime);
			}
		};
	}

	static ContractKind semaphoreReactive() {
		return new Handles("semaphore permit (reactive)", "semaphore", "semaphore", PERMITS) {
			@Override
			Optional<LockHandle> acquire(RedisLockClient client, String name, Duration waitTime,
					@Nullable Duration leaseTime) throws InterruptedException {
				ReactiveRedisLockClient reactive = reactiveClients.computeIfAbsent(client,
						ReactiveRedisLockClient::create);
				try {
					return reactive.semaphore(name, PERMITS).acquire(waitTime, leaseTime).blockOptional();
				}
				catch (LockNotAcquiredException ex) {
					return Optional.empty();
				}
				catch (RuntimeException ex) {
					// block() cancels the subscription when interrupted
					if (ex.getCause() instanceof InterruptedException interrupted) {
						Thread.interrupted();
						throw interrupted;
					}
					throw ex;
				}
			}

			@Override
			boolean givesUpInTheBackground() {
				return true;
			}
		};
	}

	/** A kind whose holds are {@link RedisLock}s owned by the acquiring thread. */
	abstract static class ThreadOwned extends ContractKind {

		ThreadOwned(String label, String mode, String endpointMode, int limit) {
			super(label, mode, endpointMode, limit, true, true);
		}

		abstract RedisLock lock(RedisLockClient client, String name);

		@Override
		Optional<Hold> tryAcquire(RedisLockClient client, String name, Duration waitTime, @Nullable Duration leaseTime)
				throws InterruptedException {
			RedisLock lock = lock(client, name);
			return lock.tryLock(waitTime, leaseTime) ? Optional.of(held(lock)) : Optional.empty();
		}

		@Override
		Hold acquireUntilInterrupted(RedisLockClient client, String name) throws InterruptedException {
			RedisLock lock = lock(client, name);
			lock.lockInterruptibly();
			return held(lock);
		}

		private static Hold held(RedisLock lock) {
			return new Hold() {
				@Override
				public long fencingToken() {
					return lock.fencingToken();
				}

				@Override
				public int holdCount() {
					return lock.getHoldCount();
				}

				@Override
				public boolean isHeld() {
					return lock.isHeldByCurrentThread();
				}

				@Override
				public boolean extend(Duration leaseTime) {
					return lock.extend(leaseTime);
				}

				@Override
				public void release() {
					lock.unlock();
				}
			};
		}

	}

	/** A kind whose holds are {@link LockHandle}s: never re-entered. */
	abstract static class Handles extends ContractKind {

		Handles(String label, String mode, String endpointMode, int limit) {
			super(label, mode, endpointMode, limit, false, false);
		}

		abstract Optional<LockHandle> acquire(RedisLockClient client, String name, Duration waitTime,
				@Nullable Duration leaseTime) throws InterruptedException;

		@Override
		Optional<Hold> tryAcquire(RedisLockClient client, String name, Duration waitTime, @Nullable Duration leaseTime)
				throws InterruptedException {
			Optional<LockHandle> handle;
			try {
				handle = acquire(client, name, waitTime, leaseTime);
			}
			catch (LockNotAcquiredException ex) {
				if (ex.getCause() instanceof InterruptedException interrupted) {
					Thread.interrupted();
					throw interrupted;
				}
				throw ex;
			}
			return handle.map((acquired) -> new Hold() {
				@Override
				public long fencingToken() {
					return acquired.fencingToken();
				}

				@Override
				public int holdCount() {
					return 1;
				}

				@Override
				public boolean isHeld() {
					return acquired.isHeld();
				}

				@Override
				public boolean extend(Duration leaseTime) {
					return acquired.extend(leaseTime);
				}

				@Override
				public void release() {
					acquired.release();
				}
			});
		}

		@Override
		Hold acquireUntilInterrupted(RedisLockClient client, String name) throws InterruptedException {
			return tryAcquire(client, name, Duration.ofDays(1), null)
				.orElseThrow(() -> new AssertionError("A day's wait for '" + name + "' ended"));
		}

		/**
		 * Waits for an asynchronous acquisition; an interrupt cancels it, which is how an
		 * asynchronous caller gives up.
		 */
		static Optional<LockHandle> await(CompletableFuture<LockHandle> acquisition) throws InterruptedException {
			try {
				return Optional.of(acquisition.get(120, TimeUnit.SECONDS));
			}
			catch (InterruptedException ex) {
				acquisition.cancel(false);
				throw ex;
			}
			catch (ExecutionException ex) {
				if (ex.getCause() instanceof LockNotAcquiredException) {
					return Optional.empty();
				}
				throw new IllegalStateException(ex.getCause());
			}
			catch (TimeoutException ex) {
				acquisition.cancel(false);
				throw new IllegalStateException("The acquisition did not complete within its wait", ex);
			}
		}

	}

}
