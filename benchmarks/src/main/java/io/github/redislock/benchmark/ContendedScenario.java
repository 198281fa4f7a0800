package io.github.redislock.benchmark;

import java.nio.file.Path;
import java.time.Duration;

import io.github.redislock.testsupport.RedisServer;

/**
 * Several threads of one JVM take turns on one lock name.
 */
final class ContendedScenario implements ContentionScenario {

	private final int threads;

	ContendedScenario(int threads) {
		this.threads = threads;
	}

	@Override
	public String title() {
		return "contended, 1 JVM x " + this.threads + " threads";
	}

	@Override
	public RunResult run(Library library, RedisServer redis, Duration warmup, Duration run, Path workDirectory) {
		try (LockLibrary locks = library.connect(redis);
				SharedCounter shared = new SharedCounter(workDirectory.resolve("counter-" + library.name()))) {
			shared.reset();
			long measureFrom = System.currentTimeMillis() + warmup.toMillis();
			long end = measureFrom + run.toMillis();
			Thread statsReset = CommandStats.resetAt(redis, measureFrom);
			String name = ContentionStep.LOCK_NAME + ":" + library.name();
			TimedLoop.Result result = TimedLoop.run(this.threads, measureFrom, end,
					(thread) -> new ContentionStep(locks, shared, name));
			CycleScenario.join(statsReset);
			return new RunResult(result.measured(), result.seconds(), result.latency(),
					shared.counter() == result.total(), CommandStats.read(redis));
		}
	}

}
