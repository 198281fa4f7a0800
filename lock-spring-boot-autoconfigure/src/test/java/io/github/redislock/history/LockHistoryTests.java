package io.github.redislock.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.redislock.ReactiveRedisLockClient;
import io.github.redislock.RedisLockClient;
import io.github.redislock.LockTestClients;
import io.github.redislock.history.HistoryKind.Caller;
import io.github.redislock.testsupport.FaultProxy;
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

	/**
	 * Rounds per kind with a fault each; the kinds' rounds together inject every kind of
	 * fault at least once.
	 */
	private static final int FAULT_ROUNDS = Integer.getInteger("redislock.history.faultRounds", 3);

	/**
	 * The burst of a round with a fault: the fault, its healing and a time with no
	 * fault's effects, in which refusals and waits are checked again.
	 */
	private static final Duration FAULT_BURST = Duration
		.parse(System.getProperty("redislock.history.faultBurst", "PT1.5S"));

	/** The clients' command timeout in the runs with faults: a freeze outlasts it. */
	private static final Duration FAULT_COMMAND_TIMEOUT = Duration.ofMillis(500);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	@ParameterizedTest
	@EnumSource(HistoryKind.class)
	void historiesKeepEveryPromise(HistoryKind kind) throws Exception {
		List<Caller> callers = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			// subscribed before the run: a cold client's first subscription is not the
			// point
			RedisLockClient client = LockTestClients.awaitPubSub(this.clients.newClient());
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

	/**
	 * The same under faults (see {@link HistoryFaults}): calls that overlap a fault may
	 * fail, be refused or wait, exclusion is checked within each data epoch, tokens
	 * increase across every fault, and once it healed every client takes the lock again
	 * within {@link HistoryRun#RECOVERY}.
	 */
	@ParameterizedTest
	@EnumSource(HistoryKind.class)
	void historiesWithFaultsKeepEveryPromise(HistoryKind kind) throws Exception {
		List<FaultProxy> proxies = new ArrayList<>();
		try {
			List<Caller> callers = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port());
				proxies.add(proxy);
				RedisLockClient client = LockTestClients
					.awaitPubSub(this.clients.through(proxy, FAULT_COMMAND_TIMEOUT, (builder) -> {
					}));
				callers.add(new Caller(client, ReactiveRedisLockClient.create(client)));
			}
			HistoryFaults faults = HistoryFaults.standalone(redis.server(), proxies, FAULT_COMMAND_TIMEOUT);
			long seed = Long.getLong("redislock.history.seed", System.nanoTime());
			HistoryRun run = new HistoryRun(kind, callers, 4, FAULT_BURST, LockTestClients.uniqueName(), seed);
			Duration grace = FAULT_COMMAND_TIMEOUT.multipliedBy(2).plusSeconds(1);
			List<HistoryFaults.Kind> kinds = HistoryFaults.Kind.standalone();
			List<String> violations = new ArrayList<>();
			for (int round = 0; round < FAULT_ROUNDS && violations.isEmpty(); round++) {
				HistoryFaults.Kind fault = kinds.get((kind.ordinal() * FAULT_ROUNDS + round) % kinds.size());
				List<HistoryEntry> entries = run.round(faults, fault);
				violations
					.addAll(new HistoryChecker(entries, kind.permits(), LIVENESS_BOUND).withFaults(run.faults(), grace)
						.check());
			}
			List<HistoryEntry> history = run.history();
			violations
				.addAll(new HistoryChecker(history, kind.permits(), LIVENESS_BOUND).withFaults(run.faults(), grace)
					.checkFencing());
			long failed = history.stream().filter((entry) -> entry.failure() != null).count();
			System.out.printf(Locale.ROOT, "%s with faults %s: %d calls, %d holds, %d failed, seed %d%n", kind,
					run.faults().stream().map(HistoryFaults.Window::kind).toList(), history.size(),
					history.stream().filter(HistoryEntry::granted).count(), failed, seed);
			assertThat(violations).as("violations (seed %d)", seed).isEmpty();
		}
		finally {
			this.clients.close();
			proxies.forEach(FaultProxy::close);
		}
	}

}
