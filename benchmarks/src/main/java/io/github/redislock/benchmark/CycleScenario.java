package io.github.redislock.benchmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.github.redislock.testsupport.RedisServer;

/**
 * Uncontended lock/unlock cycles: every thread has its own lock name. With
 * {@code depth > 1} each cycle nests that many acquisitions of the same lock before
 * releasing them (re-entry).
 */
final class CycleScenario implements Scenario {

	private final int threads;

	private final int depth;

	CycleScenario(int threads, int depth) {
		this.threads = threads;
		this.depth = depth;
	}

	@Override
	public String title() {
		return (this.depth > 1) ? "re-entrant x" + this.depth + ", " + this.threads + " thread"
				: "uncontended, " + this.threads + " thread" + ((this.threads > 1) ? "s" : "");
	}

	@Override
	public String unit() {
		return (this.depth > 1) ? "nests/s" : "pairs/s";
	}

	@Override
	public String latencyMeaning() {
		return (this.depth > 1) ? this.depth + " locks + " + this.depth + " unlocks" : "lock + unlock";
	}

	@Override
	public List<Library> libraries() {
		return Arrays.stream(Library.values())
			.filter((library) -> library != Library.CEILING && (this.depth == 1 || library != Library.FLOOR))
			.toList();
	}

	@Override
	public boolean comparesToFloor() {
		return this.depth == 1;
	}

	@Override
	public RunResult run(Library library, RedisServer redis, Duration warmup, Duration run, Path workDirectory) {
		try (LockLibrary locks = library.connect(redis)) {
			long measureFrom = System.currentTimeMillis() + warmup.toMillis();
			long end = measureFrom + run.toMillis();
			CommandStats.Window statsReset = CommandStats.resetAt(redis, measureFrom);
			TimedLoop.Result result = TimedLoop.run(this.threads, measureFrom, end, (thread) -> {
				String name = "bench:cycle:" + library.name() + ":" + thread;
				return (measuring) -> {
					long start = System.nanoTime();
					for (int i = 0; i < this.depth; i++) {
						locks.lock(name);
					}
					for (int i = 0; i < this.depth; i++) {
						locks.unlock(name);
					}
					return System.nanoTime() - start;
				};
			});
			statsReset.join();
			return new RunResult(result.measured(), result.seconds(), result.latency(), true, CommandStats.read(redis),
					statsReset.cpu(redis));
		}
	}

	static void sleepUntil(long epochMillis) {
		long wait = epochMillis - System.currentTimeMillis();
		if (wait > 0) {
			try {
				Thread.sleep(wait);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	static void join(Thread thread) {
		try {
			thread.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
