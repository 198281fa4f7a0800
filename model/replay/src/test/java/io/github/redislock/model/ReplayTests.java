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

	// unlock.lua without its owner checks (the owner's field, the grant's token): an
	// owner
	// whose lease ended releases whoever holds the lock now. Either check alone catches
	// that in the model's traces, whose releases all name their grant; the field alone
	// guards a settlement's release, which names none.
	private static final Mutation UNLOCK_WITHOUT_OWNER_CHECK = new Mutation("unlock", """
			if not fields[1] then
			  return NOT_HELD
			end
			""", "").andThen("""
			if ARGV[9] ~= '0' and tonumber(fields[3]) ~= tonumber(ARGV[9]) then
			  return NOT_HELD
			end
			""", "");

	// unlock.lua without its grant check: a hold passed on in an earlier run of an owner
	// releases the owner's new grant
	private static final Mutation UNLOCK_WITHOUT_GRANT_CHECK = new Mutation("unlock",
			"if ARGV[9] ~= '0' and tonumber(fields[3]) ~= tonumber(ARGV[9]) then", "if false then");

	// pass.lua without its grant check: a run goes on where Redis holds another grant of
	// its owner
	private static final Mutation PASS_WITHOUT_GRANT_CHECK = new Mutation("pass",
			"if not fields[1] or (ARGV[8] ~= '0' and tonumber(fields[3]) ~= tonumber(ARGV[8])) then",
			"if not fields[1] then");

	@Test
	void everyStepOfEveryTraceIsWhatTheScriptsDo() {
		redis.replaysEveryTrace("exclusive lock", new ExclusiveReplay(redis, Map.of()), traces(),
				List.of("tryLockTakesYieldedTest", "lastWithdrawalFreesTest", "passGivesUpTest", "failoverTest",
						"staleReleaseTest", "passAfterRollbackTest"),
				List.of("acquire", "release", "staleRelease", "withdraw", "extend", "renew", "pass", "tick", "dataLoss",
						"snapshot", "failover"));
	}

	@Test
	void aReleaseThatDoesNotCheckItsOwnerIsCaught() {
		// the step named is a release: a holder whose lease ended releases another's lock
		redis.catches(UNLOCK_WITHOUT_OWNER_CHECK, "at a release", (scripts) -> new ExclusiveReplay(redis, scripts),
				traces(), Pattern.compile("trace_\\d+\\.itf\\.json, step \\d+ of \\d+ \\(\\w*\\): "
						+ "release\\(owner=\\w:\\d[^)]*\\)( \\[reply lost])?: reply 0, the model's -1"));
	}

	@Test
	void aReleaseThatFreesAnotherGrantOfItsOwnerIsCaught() {
		// the step named is a late release of a hold passed on in the owner's earlier run
		redis.catches(UNLOCK_WITHOUT_GRANT_CHECK, "at a stale release",
				(scripts) -> new ExclusiveReplay(redis, scripts), traces(), Pattern.compile(
						"step \\d+ of \\d+ \\(\\w*\\): staleRelease\\(owner=\\w:\\d[^)]*\\): reply 0, the model's -1"));
	}

	@Test
	void aPassOnAnotherGrantOfItsOwnerIsCaught() {
		redis.catches(PASS_WITHOUT_GRANT_CHECK, "at a pass", (scripts) -> new ExclusiveReplay(redis, scripts), traces(),
				Pattern
					.compile("step \\d+ of \\d+ \\(\\w*\\): pass\\(owner=\\w:\\d[^)]*\\): reply \\d+, the model's -1"));
	}

	private static List<Trace<ExclusiveTrace.State>> traces() {
		return Trace.all("", ExclusiveTrace.State::of);
	}

}
