package io.github.redislock.benchmark;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.github.redislock.testsupport.RedisServer;

/**
 * One workload, run once per library per round.
 */
interface Scenario {

	/** Short name for tables. */
	String title();

	/** What the measured numbers are: "pairs/s", "acquisitions/s", ... */
	String unit();

	/** What the latency column measures. */
	String latencyMeaning();

	/** The libraries this scenario applies to. */
	List<Library> libraries();

	/** Whether the fastest lib is compared to the floor (uncontended) or to Redisson. */
	boolean comparesToFloor();

	RunResult run(Library library, RedisServer redis, Duration warmup, Duration run, Path workDirectory);

}
