package io.github.redislock.model;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replays the read/write lock model's traces the build wrote to target/traces/rw (its
 * scenarios and random traces) against the read/write lock's Lua scripts on a Redis of
 * this class's own; see {@link ReadWriteReplay} and model/README.md.
 */
class ReplayReadWriteLockTests {

	@RegisterExtension
	static final ReplayRedis redis = new ReplayRedis();

	// read-lock.lua as before e241783: a reader that does not wait waits behind the
	// writers waiting too
	private static final Mutation TRY_READ_WAITS_BEHIND_WRITERS = new Mutation("read-lock",
			"if ARGV[4] == '1' and not writer and", "if not writer and");

	// write-lock.lua ignoring the minimum holds: a writer comes in while a write or a
	// read
	// is kept for nobody
	private static final Mutation WRITE_IGNORES_MINIMUM_HOLDS = new Mutation("write-lock", "and kept <= micros and",
			"and");

	// read-lock.lua ignoring a write kept for nobody: a new reader comes in before its
	// end
	private static final Mutation READ_IGNORES_KEPT_WRITE = new Mutation("read-lock", "if kept > micros then",
			"if false then");

	@Test
	void everyStepOfEveryTraceIsWhatTheScriptsDo() {
		redis.replaysEveryTrace("read/write lock", new ReadWriteReplay(redis, Map.of()), traces(),
				List.of("tryReadBargesTest", "readTurnTest", "tryWriteIgnoresReadTurnTest", "downgradeTest",
						"withdrawLetsReadersInTest", "deadReaderPurgedTest", "writeHoldAtLeastTest",
						"downgradeHoldAtLeastTest", "readHoldAtLeastTest", "readTurnAfterHoldAtLeastTest"),
				List.of("readLock", "writeLock", "readUnlock", "writeUnlock", "writeWithdraw", "readExtend",
						"readRenew", "writeExtend", "writeRenew", "crash", "tick", "dataLoss", "snapshot", "failover"));
	}

	@Test
	void aTryReadKeptOutByWaitingWritersIsCaught() {
		// a reader that does not wait while nobody writes and a writer waits: the model
		// grants, the broken script refuses (minus the time to the last writer's mark
		// end)
		redis.catches(TRY_READ_WAITS_BEHIND_WRITERS, "at a tryLock() of the read side",
				(scripts) -> new ReadWriteReplay(redis, scripts), traces(),
				Pattern.compile("\\.itf\\.json, step \\d+ of \\d+ \\(\\w*\\): "
						+ "readLock\\(owner=\\w:\\d, holds=0, lease=\\d+, waits=false\\)( \\[reply lost])?: "
						+ "reply -\\d+, the model grants"));
	}

	@Test
	void aWriterLetInDuringAMinimumHoldIsCaught() {
		// a writer asks while a write or read is kept for nobody: the model refuses, the
		// broken script grants
		redis.catches(WRITE_IGNORES_MINIMUM_HOLDS, "at a writer asking during a minimum hold",
				(scripts) -> new ReadWriteReplay(redis, scripts), traces(),
				Pattern.compile("\\.itf\\.json, step \\d+ of \\d+ \\(\\w*\\): "
						+ "writeLock\\(owner=\\w:\\d, holds=0, lease=\\d+, waits=(true|false)\\)( \\[reply lost])?: "
						+ "reply \\d+, the model refuses"));
	}

	@Test
	void aReaderLetInDuringAKeptWriteIsCaught() {
		redis.catches(READ_IGNORES_KEPT_WRITE, "at a new reader asking while a write is kept for nobody",
				(scripts) -> new ReadWriteReplay(redis, scripts), traces(),
				Pattern.compile("\\.itf\\.json, step \\d+ of \\d+ \\(\\w*\\): "
						+ "readLock\\(owner=\\w:\\d, holds=0, lease=\\d+, waits=(true|false)\\)( \\[reply lost])?: "
						+ "reply \\d+, the model refuses"));
	}

	private static List<Trace<ReadWriteTrace.State>> traces() {
		return Trace.all("rw", ReadWriteTrace.State::of);
	}

}
