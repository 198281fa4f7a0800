package io.github.redislock.model;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.redislock.testsupport.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replays the traces the build wrote to target/traces (the model's scenarios from
 * {@code quint test}, random traces from {@code quint run}) against the lock's Lua
 * scripts on a Redis of this class's own; see {@link ScriptReplay} and model/README.md.
 */
class ReplayTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static RedisClient client;

	private static StatefulRedisConnection<String, String> connection;

	private static StatefulRedisPubSubConnection<String, String> subscription;

	// every message on the lock's channel, in order
	private static final BlockingQueue<String> published = new LinkedBlockingQueue<>();

	@BeforeAll
	static void connect() {
		client = RedisClient.create(RedisURI.create(redis.server().host(), redis.server().port()));
		connection = client.connect();
		subscription = client.connectPubSub();
		subscription.addListener(new RedisPubSubAdapter<>() {
			@Override
			public void message(String channel, String message) {
				published.add(message);
			}
		});
		subscription.sync().subscribe(ScriptReplay.CHANNEL);
	}

	@AfterAll
	static void disconnect() {
		subscription.close();
		connection.close();
		client.shutdown();
	}

	@Test
	void everyStepOfEveryTraceIsWhatTheScriptsDo() {
		List<ModelTrace> traces = traces();
		ScriptReplay replay = new ScriptReplay(connection.sync(), published, Map.of());
		List<String> failures = replayAll(replay, traces);
		Map<String, Long> steps = traces.stream()
			.flatMap((trace) -> trace.states().stream().skip(1))
			.collect(Collectors.groupingBy((state) -> state.last().kind(), TreeMap::new, Collectors.counting()));
		System.out.printf("Replayed %d traces, steps %s: %d failed%n", traces.size(), steps, failures.size());
		// the model's scenarios (quint test) are among them, and the traces go everywhere
		// the
		// replay checks
		assertThat(traces).filteredOn((trace) -> trace.name().startsWith("scenario_"))
			.extracting(ModelTrace::name)
			.contains("scenario_tryLockTakesYieldedTest.itf.json", "scenario_lastWithdrawalFreesTest.itf.json",
					"scenario_passGivesUpTest.itf.json", "scenario_failoverTest.itf.json");
		assertThat(steps).containsKeys("acquire", "release", "withdraw", "extend", "renew", "pass", "tick", "dataLoss",
				"snapshot", "failover");
		assertThat(failures).as("traces whose replay parted from the model").isEmpty();
	}

	@Test
	void aReleaseThatDoesNotCheckItsOwnerIsCaught() {
		List<ModelTrace> traces = traces();
		ScriptReplay broken = new ScriptReplay(connection.sync(), published, Map.of("unlock", brokenUnlock()));
		// the step named is a release: a holder whose lease ended releases another's lock
		Pattern caught = Pattern.compile("trace_\\d+\\.itf\\.json, step \\d+ of \\d+ \\(\\w*\\): "
				+ "release\\(owner=\\w:\\d[^)]*\\)( \\[reply lost])?: reply 0, the model's -1");
		List<String> failures = new ArrayList<>();
		for (ModelTrace trace : traces) {
			try {
				broken.replay(trace);
			}
			catch (AssertionError ex) {
				failures.add(ex.getMessage());
				if (caught.matcher(ex.getMessage()).find()) {
					System.out.printf("Against the broken unlock.lua, %d of the first %d traces failed, the last: %s%n",
							failures.size(), traces.indexOf(trace) + 1, ex.getMessage());
					return;
				}
			}
		}
		throw new AssertionError("No replay caught the broken unlock.lua at a release; failures: " + failures);
	}

	private static List<String> replayAll(ScriptReplay replay, List<ModelTrace> traces) {
		List<String> failures = new ArrayList<>();
		for (ModelTrace trace : traces) {
			try {
				replay.replay(trace);
			}
			catch (AssertionError ex) {
				failures.add(ex.getMessage());
			}
		}
		return failures;
	}

	// unlock.lua without its owner check (a copy under src/test/resources/broken)
	private static String brokenUnlock() {
		try {
			return new String(ReplayTests.class.getResourceAsStream("/broken/unlock.lua").readAllBytes(),
					StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static List<ModelTrace> traces() {
		Path directory = Path.of(System.getProperty("redislock.model.traceDirectory", "target/traces"));
		try (Stream<Path> files = Files.list(directory)) {
			List<ModelTrace> traces = files.filter((file) -> file.getFileName().toString().endsWith(".itf.json"))
				.sorted()
				.map(ModelTrace::read)
				.toList();
			assertThat(traces).as("traces in %s (the build's quint run writes them)", directory).isNotEmpty();
			assertThat(traces).allSatisfy((trace) -> assertThat(trace.states()).hasSizeGreaterThan(1));
			return traces;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
