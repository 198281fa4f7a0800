package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.redislock.HistoryKind.Caller;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every kind keeps its promises on recorded histories (see {@link HistoryChecker}): three
 * clients of four callers each (threads, handles, asynchronous and reactive callers) run
 * rounds of random calls; each round's history is checked, and so are the tokens across
 * rounds. A few seconds per kind here; {@code -Dredislock.history.rounds=N} runs more.
 */
class LockHistoryTests {

	/** Rounds per kind; each is a 250 ms burst and its probes. */
	private static final int ROUNDS = Integer.getInteger("redislock.history.rounds", 8);

	/**
	 * The longest a waiter may wait at a stretch while the lock is free for it: far above
	 * a release's message and a scheduling delay on a busy machine, far below the 30 s
	 * lease a missed release would make it sleep through.
	 */
	private static final Duration LIVENESS_BOUND = Duration.ofSeconds(2);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	@ParameterizedTest
	@EnumSource(HistoryKind.class)
	void historiesKeepEveryPromise(HistoryKind kind) throws Exception {
		List<Caller> callers = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			RedisLockClient client = this.clients.newClient();
			callers.add(new Caller(client, ReactiveRedisLockClient.create(client)));
		}
		long seed = Long.getLong("redislock.history.seed", System.nanoTime());
		HistoryRun run = new HistoryRun(kind, callers, 4, Duration.ofMillis(250), LockTestClients.uniqueName(), seed);
		List<String> violations = new ArrayList<>();
		for (int round = 0; round < ROUNDS && violations.isEmpty(); round++) {
			violations.addAll(new HistoryChecker(run.round(), kind.permits(), LIVENESS_BOUND).check());
		}
		List<HistoryEntry> history = run.history();
		violations.addAll(new HistoryChecker(history, kind.permits(), LIVENESS_BOUND).checkFencing());
		long holds = history.stream().filter(HistoryEntry::granted).count();
		long gaveUp = history.stream().filter((entry) -> entry.op().waits() && !entry.granted()).count();
		System.out.printf(Locale.ROOT, "%s: %d calls, %d holds, %d waits given up, seed %d%n", kind, history.size(),
				holds, gaveUp, seed);
		assertThat(violations).as("violations (seed %d)", seed).isEmpty();
	}

}
