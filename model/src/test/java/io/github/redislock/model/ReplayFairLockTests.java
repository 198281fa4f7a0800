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
 * Replays the fair lock model's traces the build wrote to target/traces/fair (its
 * scenarios and random traces) against the fair lock's Lua scripts on a Redis of this
 * class's own; see {@link FairReplay} and model/README.md.
 */
class ReplayFairLockTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static RedisClient client;

	private static StatefulRedisConnection<String, String> connection;

	private static StatefulRedisPubSubConnection<String, String> subscription;

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
		subscription.sync().subscribe(FairReplay.CHANNEL);
	}

	@AfterAll
	static void disconnect() {
		subscription.close();
		connection.close();
		client.shutdown();
	}

	@Test
	void everyStepOfEveryTraceIsWhatTheScriptsDo() {
		List<FairTrace> traces = traces();
		FairReplay replay = new FairReplay(connection.sync(), published, Map.of());
		List<String> failures = new ArrayList<>();
		for (FairTrace trace : traces) {
			try {
				replay.replay(trace);
			}
			catch (AssertionError ex) {
				failures.add(ex.getMessage());
			}
		}
		Map<String, Long> steps = traces.stream()
			.flatMap((trace) -> trace.states().stream().skip(1))
			.collect(Collectors.groupingBy((state) -> state.last().kind(), TreeMap::new, Collectors.counting()));
		System.out.printf("Replayed %d fair lock traces, steps %s: %d failed%n", traces.size(), steps, failures.size());
		assertThat(traces).extracting(FairTrace::name)
			.contains("scenario_handOffTest.itf.json", "scenario_tryLockBargesTest.itf.json",
					"scenario_withdrawNamesNextTest.itf.json", "scenario_headGoneTest.itf.json",
					"scenario_holdAtLeastTest.itf.json", "scenario_failoverTest.itf.json");
		assertThat(steps).containsKeys("acquire", "release", "withdraw", "heartbeat", "extend", "renew", "crash",
				"tick", "dataLoss", "snapshot", "failover");
		assertThat(failures).as("traces whose replay parted from the model").isEmpty();
	}

	@Test
	void aTryLockRefusedWhileOthersQueueIsCaught() {
		FairReplay broken = new FairReplay(connection.sync(), published, Map.of("fair-lock", brokenFairLock()));
		// a tryLock() of a free lock while another owner is first in the queue: the model
		// grants, the broken script refuses (0: the free lock's PTTL is no time)
		Pattern caught = Pattern.compile("\\.itf\\.json, step \\d+ of \\d+ \\(\\w*\\): "
				+ "acquire\\(owner=\\w:\\d, holds=0, lease=\\d+, waits=false\\)( \\[reply lost])?: "
				+ "reply 0, the model grants");
		List<String> failures = new ArrayList<>();
		for (FairTrace trace : traces()) {
			try {
				broken.replay(trace);
			}
			catch (AssertionError ex) {
				failures.add(ex.getMessage());
				if (caught.matcher(ex.getMessage()).find()) {
					System.out.printf("Against the broken fair-lock.lua, %d traces failed, the last: %s%n",
							failures.size(), ex.getMessage());
					return;
				}
			}
		}
		throw new AssertionError("No replay caught the broken fair-lock.lua at a tryLock(); failures: " + failures);
	}

	// fair-lock.lua as it was before e241783: a tryLock() waits its turn too
	private static String brokenFairLock() {
		try {
			return new String(ReplayFairLockTests.class.getResourceAsStream("/broken/fair-lock.lua").readAllBytes(),
					StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static List<FairTrace> traces() {
		Path directory = Path.of(System.getProperty("redislock.model.traceDirectory", "target/traces"), "fair");
		try (Stream<Path> files = Files.list(directory)) {
			List<FairTrace> traces = files.filter((file) -> file.getFileName().toString().endsWith(".itf.json"))
				.sorted()
				.map(FairTrace::read)
				.toList();
			assertThat(traces).as("traces in %s (the build's quint run writes them)", directory).isNotEmpty();
			return traces;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
