package io.github.redislock.torture;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.redislock.testsupport.RedisServer;

/**
 * What Redis has of the workers of {@link TortureTests} at one moment: their connections
 * by client name and type, the pub/sub channels, and every key (with its remaining lease,
 * apart from the fencing counters, which are meant to stay).
 *
 * @param normal command connections by client name, without the one asking
 * @param pubsub pub/sub connections by client name
 * @param channels the channels anyone is subscribed to
 * @param fencingCounters the fencing counter keys
 * @param otherKeys every other key, with its remaining lease in ms ({@code PTTL}: -1 for
 * none)
 */
record TortureLeftovers(Map<String, Integer> normal, Map<String, Integer> pubsub, List<String> channels,
		List<String> fencingCounters, Map<String, Long> otherKeys) {

	static TortureLeftovers of(RedisServer redis) {
		List<String> keys = elements(redis.command("KEYS", "*"));
		Map<String, Long> otherKeys = new TreeMap<>();
		for (String key : keys) {
			if (!isFencingCounter(key)) {
				otherKeys.put(key, Long.parseLong(redis.command("PTTL", key)));
			}
		}
		return new TortureLeftovers(connections(redis, "normal"), connections(redis, "pubsub"),
				elements(redis.command("PUBSUB", "CHANNELS")),
				keys.stream().filter(TortureLeftovers::isFencingCounter).sorted().toList(), otherKeys);
	}

	boolean isEmpty() {
		return this.normal.isEmpty() && this.pubsub.isEmpty() && this.channels.isEmpty() && this.otherKeys.isEmpty();
	}

	@Override
	public String toString() {
		return "connections " + this.normal + ", pub/sub connections " + this.pubsub + ", channels " + this.channels
				+ ", keys: " + this.fencingCounters.size() + " fencing counters"
				+ (this.otherKeys.isEmpty() ? "" : " and " + this.otherKeys + " (key=PTTL ms)");
	}

	private static boolean isFencingCounter(String key) {
		return key.startsWith("lock:fence:");
	}

	// by the name the connections gave themselves; the connection asking is not counted
	private static Map<String, Integer> connections(RedisServer redis, String type) {
		Map<String, Integer> byName = new TreeMap<>();
		for (String client : elements(redis.command("CLIENT", "LIST", "TYPE", type))) {
			if (!client.contains(" cmd=client|list ")) {
				String name = field(client, "name");
				byName.merge(name.isEmpty() ? "(unnamed)" : name, 1, Integer::sum);
			}
		}
		return byName;
	}

	private static String field(String client, String field) {
		return Arrays.stream(client.split(" "))
			.filter((pair) -> pair.startsWith(field + "="))
			.map((pair) -> pair.substring(field.length() + 1))
			.findFirst()
			.orElse("");
	}

	private static List<String> elements(String reply) {
		return reply.lines().filter((line) -> !line.isBlank()).toList();
	}

}
