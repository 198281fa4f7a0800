package io.github.redislock.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.github.redislock.testsupport.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replay test class's Redis: a server of the class's own (lock-test-support's
 * {@link RedisServerExtension}), one connection the scripts run on, one subscribed to the
 * channels the replays listen to; and the two tests every kind has, every trace replayed
 * and a broken script caught. Register it in a static field:
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * static final ReplayRedis redis = new ReplayRedis();
 * </pre>
 */
final class ReplayRedis implements BeforeAllCallback, AfterAllCallback {

	private final RedisServerExtension server = new RedisServerExtension();

	// every message on the channels listened to, in order, each with its channel's label
	private final BlockingQueue<String> published = new LinkedBlockingQueue<>();

	private final Map<String, String> labels = new ConcurrentHashMap<>();

	private RedisClient client;

	private StatefulRedisConnection<String, String> connection;

	private StatefulRedisPubSubConnection<String, String> subscription;

	@Override
	public void beforeAll(ExtensionContext context) {
		this.server.beforeAll(context);
		this.client = RedisClient.create(RedisURI.create(this.server.server().host(), this.server.server().port()));
		this.connection = this.client.connect();
		this.subscription = this.client.connectPubSub();
		this.subscription.addListener(new RedisPubSubAdapter<>() {
			@Override
			public void message(String channel, String message) {
				ReplayRedis.this.published.add(ReplayRedis.this.labels.getOrDefault(channel, "") + message);
			}
		});
	}

	@Override
	public void afterAll(ExtensionContext context) {
		this.subscription.close();
		this.connection.close();
		this.client.shutdown();
		this.server.afterAll(context);
	}

	/** The connection the scripts run on. */
	RedisCommands<String, String> commands() {
		return this.connection.sync();
	}

	/**
	 * Subscribes to the channels (once each) and gives the queue of their messages.
	 * @param channels each channel with the label put before its messages
	 */
	BlockingQueue<String> listen(Map<String, String> channels) {
		List<String> added = new ArrayList<>();
		channels.forEach((channel, label) -> {
			if (this.labels.putIfAbsent(channel, label) == null) {
				added.add(channel);
			}
		});
		if (!added.isEmpty()) {
			this.subscription.sync().subscribe(added.toArray(new String[0]));
		}
		return this.published;
	}

	/**
	 * Replays every trace and asserts that none parted from the model, that the model's
	 * scenarios are among them and that the traces took every kind of step.
	 * @param kind the lock kind, for the figures printed
	 * @param scenarios scenario names ({@code run <name>} in the model) that must be
	 * there
	 */
	<S extends Replay.ModelState> void replaysEveryTrace(String kind, Replay<S> replay, List<Trace<S>> traces,
			List<String> scenarios, List<String> stepKinds) {
		List<String> failures = replayUntil(replay, traces, null).failures();
		Map<String, Long> steps = traces.stream()
			.flatMap((trace) -> trace.states().stream().skip(1))
			.collect(Collectors.groupingBy(Replay.ModelState::stepKind, TreeMap::new, Collectors.counting()));
		System.out.printf("Replayed %d %s traces, steps %s: %d failed%n", traces.size(), kind, steps, failures.size());
		assertThat(traces).extracting(Trace::name)
			.contains(scenarios.stream().map((name) -> "scenario_" + name + ".itf.json").toArray(String[]::new));
		assertThat(steps).containsKeys(stepKinds.toArray(new String[0]));
		assertThat(failures).as("traces whose replay parted from the model").isEmpty();
	}

	/**
	 * Replays the traces against a broken script until one fails as {@code caught} says,
	 * and fails if none does.
	 * @param broken the mutation that breaks the script (it must apply: its snippet found
	 * exactly once in the real script)
	 * @param at where it must be caught, for the failure's message
	 * @param replay the kind's replay running the given scripts instead of the library's
	 */
	<S extends Replay.ModelState> void catches(Mutation broken, String at,
			Function<Map<String, String>, Replay<S>> replay, List<Trace<S>> traces, Pattern caught) {
		Replayed replayed = replayUntil(replay.apply(Map.of(broken.script(), broken.apply())), traces, caught);
		List<String> failures = replayed.failures();
		if (failures.isEmpty() || !caught.matcher(failures.get(failures.size() - 1)).find()) {
			throw new AssertionError(
					"No replay caught the broken " + broken.file() + " " + at + "; failures: " + failures);
		}
		System.out.printf("Against the broken %s, %d of the first %d traces failed, the last: %s%n", broken.file(),
				failures.size(), replayed.traces(), failures.get(failures.size() - 1));
	}

	// replays traces in order, until one fails as stopAt says (null: all of them)
	private static <S extends Replay.ModelState> Replayed replayUntil(Replay<S> replay, List<Trace<S>> traces,
			Pattern stopAt) {
		List<String> failures = new ArrayList<>();
		int replayed = 0;
		for (Trace<S> trace : traces) {
			replayed++;
			try {
				replay.replay(trace);
			}
			catch (AssertionError ex) {
				failures.add(ex.getMessage());
				if (stopAt != null && stopAt.matcher(ex.getMessage()).find()) {
					break;
				}
			}
		}
		return new Replayed(replayed, failures);
	}

	private record Replayed(int traces, List<String> failures) {

	}

}
