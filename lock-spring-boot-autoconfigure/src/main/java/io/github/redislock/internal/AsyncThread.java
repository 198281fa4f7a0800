package io.github.redislock.internal;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * The client's one thread for asynchronous acquisitions (replies, wake-ups and timers)
 * and for releases given back from where no thread may wait: made at the first use, so
 * that a client that never acquires asynchronously has none.
 */
final class AsyncThread implements AutoCloseable {

	private static final AtomicInteger threadCount = new AtomicInteger();

	@Nullable private ScheduledExecutorService executor;

	AsyncThread() {
	}

	/** Uses the given executor instead of a thread of its own. */
	AsyncThread(ScheduledExecutorService executor) {
		this.executor = executor;
	}

	synchronized ScheduledExecutorService executor() {
		if (this.executor == null) {
			ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
				Thread thread = new Thread(task, "redis-lock-async-" + threadCount.incrementAndGet());
				thread.setDaemon(true);
				return thread;
			});
			executor.setRemoveOnCancelPolicy(true);
			this.executor = executor;
		}
		return this.executor;
	}

	@Override
	public synchronized void close() {
		if (this.executor != null) {
			this.executor.shutdownNow();
		}
	}

}
