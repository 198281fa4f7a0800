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
 * @param cpu CPU time this JVM (or the worker JVMs that did the work) and Redis used in
 * the window
 */
record RunResult(long operations, double seconds, Histogram latency, boolean counterOk, Map<String, Long> redisCommands,
		double smallestShare, CpuUse cpu) {

	RunResult(long operations, double seconds, Histogram latency, boolean counterOk, Map<String, Long> redisCommands,
			CpuUse cpu) {
		this(operations, seconds, latency, counterOk, redisCommands, Double.NaN, cpu);
	}

	/** CPU time per operation, in microseconds: this JVM's plus Redis'. */
	double cpuMicrosPerOperation() {
		return (this.operations > 0) ? 1e6 * (this.cpu.jvmSeconds() + this.cpu.redisSeconds()) / this.operations
				: Double.NaN;
	}

	/** Redis' share of {@link #cpuMicrosPerOperation()}, in microseconds. */
	double redisCpuMicrosPerOperation() {
		return (this.operations > 0) ? 1e6 * this.cpu.redisSeconds() / this.operations : Double.NaN;
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

	double maxMillis() {
		return this.latency.getMaxValue() / 1e6;
	}

	double p99Micros() {
		return this.latency.getValueAtPercentile(99) / 1000.0;
	}

}
