package io.github.redislock.benchmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.github.redislock.testsupport.RedisServer;

/**
 * Several threads of one JVM take turns on one lock name.
 */
final class ContendedScenario implements Scenario {

	private final int threads;

	ContendedScenario(int threads) {
		this.threads = threads;
	}

	@Override
	public String title() {
		return "contended, 1 JVM x " + this.threads + " threads";
	}

	@Override
	public String unit() {
		return "acquisitions/s";
	}

	@Override
	public String latencyMeaning() {
		return "hand-off gap (release to next holder)";
	}

	@Override
	public List<Library> libraries() {
		return List.of(Library.REDIS_LOCK, Library.REDISSON, Library.INTEGRATION_PUB_SUB, Library.INTEGRATION_SPIN);
	}

	@Override
	public boolean comparesToFloor() {
		return false;
	}

	@Override
	public RunResult run(Library library, RedisServer redis, Duration warmup, Duration run, Path workDirectory) {
		try (LockLibrary locks = library.connect(redis);
				SharedCounter shared = new SharedCounter(workDirectory.resolve("counter-" + library.name()))) {
			shared.reset();
			long measureFrom = System.currentTimeMillis() + warmup.toMillis();
			long end = measureFrom + run.toMillis();
			Thread statsReset = new Thread(() -> {
				CycleScenario.sleepUntil(measureFrom);
				CommandStats.reset(redis);
			});
			statsReset.start();
			String name = ContentionStep.LOCK_NAME + ":" + library.name();
			TimedLoop.Result result = TimedLoop.run(this.threads, measureFrom, end,
					(thread) -> new ContentionStep(locks, shared, name));
			CycleScenario.join(statsReset);
			return new RunResult(result.measured(), result.seconds(), result.latency(),
					shared.counter() == result.total(), CommandStats.read(redis));
		}
	}

}
