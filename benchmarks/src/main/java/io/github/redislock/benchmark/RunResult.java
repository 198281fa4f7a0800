package io.github.redislock.benchmark;

import java.util.Map;

import org.HdrHistogram.Histogram;

/**
 * What one measured run of one library produced.
 *
 * @param operations lock/unlock cycles (or acquisitions, under contention) in the
 * measured window
 * @param seconds length of the measured window
 * @param latency nanoseconds per cycle (uncontended) or from release to the next holder
 * (contended)
 * @param counterOk whether the shared non-atomic counter ended equal to the acquisitions
 * @param redisCommands commands Redis ran in the window, by name, including those run
 * inside Lua scripts
 * @param smallestShare with several JVMs, the share of the acquisitions the JVM with the
 * fewest made; NaN otherwise
 */
record RunResult(long operations, double seconds, Histogram latency, boolean counterOk, Map<String, Long> redisCommands,
		double smallestShare) {

	RunResult(long operations, double seconds, Histogram latency, boolean counterOk, Map<String, Long> redisCommands) {
		this(operations, seconds, latency, counterOk, redisCommands, Double.NaN);
	}

	/** Lua script calls (EVALSHA and EVAL) per operation. */
	double scriptsPerOperation() {
		long scripts = this.redisCommands.getOrDefault("evalsha", 0L) + this.redisCommands.getOrDefault("eval", 0L);
		return (this.operations > 0) ? (double) scripts / this.operations : Double.NaN;
	}

	double perSecond() {
		return this.operations / this.seconds;
	}

	double commandsPerOperation() {
		long total = this.redisCommands.values().stream().mapToLong(Long::longValue).sum();
		return (this.operations > 0) ? (double) total / this.operations : Double.NaN;
	}

	double p50Micros() {
		return this.latency.getValueAtPercentile(50) / 1000.0;
	}

	double p99Micros() {
		return this.latency.getValueAtPercentile(99) / 1000.0;
	}

}
