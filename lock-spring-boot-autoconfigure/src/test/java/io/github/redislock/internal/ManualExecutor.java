package io.github.redislock.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * A {@link ScheduledExecutorService} without threads, for the Lincheck tests: a task runs
 * when the test says so, on the test's thread, so that Lincheck controls where it runs in
 * the interleaving. A task scheduled without delay is due at once; a timer ({@code
 * schedule} with a delay) only when the test fires it, never by itself. Shut down, it
 * refuses tasks as a stopped executor does.
 */
final class ManualExecutor extends AbstractExecutorService implements ScheduledExecutorService {

	private final ArrayDeque<Task> due = new ArrayDeque<>();

	private final List<Task> timers = new ArrayList<>();

	private boolean shutDown;

	@Nullable private Runnable onCancel;

	/**
	 * Runs once, on the thread that cancels a task next, right after the cancel: for a
	 * test that needs something to happen at that very moment.
	 */
	synchronized void onNextCancel(Runnable action) {
		this.onCancel = action;
	}

	private synchronized @Nullable Runnable takeOnCancel() {
		Runnable action = this.onCancel;
		this.onCancel = null;
		return action;
	}

	/** Runs the tasks due, those they make due too; returns whether there was one. */
	boolean runDue() {
		boolean ran = false;
		for (Task task = nextDue(); task != null; task = nextDue()) {
			task.run();
			ran = true;
		}
		return ran;
	}

	/** Fires the timers set so far, and runs what is due then. */
	boolean fireTimers() {
		List<Task> fired;
		synchronized (this) {
			fired = new ArrayList<>(this.timers);
			this.timers.clear();
		}
		fired.forEach(Task::run);
		return runDue() || !fired.isEmpty();
	}

	synchronized int timerCount() {
		return this.timers.size();
	}

	private synchronized Task nextDue() {
		return this.due.poll();
	}

	private synchronized Task add(Task task, boolean timer) {
		if (this.shutDown) {
			throw new RejectedExecutionException("Shut down");
		}
		if (timer) {
			this.timers.add(task);
		}
		else {
			this.due.add(task);
		}
		return task;
	}

	@Override
	public void execute(Runnable command) {
		add(new Task(command), false);
	}

	@Override
	public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
		return add(new Task(command), delay > 0);
	}

	@Override
	public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
		throw new UnsupportedOperationException();
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
		throw new UnsupportedOperationException();
	}

	@Override
	public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
		// a periodic task (the watchdog's renewals) runs when the test calls it itself
		return add(new Task(command), true);
	}

	@Override
	public synchronized void shutdown() {
		this.shutDown = true;
	}

	@Override
	public synchronized List<Runnable> shutdownNow() {
		this.shutDown = true;
		List<Runnable> dropped = new ArrayList<>();
		this.due.forEach((task) -> dropped.add(task.command));
		this.timers.forEach((task) -> dropped.add(task.command));
		this.due.clear();
		this.timers.clear();
		return dropped;
	}

	@Override
	public synchronized boolean isShutdown() {
		return this.shutDown;
	}

	@Override
	public synchronized boolean isTerminated() {
		return this.shutDown;
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) {
		return isTerminated();
	}

	private synchronized void cancelled(Task task) {
		this.due.remove(task);
		this.timers.remove(task);
	}

	// not a FutureTask: Lincheck switches threads in the task's code only when it is
	// called from outside the JDK
	private final class Task implements ScheduledFuture<Object> {

		private final Runnable command;

		private boolean cancelled;

		private boolean done;

		Task(Runnable command) {
			this.command = command;
		}

		void run() {
			synchronized (this) {
				if (this.cancelled || this.done) {
					return;
				}
				this.done = true;
			}
			this.command.run();
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			synchronized (this) {
				if (this.done || this.cancelled) {
					return false;
				}
				this.cancelled = true;
			}
			cancelled(this);
			Runnable action = takeOnCancel();
			if (action != null) {
				action.run();
			}
			return true;
		}

		@Override
		public synchronized boolean isCancelled() {
			return this.cancelled;
		}

		@Override
		public synchronized boolean isDone() {
			return this.done || this.cancelled;
		}

		@Override
		public Object get() {
			throw new UnsupportedOperationException();
		}

		@Override
		public Object get(long timeout, TimeUnit unit) {
			throw new UnsupportedOperationException();
		}

		@Override
		public long getDelay(TimeUnit unit) {
			return 0;
		}

		@Override
		public int compareTo(Delayed other) {
			return 0;
		}

	}

}
