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
	 * Resets the stats when measuring starts, and reads the CPU time used so far, from a
	 * thread of its own; {@link Window#join() join} it before reading them.
	 */
	static Window resetAt(RedisServer redis, long measureFromMillis) {
		Window window = new Window();
		window.thread = new Thread(() -> {
			CycleScenario.sleepUntil(measureFromMillis);
			reset(redis);
			window.cpuAtStart = CpuUse.read(redis);
		});
		window.thread.start();
		return window;
	}

	/** A measured window, opened by {@link #resetAt}. */
	static final class Window {

		private Thread thread;

		private volatile CpuUse cpuAtStart = CpuUse.UNKNOWN;

		void join() {
			CycleScenario.join(this.thread);
		}

		/** The CPU time used since the window opened. */
		CpuUse cpu(RedisServer redis) {
			return CpuUse.read(redis).since(this.cpuAtStart);
		}

	}

	static void reset(RedisServer redis) {
		redis.command("CONFIG", "RESETSTAT");
	}

	static Map<String, Long> read(RedisServer redis) {
		return read(redis, "calls");
	}

	/** Redis' own time in each command since the last reset, in microseconds. */
	static Map<String, Long> micros(RedisServer redis) {
		return read(redis, "usec");
	}

	private static Map<String, Long> read(RedisServer redis, String field) {
		Map<String, Long> values = new TreeMap<>();
		for (String line : redis.command("INFO", "commandstats").split("\r?\n")) {
			if (!line.startsWith("cmdstat_")) {
				continue;
			}
			String command = line.substring("cmdstat_".length(), line.indexOf(':'));
			if (command.equals("info") || command.startsWith("config")) {
				continue;
			}
			int start = line.indexOf(field + "=") + field.length() + 1;
			values.put(command, Long.parseLong(line.substring(start, line.indexOf(',', start))));
		}
		return values;
	}

}
