package io.github.redislock;

import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs each task of a test on a thread of its own, for the tests' asynchronous steps
 * ({@code CompletableFuture.supplyAsync(task, TestThreads.perTask())}).
 * <p>
 * Not the common {@code ForkJoinPool}: on a 2-core machine it has one worker, so two
 * steps meant to be two lock owners can run on one thread (the second re-enters the
 * first's lock) and a step that blocks can hold up the next. Whether that happens depends
 * on the JDK (17 gives {@code CompletableFuture} a thread per task when the pool is that
 * small, 25 does not) and on timing; a test must not depend on either.
 */
public final class TestThreads {

	private static final AtomicInteger count = new AtomicInteger();

	private static final Executor PER_TASK = (task) -> {
		Thread thread = new Thread(task, "test-task-" + count.incrementAndGet());
		thread.setDaemon(true);
		thread.start();
	};

	private TestThreads() {
	}

	/** An executor that starts a new daemon thread for every task. */
	public static Executor perTask() {
		return PER_TASK;
	}

	/**
	 * Runs the action on a thread of its own (another lock owner than the caller), and
	 * waits up to 30 s for its result.
	 */
	public static <T> T onOtherThread(Callable<T> action) throws Exception {
		FutureTask<T> task = new FutureTask<>(action);
		PER_TASK.execute(task);
		return task.get(30, TimeUnit.SECONDS);
	}

}
