package io.github.redislock.model;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replays the exclusive lock model's traces the build wrote to target/traces (the model's
 * scenarios from {@code quint test}, random traces from {@code quint run}) against the
 * lock's Lua scripts on a Redis of this class's own; see {@link ExclusiveReplay} and
 * model/README.md.
 */
class ReplayTests {

	@RegisterExtension
	static final ReplayRedis redis = new ReplayRedis();

	// unlock.lua without its owner check: an owner whose lease ended releases whoever
	// holds the lock now
	private static final Mutation UNLOCK_WITHOUT_OWNER_CHECK = new Mutation("unlock",
			"if not fields[1] then\n  return NOT_HELD\nend\n", "");

	@Test
	void everyStepOfEveryTraceIsWhatTheScriptsDo() {
		redis.replaysEveryTrace("exclusive lock", new ExclusiveReplay(redis, Map.of()), traces(),
				List.of("tryLockTakesYieldedTest", "lastWithdrawalFreesTest", "passGivesUpTest", "failoverTest"),
				List.of("acquire", "release", "withdraw", "extend", "renew", "pass", "tick", "dataLoss", "snapshot",
						"failover"));
	}

	@Test
	void aReleaseThatDoesNotCheckItsOwnerIsCaught() {
		// the step named is a release: a holder whose lease ended releases another's lock
		redis.catches(UNLOCK_WITHOUT_OWNER_CHECK, "at a release", (scripts) -> new ExclusiveReplay(redis, scripts),
				traces(), Pattern.compile("trace_\\d+\\.itf\\.json, step \\d+ of \\d+ \\(\\w*\\): "
						+ "release\\(owner=\\w:\\d[^)]*\\)( \\[reply lost])?: reply 0, the model's -1"));
	}

	private static List<Trace<ExclusiveTrace.State>> traces() {
		return Trace.all("", ExclusiveTrace.State::of);
	}

}
