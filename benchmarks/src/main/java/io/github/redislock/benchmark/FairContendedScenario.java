package io.github.redislock.benchmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.github.redislock.testsupport.RedisServer;

/**
 * Threads of one JVM take turns on one fair lock; each holder runs the
 * {@link CriticalSection}, as in {@link ContendedScenario}. The latency is each
 * acquisition's wait, from asking to holding: what first come, first served costs the
 * waiters (its maximum is the worst wait).
 */
final class FairContendedScenario implements Scenario {

	private static final String LOCK_NAME = "bench:fair";

	private final int threads;

	FairContendedScenario(int threads) {
		this.threads = threads;
	}

	@Override
	public String title() {
		return "fair lock, contended, 1 JVM x " + this.threads + " threads";
	}

	@Override
	public String unit() {
		return "acquisitions/s";
	}

	@Override
	public String latencyMeaning() {
		return "wait for the lock, from asking to holding";
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
			FairLockLibrary locks = (FairLockLibrary) connected;
			section.reset(List.of(LOCK_NAME));
			long measureFrom = System.currentTimeMillis() + warmup.toMillis();
			long end = measureFrom + run.toMillis();
			CommandStats.Window statsReset = CommandStats.resetAt(redis, measureFrom);
			TimedLoop.Result result = TimedLoop.run(this.threads, measureFrom, end, (thread) -> (measuring) -> {
				long start = System.nanoTime();
				locks.fairLock(LOCK_NAME);
				long waited = System.nanoTime() - start;
				section.run(LOCK_NAME);
				locks.fairUnlock(LOCK_NAME);
				return waited;
			});
			statsReset.join();
			return new RunResult(result.measured(), result.seconds(), result.latency(),
					section.total(List.of(LOCK_NAME)) == result.total(), CommandStats.read(redis),
					statsReset.cpu(redis));
		}
	}

}
