package io.github.redislock.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.redislock.LockTestClients;
import io.github.redislock.ReactiveRedisLockClient;
import io.github.redislock.RedisLockClient;
import io.github.redislock.history.HistoryKind.Caller;
import io.github.redislock.testsupport.RedisClusterExtension;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The history checker on a Redis Cluster of 3 masters and 3 replicas (see
 * {@link LockHistoryTests}), with the lock's master failed over in each round, by hand
 * (nothing lost: exclusion must hold across it) or by a crash (an epoch ends). Slow, so
 * run by hand: {@code -Dredislock.history.clusterRounds=10} runs 10 rounds per kind.
 */
@EnabledIfSystemProperty(named = "redislock.history.clusterRounds", matches = "[1-9][0-9]*",
		disabledReason = "-Dredislock.history.clusterRounds=N runs N rounds per kind")
class ClusterLockHistoryTests {

	private static final int ROUNDS = Integer.getInteger("redislock.history.clusterRounds", 0);

	private static final Duration BURST = Duration.ofSeconds(4);

	/** How long after a failover its effects may last: Lettuce reads the new topology. */
	private static final Duration GRACE = Duration.ofSeconds(5);

	private static final Duration LIVENESS_BOUND = Duration.ofSeconds(2);

	@RegisterExtension
	static final RedisClusterExtension redis = new RedisClusterExtension(3, 1);

	@RegisterExtension
	final LockTestClients clients = LockTestClients.on(redis::configuration, Duration.ofSeconds(2));

	@ParameterizedTest
	@EnumSource(HistoryKind.class)
	void historiesAcrossFailoversKeepEveryPromise(HistoryKind kind) throws Exception {
		List<Caller> callers = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			RedisLockClient client = LockTestClients.awaitPubSub(this.clients.newClient((builder) -> {
			}));
			callers.add(new Caller(client, ReactiveRedisLockClient.create(client)));
		}
		String name = LockTestClients.uniqueName();
		HistoryFaults faults = HistoryFaults.cluster(redis.cluster(), "lock:{" + name + "}");
		long seed = Long.getLong("redislock.history.seed", System.nanoTime());
		HistoryRun run = new HistoryRun(kind, callers, 4, BURST, name, seed);
		List<String> violations = new ArrayList<>();
		for (int round = 0; round < ROUNDS && violations.isEmpty(); round++) {
			HistoryFaults.Kind fault = (round % 2 == 0) ? HistoryFaults.Kind.CLUSTER_FAILOVER
					: HistoryFaults.Kind.CLUSTER_CRASH;
			List<HistoryEntry> entries = run.round(faults, fault);
			violations
				.addAll(new HistoryChecker(entries, kind.permits(), LIVENESS_BOUND).withFaults(run.faults(), GRACE)
					.check());
		}
		List<HistoryEntry> history = run.history();
		violations.addAll(new HistoryChecker(history, kind.permits(), LIVENESS_BOUND).withFaults(run.faults(), GRACE)
			.checkFencing());
		System.out.printf(Locale.ROOT, "%s on a Cluster, %d failovers: %d calls, %d holds, %d failed, seed %d%n", kind,
				run.faults().size(), history.size(), history.stream().filter(HistoryEntry::granted).count(),
				history.stream().filter((entry) -> entry.failure() != null).count(), seed);
		assertThat(violations).as("violations (seed %d)", seed).isEmpty();
	}

}
