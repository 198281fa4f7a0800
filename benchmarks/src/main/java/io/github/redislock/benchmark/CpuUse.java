package io.github.redislock.benchmark;

import java.lang.management.ManagementFactory;

import com.sun.management.OperatingSystemMXBean;
import io.github.redislock.testsupport.RedisServer;

/**
 * CPU time this JVM and the Redis server have used, read at one moment; the difference of
 * two readings is what a measured window cost. On a machine whose cores the JVM and Redis
 * share, this is steadier than throughput, which varies with whatever else the machine
 * runs.
 *
 * @param jvmSeconds CPU time of this JVM (all its threads, the JIT and GC included), or
 * of the worker JVMs that did the work
 * @param redisSeconds CPU time of the Redis server ({@code used_cpu_sys} plus
 * {@code used_cpu_user})
 */
record CpuUse(double jvmSeconds, double redisSeconds) {

	static final CpuUse UNKNOWN = new CpuUse(Double.NaN, Double.NaN);

	static CpuUse read(RedisServer redis) {
		return new CpuUse(processCpuSeconds(), redisCpuSeconds(redis));
	}

	/** CPU time of this JVM so far, in seconds. */
	static double processCpuSeconds() {
		return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1e9;
	}

	private static double redisCpuSeconds(RedisServer redis) {
		double server = 0;
		for (String line : redis.command("INFO", "cpu").split("\r?\n")) {
			if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
				server += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
			}
		}
		return server;
	}

	CpuUse since(CpuUse start) {
		return new CpuUse(this.jvmSeconds - start.jvmSeconds, this.redisSeconds - start.redisSeconds);
	}

}
