package io.github.redislock.benchmark;

import java.util.List;

/**
 * A scenario where threads take turns on one lock name: it reports acquisitions and
 * hand-off gaps, and compares the libraries that can wait for a lock (the floor cannot).
 */
interface ContentionScenario extends Scenario {

	@Override
	default String unit() {
		return "acquisitions/s";
	}

	@Override
	default String latencyMeaning() {
		return "hand-off gap (release to next holder)";
	}

	@Override
	default List<Library> libraries() {
		return List.of(Library.REDIS_LOCK, Library.REDISSON, Library.INTEGRATION_PUB_SUB, Library.INTEGRATION_SPIN);
	}

	@Override
	default boolean comparesToFloor() {
		return false;
	}

}
