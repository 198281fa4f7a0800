package io.github.redislock.benchmark;

import java.util.Map;
import java.util.TreeMap;

import io.github.redislock.testsupport.RedisServer;

/**
 * Redis' own count of the commands it ran ({@code INFO commandstats}), which includes
 * commands run inside Lua scripts; the benchmark's own INFO and CONFIG calls are left
 * out.
 */
final class CommandStats {

	private CommandStats() {
	}

	/**
	 * Resets the stats when measuring starts, from a thread of its own; join it before
	 * reading them.
	 */
	static Thread resetAt(RedisServer redis, long measureFromMillis) {
		Thread reset = new Thread(() -> {
			CycleScenario.sleepUntil(measureFromMillis);
			reset(redis);
		});
		reset.start();
		return reset;
	}

	static void reset(RedisServer redis) {
		redis.command("CONFIG", "RESETSTAT");
	}

	static Map<String, Long> read(RedisServer redis) {
		Map<String, Long> calls = new TreeMap<>();
		for (String line : redis.command("INFO", "commandstats").split("\r?\n")) {
			if (!line.startsWith("cmdstat_")) {
				continue;
			}
			String command = line.substring("cmdstat_".length(), line.indexOf(':'));
			if (command.equals("info") || command.startsWith("config")) {
				continue;
			}
			int start = line.indexOf("calls=") + "calls=".length();
			calls.put(command, Long.parseLong(line.substring(start, line.indexOf(',', start))));
		}
		return calls;
	}

}
