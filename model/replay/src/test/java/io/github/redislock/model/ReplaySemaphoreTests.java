package io.github.redislock.model;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replays the semaphore model's traces the build wrote to target/traces/semaphore (its
 * scenarios and random traces) against the semaphore's Lua scripts on a Redis of this
 * class's own; see {@link SemaphoreReplay} and model/README.md.
 */
class ReplaySemaphoreTests {

	@RegisterExtension
	static final ReplayRedis redis = new ReplayRedis();

	// semaphore-release.lua that does not check the holder's lease: a holder whose lease
	// ended gives back a permit that was already everybody's
	private static final Mutation RELEASE_WITHOUT_LEASE_CHECK = new Mutation("semaphore-release",
			"if tonumber(score) <= now then", "if false then");

	// semaphore-pass.lua that does not check the permit's lease: a permit whose lease
	// ended is passed on, and its new holder believes it holds a permit that is
	// everybody's
	private static final Mutation PASS_WITHOUT_LEASE_CHECK = new Mutation("semaphore-pass",
			"if not score or tonumber(score) <= now then", "if not score then");

	@Test
	void everyStepOfEveryTraceIsWhatTheScriptsDo() {
		redis.replaysEveryTrace("semaphore", new SemaphoreReplay(redis, Map.of()), traces(),
				List.of("permitsTakenTest", "tryAcquireTest", "releaseWakesTest", "leaseEndTest", "keptTest",
						"keptPermitSoughtTest", "shortenedLeaseToldTest", "passTest", "passLapsedTest", "passLostTest",
						"lostReplySettledTest", "deadHolderTest", "failoverTest", "dataLossTest"),
				List.of("acquire", "pass", "release", "extend", "renew", "settle", "giveUp", "crash", "tick",
						"dataLoss", "snapshot", "failover"));
	}

	@Test
	void aReleaseWhoseLeaseEndedIsCaught() {
		// a holder whose lease ended (its member not yet dropped) releases: the model
		// replies -1, the broken script gives the permit back and announces it
		redis.catches(RELEASE_WITHOUT_LEASE_CHECK, "at a release", (scripts) -> new SemaphoreReplay(redis, scripts),
				traces(),
				Pattern.compile("\\.itf\\.json, step \\d+ of \\d+ \\(\\w*\\): "
						+ "release\\(owner=\\w:\\d, handle=\\w:h\\d+, keep=\\d\\)( \\[reply lost])?: "
						+ "reply 0, the model's -1"));
	}

	@Test
	void aPassOfAPermitWhoseLeaseEndedIsCaught() {
		redis.catches(PASS_WITHOUT_LEASE_CHECK, "at a pass", (scripts) -> new SemaphoreReplay(redis, scripts), traces(),
				Pattern.compile("\\.itf\\.json, step \\d+ of \\d+ \\(\\w*\\): "
						+ "pass\\(owner=\\w:\\d, to=\\w:\\d, handle=\\w:h\\d+\\)( \\[reply lost])?: "
						+ "reply \\d+, the model's -1"));
	}

	private static List<Trace<SemaphoreTrace.State>> traces() {
		return Trace.all("semaphore", SemaphoreTrace.State::of);
	}

}
