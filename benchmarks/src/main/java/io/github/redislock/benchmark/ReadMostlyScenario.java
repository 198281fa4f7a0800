package io.github.redislock.benchmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

import io.github.redislock.testsupport.RedisServer;

/**
 * Threads of one JVM on one read/write lock name, most of them reading: a reader holds
 * the read lock while it reads a value from Redis (one GET), a writer holds the write
 * lock while it increments that value (a GET and a SET, not atomic: the value ends equal
 * to the writes only if no two writers overlapped). Which operation a thread does next is
 * random, the same sequence for every library.
 */
final class ReadMostlyScenario implements Scenario {

	private static final String LOCK_NAME = "bench:read-mostly";

	private final int threads;

	private final int readPercent;

	ReadMostlyScenario(int threads, int readPercent) {
		this.threads = threads;
		this.readPercent = readPercent;
	}

	@Override
	public String title() {
		return "read-mostly, 1 JVM x " + this.threads + " threads, " + this.readPercent + " % reads";
	}

	@Override
	public String unit() {
		return "operations/s";
	}

	@Override
	public String latencyMeaning() {
		return "acquire time of each operation's lock, read or write";
	}

	@Override
	public List<Library> libraries() {
		return List.of(Library.REDIS_LOCK, Library.REDISSON);
	}

	@Override
	public boolean comparesToFloor() {
		return false;
	}

	@Override
	public RunResult run(Library library, RedisServer redis, Duration warmup, Duration run, Path workDirectory) {
		try (LockLibrary connected = library.connect(redis);
				CriticalSection section = new CriticalSection(redis.host(), redis.port())) {
			ReadWriteLockLibrary locks = (ReadWriteLockLibrary) connected;
			section.reset(List.of(LOCK_NAME));
			long measureFrom = System.currentTimeMillis() + warmup.toMillis();
			long end = measureFrom + run.toMillis();
			CommandStats.Window statsReset = CommandStats.resetAt(redis, measureFrom);
			long[] writes = new long[this.threads];
			TimedLoop.Result result = TimedLoop.run(this.threads, measureFrom, end, (thread) -> {
				SplittableRandom random = new SplittableRandom(thread);
				return (measuring) -> {
					long start = System.nanoTime();
					if (random.nextInt(100) < this.readPercent) {
						locks.readLock(LOCK_NAME);
						long waited = System.nanoTime() - start;
						section.read(LOCK_NAME);
						locks.readUnlock(LOCK_NAME);
						return waited;
					}
					locks.writeLock(LOCK_NAME);
					long waited = System.nanoTime() - start;
					section.run(LOCK_NAME);
					writes[thread]++;
					locks.writeUnlock(LOCK_NAME);
					return waited;
				};
			});
			statsReset.join();
			long totalWrites = 0;
			for (long w : writes) {
				totalWrites += w;
			}
			return new RunResult(result.measured(), result.seconds(), result.latency(),
					section.total(List.of(LOCK_NAME)) == totalWrites, CommandStats.read(redis), statsReset.cpu(redis));
		}
	}

}
