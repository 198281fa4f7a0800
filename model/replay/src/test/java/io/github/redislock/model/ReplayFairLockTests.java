package io.github.redislock.model;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replays the fair lock model's traces the build wrote to target/traces/fair (its
 * scenarios and random traces) against the fair lock's Lua scripts on a Redis of this
 * class's own; see {@link FairReplay} and model/README.md.
 */
class ReplayFairLockTests {

	@RegisterExtension
	static final ReplayRedis redis = new ReplayRedis();

	// fair-lock.lua as before e241783: a tryLock() waits its turn too, so it is refused a
	// free lock while another owner is first in the queue
	private static final Mutation TRY_LOCK_WAITS_ITS_TURN = new Mutation("fair-lock",
			"if not head or head == ARGV[2] or ARGV[4] ~= '1' then", "if not head or head == ARGV[2] then");

	@Test
	void everyStepOfEveryTraceIsWhatTheScriptsDo() {
		redis.replaysEveryTrace("fair lock", new FairReplay(redis, Map.of()), traces(),
				List.of("handOffTest", "tryLockBargesTest", "withdrawNamesNextTest", "headGoneTest", "holdAtLeastTest",
						"failoverTest"),
				List.of("acquire", "release", "withdraw", "heartbeat", "extend", "renew", "crash", "tick", "dataLoss",
						"snapshot", "failover"));
	}

	@Test
	void aTryLockRefusedWhileOthersQueueIsCaught() {
		// a tryLock() of a free lock while another owner is first in the queue: the model
		// grants, the broken script refuses (0: the free lock's PTTL is no time)
		redis.catches(TRY_LOCK_WAITS_ITS_TURN, "at a tryLock()", (scripts) -> new FairReplay(redis, scripts), traces(),
				Pattern.compile("\\.itf\\.json, step \\d+ of \\d+ \\(\\w*\\): "
						+ "acquire\\(owner=\\w:\\d, holds=0, lease=\\d+, waits=false\\)( \\[reply lost])?: "
						+ "reply 0, the model grants"));
	}

	private static List<Trace<FairTrace.State>> traces() {
		return Trace.all("fair", FairTrace.State::of);
	}

}
