package io.github.redislock.benchmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.testsupport.RedisServer;
import org.HdrHistogram.Histogram;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reactive pipelines, not threads, taking locks: {@code concurrency} of them at once,
 * each running its lock/unlock cycles one after the other. Uncontended, each has its own
 * lock name and the latency is one cycle; contended, all take turns on one name, bump the
 * shared non-atomic counter inside, and the latency is the hand-off gap.
 */
final class ReactiveScenario implements Scenario {

	private final int concurrency;

	private final boolean contended;

	ReactiveScenario(int concurrency, boolean contended) {
		this.concurrency = concurrency;
		this.contended = contended;
	}

	@Override
	public String title() {
		return "reactive, " + (this.contended ? "contended" : "uncontended") + ", " + this.concurrency + " pipelines";
	}

	@Override
	public String unit() {
		return this.contended ? "acquisitions/s" : "pairs/s";
	}

	@Override
	public String latencyMeaning() {
		return this.contended ? "hand-off gap (release to next holder)" : "lock + unlock";
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
		try (ReactiveLockLibrary locks = ReactiveLockLibrary.connect(library, redis.host(), redis.port());
				SharedCounter shared = new SharedCounter(workDirectory.resolve("reactive-counter-" + library.name()))) {
			shared.reset();
			long measureFrom = System.currentTimeMillis() + warmup.toMillis();
			long end = measureFrom + run.toMillis();
			CommandStats.Window statsReset = CommandStats.resetAt(redis, measureFrom);
			List<Pipeline> pipelines = new ArrayList<>();
			for (int i = 0; i < this.concurrency; i++) {
				String name = "bench:reactive:" + library.name() + (this.contended ? "" : ":" + i);
				pipelines.add(new Pipeline(locks, shared, name, this.contended, measureFrom, end));
			}
			Flux.fromIterable(pipelines).flatMap(Pipeline::loop, this.concurrency).then().block();
			statsReset.join();
			long measured = 0;
			long total = 0;
			Histogram latency = TimedLoop.newHistogram();
			for (Pipeline pipeline : pipelines) {
				measured += pipeline.measured;
				total += pipeline.total;
				latency.add(pipeline.latency);
			}
			boolean counterOk = !this.contended || shared.counter() == total;
			return new RunResult(measured, run.toMillis() / 1000.0, latency, counterOk, CommandStats.read(redis),
					statsReset.cpu(redis));
		}
	}

	/**
	 * One pipeline's cycles; its fields are only touched by its own, sequential cycles.
	 */
	private static final class Pipeline {

		private final ReactiveLockLibrary locks;

		private final SharedCounter shared;

		private final String name;

		private final boolean contended;

		private final long measureFrom;

		private final long end;

		private final Histogram latency = TimedLoop.newHistogram();

		private long measured;

		private long total;

		Pipeline(ReactiveLockLibrary locks, SharedCounter shared, String name, boolean contended, long measureFrom,
				long end) {
			this.locks = locks;
			this.shared = shared;
			this.name = name;
			this.contended = contended;
			this.measureFrom = measureFrom;
			this.end = end;
		}

		Mono<Void> loop() {
			return Mono.defer(this::cycle).repeat(() -> System.currentTimeMillis() < this.end).then();
		}

		private Mono<Long> cycle() {
			long startedAt = System.currentTimeMillis();
			long start = System.nanoTime();
			Mono<Long> work = this.contended ? Mono.fromSupplier(this::turn) : Mono.just(-1L);
			return this.locks.withLock(this.name, work).doOnNext((gap) -> {
				this.total++;
				if (startedAt >= this.measureFrom) {
					this.measured++;
					long nanos = this.contended ? gap : System.nanoTime() - start;
					if (nanos >= 0) {
						this.latency.recordValue(Math.min(nanos, this.latency.getHighestTrackableValue()));
					}
				}
			});
		}

		// as ContentionStep: the gap since the previous holder released, then the
		// non-atomic increment
		private long turn() {
			long lastRelease = this.shared.lastRelease();
			long gap = (lastRelease != 0) ? System.nanoTime() - lastRelease : -1;
			this.shared.incrementWithoutAtomicity();
			this.shared.released(System.nanoTime());
			return gap;
		}

	}

}
