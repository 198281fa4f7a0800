package io.github.redislock.benchmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.testsupport.RedisServer;

/**
 * Several threads of one JVM take turns on one lock name; each holder runs the
 * {@link CriticalSection}. The {@link Library#CEILING ceiling} runs that critical section
 * on one thread without any lock: what a lock that hands over at no cost would reach.
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
	public List<Library> libraries() {
		List<Library> libraries = new ArrayList<>(ContentionScenario.super.libraries());
		libraries.add(0, Library.CEILING);
		return libraries;
	}

	@Override
	public RunResult run(Library library, RedisServer redis, Duration warmup, Duration run, Path workDirectory) {
		String name = ContentionStep.LOCK_NAME + ":" + library.name();
		try (LockLibrary locks = library.connect(redis);
				SharedCounter shared = new SharedCounter(workDirectory.resolve("counter-" + library.name()));
				CriticalSection section = new CriticalSection(redis.host(), redis.port())) {
			shared.reset();
			section.reset(List.of(name));
			long measureFrom = System.currentTimeMillis() + warmup.toMillis();
			long end = measureFrom + run.toMillis();
			CommandStats.Window statsReset = CommandStats.resetAt(redis, measureFrom);
			int threads = (library == Library.CEILING) ? 1 : this.threads;
			TimedLoop.Result result = TimedLoop.run(threads, measureFrom, end,
					(thread) -> new ContentionStep(locks, shared, section, name, true));
			statsReset.join();
			return new RunResult(result.measured(), result.seconds(), result.latency(),
					section.total(List.of(name)) == result.total(), CommandStats.read(redis), statsReset.cpu(redis));
		}
	}

}
